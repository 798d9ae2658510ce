/* kernels_quantized at its edges: rounding half to even, clamping to narrowed
 * ranges, every quantized dtype (uint8, int8, int16, uint16, int32), NaN and
 * infinities, choose_qparams' corner cases, the sub-byte unpacking of the
 * embeddings, the group layout of mixed_linear, the pool splitting a large
 * quantize, and hostile parameters (zero/NaN/negative scales, zero points
 * out of range, ranges beyond the dtype, groups that do not divide, wrong
 * packed sizes, out-of-range indices), each of which must fail with a
 * message. Kernels are called through the registry with a zeroed method as
 * their context; the quantized zoo cases run end to end at the end. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/kernels_quantized.h>
#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include <math.h>
#include <stdint.h>

#include "../common/test_util.h"
#include "method.h"

/* ---- building calls ---- */

#define MAXV 24
typedef struct call {
  pte_value v[MAXV];
  pte_value *p[MAXV];
  int32_t n;
  pte_tensor t[MAXV];
  int32_t nt;
} call;

static pte_value *push(call *c) {
  pte_value *v = &c->v[c->n];
  memset(v, 0, sizeof *v);
  c->p[c->n++] = v;
  return v;
}
static void a_t(call *c, pte_tensor *t) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
}
static void a_i(call *c, int64_t i) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_INT;
  v->u.i = i;
}
static void a_d(call *c, double d) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_DOUBLE;
  v->u.d = d;
}
static void a_none(call *c) { push(c)->tag = PTE_TAG_NONE; }
/* An output tensor: passed as the out argument and again as the return. */
static void a_out(call *c, pte_tensor *t) {
  a_t(c, t);
  a_t(c, t);
}

/* A tensor over caller memory; `dynamic` lets the kernel resize it. */
static pte_tensor *tn(call *c, int32_t dtype, void *data, int32_t dim, const int64_t *sizes, bool dynamic) {
  pte_tensor *t = &c->t[c->nt++];
  pte_tensor_init(t, dtype, dim, sizes, data);
  t->capacity = (size_t)pte_tensor_numel(t) * pte_dtype_size(dtype);
  if (dynamic) t->dynamism = PTE_SHAPE_DYNAMIC_BOUND;
  return t;
}
#define T1(c, dt, data, n) tn(c, dt, data, 1, (const int64_t[]){n}, false)
#define T2(c, dt, data, a, b) tn(c, dt, data, 2, (const int64_t[]){a, b}, false)

static pte_status run(const char *op, call *c) {
  const pte_kernel *k = pte_operator_find(op, NULL);
  if (!k) {
    fprintf(stderr, "operator %s is not registered\n", op);
    return PTE_ERR_NOT_FOUND;
  }
  pte_method *m = calloc(1, sizeof *m);
  pte_kernel_ctx ctx = {m, op, NULL};
  pte_status st = k->fn(&ctx, c->p, c->n);
  free(m);
  return st;
}

/* quantize_per_tensor.out(x, scale, zp, qmin, qmax, dtype, out) */
static pte_status quantize(const float *x, int64_t n, double scale, int64_t zp, int64_t qmin, int64_t qmax,
                           int32_t dtype, void *out) {
  call c = {0};
  a_t(&c, T1(&c, PTE_FLOAT32, (void *)x, n));
  a_d(&c, scale);
  a_i(&c, zp);
  a_i(&c, qmin);
  a_i(&c, qmax);
  a_i(&c, dtype);
  a_out(&c, T1(&c, dtype, out, n));
  return run("quantized_decomposed::quantize_per_tensor.out", &c);
}

/* dequantize_per_tensor.out(q, scale, zp, qmin, qmax, dtype, out_dtype=None, out) */
static pte_status dequantize(const void *q, int64_t n, double scale, int64_t zp, int64_t qmin, int64_t qmax,
                             int32_t dtype, int32_t out_dtype, void *out) {
  call c = {0};
  a_t(&c, T1(&c, dtype, (void *)q, n));
  a_d(&c, scale);
  a_i(&c, zp);
  a_i(&c, qmin);
  a_i(&c, qmax);
  a_i(&c, dtype);
  a_none(&c);
  a_out(&c, T1(&c, out_dtype, out, n));
  return run("quantized_decomposed::dequantize_per_tensor.out", &c);
}

/* ---- semantics ---- */

/* Static builds do not register libraries when linked. */
TEST(registers) {
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_kernels_optimized_register());
  CHECK_OK(pte_kernels_quantized_register());
  CHECK(pte_kernels_quantized_count() == 19, "%d operators", (int)pte_kernels_quantized_count());
}

TEST(rounds_half_to_even) {
  /* x / 0.25 = 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.75, 3.25 */
  const float x[] = {0.125f, 0.375f, 0.625f, -0.125f, -0.375f, -0.625f, 0.1875f, 0.8125f};
  const int8_t want[] = {0, 2, 2, 0, -2, -2, 1, 3};
  int8_t q[8];
  CHECK_OK(quantize(x, 8, 0.25, 0, -128, 127, PTE_INT8, q));
  for (int i = 0; i < 8; i++) CHECK(q[i] == want[i], "x=%g: %d, want %d", x[i], q[i], want[i]);
  /* the zero point is added after rounding: 0.5 + 3 rounds to 3, not 4 */
  CHECK_OK(quantize(x, 1, 0.25, 3, -128, 127, PTE_INT8, q));
  CHECK(q[0] == 3, "%d", q[0]);
}

TEST(clamps_to_the_quant_range) {
  const float x[] = {-1000.f, -2.f, 0.f, 2.f, 1000.f, INFINITY, -INFINITY, NAN};
  uint8_t u[8];
  CHECK_OK(quantize(x, 8, 0.1, 128, 10, 250, PTE_UINT8, u));
  const uint8_t want[] = {10, 108, 128, 148, 250, 250, 10, 10};
  for (int i = 0; i < 8; i++) CHECK(u[i] == want[i], "x=%g: %d, want %d", x[i], u[i], want[i]);
}

TEST(every_quantized_dtype) {
  const float x[] = {-40000.f, -1.5f, 0.f, 2.5f, 70000.f};
  int16_t s[5];
  CHECK_OK(quantize(x, 5, 1.0, 0, INT16_MIN, INT16_MAX, PTE_INT16, s));
  CHECK(s[0] == INT16_MIN && s[1] == -2 && s[3] == 2 && s[4] == INT16_MAX, "%d %d %d %d", s[0], s[1], s[3],
        s[4]);
  uint16_t us[5];
  CHECK_OK(quantize(x, 5, 1.0, 100, 0, UINT16_MAX, PTE_UINT16, us));
  CHECK(us[0] == 0 && us[1] == 98 && us[2] == 100 && us[4] == UINT16_MAX, "%d %d %d %d", us[0], us[1], us[2],
        us[4]);
  int32_t w[5];
  CHECK_OK(quantize(x, 5, 1e-5, -7, INT32_MIN, INT32_MAX, PTE_INT32, w));
  CHECK(w[0] == INT32_MIN && w[4] == INT32_MAX && w[2] == -7, "%d %d %d", w[0], w[4], w[2]);
  CHECK(w[1] == -150007, "%d", w[1]);
  /* back: (q - zp) * scale in float32, into float32 and float64 */
  const int32_t q32[] = {INT32_MIN, -5, 0, INT32_MAX};
  float f[4];
  CHECK_OK(dequantize(q32, 4, 0.5, -5, INT32_MIN, INT32_MAX, PTE_INT32, PTE_FLOAT32, f));
  CHECK(f[1] == 0.f && f[2] == 2.5f && f[3] == (float)((double)INT32_MAX + 5) * 0.5f, "%g %g %g", f[1], f[2],
        f[3]);
  double d[4];
  const int16_t q16[] = {-3, 0, 3, INT16_MAX};
  CHECK_OK(dequantize(q16, 4, 0.1, 0, INT16_MIN, INT16_MAX, PTE_INT16, PTE_FLOAT64, d));
  CHECK(d[0] == (double)(-3.f * 0.1f) && d[3] == (double)(32767.f * 0.1f), "%.17g %.17g", d[0], d[3]);
}

TEST(per_channel_and_per_token) {
  /* [2, 3] on axis 1: channel c uses scale s[c], zero point z[c] */
  const float x[] = {1.f, 1.f, 1.f, -1.f, -1.f, -1.f};
  double s[] = {0.5, 0.25, 2.0};
  int64_t z[] = {0, 10, -3};
  int8_t q[6];
  call c = {0};
  a_t(&c, T2(&c, PTE_FLOAT32, (void *)x, 2, 3));
  a_t(&c, T1(&c, PTE_FLOAT64, s, 3));
  a_t(&c, T1(&c, PTE_INT64, z, 3));
  a_i(&c, -1);
  a_i(&c, -128);
  a_i(&c, 127);
  a_i(&c, PTE_INT8);
  a_out(&c, T2(&c, PTE_INT8, q, 2, 3));
  CHECK_OK(run("quantized_decomposed::quantize_per_channel.out", &c));
  const int8_t want[] = {2, 14, -3, -2, 6, -3}; /* channel 2: +-0.5 rounds to 0, then -3 */
  for (int i = 0; i < 6; i++) CHECK(q[i] == want[i], "element %d: %d, want %d", i, q[i], want[i]);
  /* per token: one scale per row of the last dim */
  float y[6];
  float ts[] = {0.5f, 0.25f};
  int32_t tz[] = {1, -1};
  call d = {0};
  a_t(&d, T2(&d, PTE_INT8, q, 2, 3));
  a_t(&d, T1(&d, PTE_FLOAT32, ts, 2));
  a_t(&d, T1(&d, PTE_INT32, tz, 2));
  a_i(&d, -128);
  a_i(&d, 127);
  a_i(&d, PTE_INT8);
  a_i(&d, PTE_FLOAT32);
  a_out(&d, T2(&d, PTE_FLOAT32, y, 2, 3));
  CHECK_OK(run("quantized_decomposed::dequantize_per_token.out", &d));
  CHECK(y[0] == 0.5f && y[1] == 6.5f && y[3] == -0.25f && y[5] == -0.5f, "%g %g %g %g", y[0], y[1], y[3],
        y[5]);
}

static pte_status choose(const float *x, int64_t n, int64_t qmin, int64_t qmax, double *scale, int64_t *zp) {
  call c = {0};
  a_t(&c, T1(&c, PTE_FLOAT32, (void *)x, n));
  a_i(&c, qmin);
  a_i(&c, qmax);
  a_d(&c, 1e-5);
  a_i(&c, PTE_INT8);
  pte_tensor *s = T1(&c, PTE_FLOAT64, scale, 1), *z = T1(&c, PTE_INT64, zp, 1);
  a_t(&c, s);
  a_t(&c, z);
  push(&c)->tag = PTE_TAG_TENSOR_LIST; /* the returned pair (not read) */
  return run("quantized_decomposed::choose_qparams.Tensor_out", &c);
}

TEST(choose_qparams_corners) {
  double s;
  int64_t z;
  const float x[] = {-1.f, 3.f, 0.5f};
  CHECK_OK(choose(x, 3, -128, 127, &s, &z));
  CHECK(s == 4.0 / 255.0 && z == -64, "scale %.17g zp %lld", s, (long long)z);
  /* all positive: the range widens to 0, the zero point is qmin */
  const float pos[] = {2.f, 5.f};
  CHECK_OK(choose(pos, 2, 0, 255, &s, &z));
  CHECK(s == 5.0 / 255.0 && z == 0, "scale %.17g zp %lld", s, (long long)z);
  /* all zero: scale 0.1 */
  const float zero[] = {0.f, 0.f};
  CHECK_OK(choose(zero, 2, -128, 127, &s, &z));
  CHECK(s == 0.1, "scale %.17g", s);
  /* a tiny range: the scale floor 6.1e-5 and a stretched range */
  const float tiny[] = {0.f, 1e-6f};
  CHECK_OK(choose(tiny, 2, -128, 127, &s, &z));
  CHECK(s == (double)6.1e-5f && z == -128, "scale %.17g zp %lld", s, (long long)z);
  /* hostile: an empty range and a non-float32 input */
  CHECK_FAILS(choose(x, 3, 5, 5, &s, &z), PTE_ERR_KERNEL, "quant range");
}

TEST(embedding_unpacking) {
  /* 4-bit: byte 0x1F holds (1 - 8, 15 - 8) = (-7, 7), the even element high;
   * 2-bit: byte 0b11100100 holds (0, 1, 2, 3) - 2 = (-2, -1, 0, 1), element 0 lowest */
  uint8_t w4[] = {0x1F, 0x80}, w2[] = {0xE4};
  float s4[] = {1.f}, s2[] = {0.5f}, z4[] = {1.f};
  int64_t idx[] = {0, 0};
  float out[8];
  call c = {0};
  a_t(&c, T2(&c, PTE_UINT8, w4, 1, 2));
  a_t(&c, T1(&c, PTE_FLOAT32, s4, 1));
  a_t(&c, T1(&c, PTE_FLOAT32, z4, 1));
  a_i(&c, -8);
  a_i(&c, 7);
  a_t(&c, T1(&c, PTE_INT64, idx, 2));
  a_out(&c, tn(&c, PTE_FLOAT32, out, 2, (const int64_t[]){2, 4}, false));
  CHECK_OK(run("quantized_decomposed::embedding_4bit.out", &c));
  const float want4[] = {-8.f, 6.f, -1.f, -9.f};
  for (int i = 0; i < 4; i++) CHECK(out[i] == want4[i] && out[4 + i] == want4[i], "%d: %g", i, out[i]);
  call d = {0};
  a_t(&d, T2(&d, PTE_UINT8, w2, 1, 1));
  a_t(&d, T1(&d, PTE_FLOAT32, s2, 1));
  a_none(&d);
  a_i(&d, -2);
  a_i(&d, 1);
  a_t(&d, T1(&d, PTE_INT64, idx, 1));
  a_none(&d);
  a_out(&d, tn(&d, PTE_FLOAT32, out, 2, (const int64_t[]){1, 4}, false));
  CHECK_OK(run("quantized_decomposed::embedding_2bit.dtype_out", &d));
  CHECK(out[0] == -1.f && out[1] == -0.5f && out[2] == 0.f && out[3] == 0.5f, "%g %g %g %g", out[0], out[1],
        out[2], out[3]);
}

TEST(mixed_linear_groups) {
  /* K = 5 in groups of 2 (3 groups, the last of one element) */
  float x[] = {1, 2, 3, 4, 5}, s[] = {1.f, 10.f, 100.f}, y[1];
  int8_t w[] = {1, 1, 1, 1, 1};
  call c = {0};
  a_t(&c, T2(&c, PTE_FLOAT32, x, 1, 5));
  a_t(&c, T2(&c, PTE_INT8, w, 1, 5));
  a_t(&c, T2(&c, PTE_FLOAT32, s, 1, 3));
  a_none(&c);
  a_none(&c);
  a_out(&c, T2(&c, PTE_FLOAT32, y, 1, 1));
  CHECK_OK(run("quantized_decomposed::mixed_linear.out", &c));
  CHECK(y[0] == 3.f + 70.f + 500.f, "%g", y[0]);
  /* 4 groups would be of 2 (ceil(5 / 4)), but 5 splits into 3 of those */
  c.t[2].sizes[1] = 4;
  c.t[2].capacity = SIZE_MAX;
  CHECK_FAILS(run("quantized_decomposed::mixed_linear.out", &c), PTE_ERR_KERNEL, "groups");
}

TEST(parallel_matches_serial) {
  /* big enough for the pool to split it: every element must still see its channel */
  enum { R = 257, C = 3000 };
  float *x = malloc(sizeof(float) * R * C);
  int8_t *q1 = malloc(R * C), *q2 = malloc(R * C);
  double s[R];
  int64_t z[R];
  for (int r = 0; r < R; r++) s[r] = 0.01 * (r % 7 + 1), z[r] = r % 11 - 5;
  for (int i = 0; i < R * C; i++) x[i] = (float)((int)(((int64_t)i * 7919) % 2001) - 1000) / 300.f;
  for (int pass = 0; pass < 2; pass++) {
    CHECK_OK(pte_threadpool_set_threads(pass ? 3 : 1));
    call c = {0};
    a_t(&c, T2(&c, PTE_FLOAT32, x, R, C));
    a_t(&c, T1(&c, PTE_FLOAT64, s, R));
    a_t(&c, T1(&c, PTE_INT64, z, R));
    a_i(&c, 0);
    a_i(&c, -128);
    a_i(&c, 127);
    a_i(&c, PTE_INT8);
    a_out(&c, T2(&c, PTE_INT8, pass ? q2 : q1, R, C));
    CHECK_OK(run("quantized_decomposed::quantize_per_channel.out", &c));
  }
  CHECK(!memcmp(q1, q2, R * C), "1 and 3 threads differ");
  for (int i = 0; i < R * C; i += 997) {
    int r = i / C;
    long v = lrintf(x[i] * (1.0f / (float)s[r])) + z[r];
    v = v < -128 ? -128 : v > 127 ? 127 : v;
    CHECK(q1[i] == v, "element %d: %d, want %ld", i, q1[i], v);
  }
  free(x);
  free(q1);
  free(q2);
}

/* ---- hostile parameters ---- */

TEST(hostile_scales_and_zero_points) {
  const float x[] = {1.f, 2.f};
  int8_t q[2];
  CHECK_FAILS(quantize(x, 2, 0.0, 0, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "scale");
  CHECK_FAILS(quantize(x, 2, NAN, 0, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "scale");
  CHECK_FAILS(quantize(x, 2, -0.5, 0, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "scale");
  CHECK_FAILS(quantize(x, 2, INFINITY, 0, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "scale");
  CHECK_FAILS(quantize(x, 2, 1e-300, 0, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "scale"); /* 0 in float32 */
  CHECK_FAILS(quantize(x, 2, 0.1, 200, -128, 127, PTE_INT8, q), PTE_ERR_KERNEL, "zero point");
  CHECK_FAILS(quantize(x, 2, 0.1, 0, -129, 127, PTE_INT8, q), PTE_ERR_KERNEL, "does not fit");
  CHECK_FAILS(quantize(x, 2, 0.1, 0, 5, 4, PTE_INT8, q), PTE_ERR_KERNEL, "greater than");
  CHECK_FAILS(quantize(x, 2, 0.1, 0, -128, 127, PTE_FLOAT32, q), PTE_ERR_KERNEL, "not a quantized dtype");
  CHECK_FAILS(quantize(x, 2, 0.1, 0, -128, 127, 99, q), PTE_ERR_KERNEL, "not a dtype");
  float f[2];
  CHECK_FAILS(dequantize(q, 2, 0.0, 0, -128, 127, PTE_INT8, PTE_FLOAT32, f), PTE_ERR_KERNEL, "scale");
  CHECK_FAILS(dequantize(q, 2, 0.1, 0, -128, 127, PTE_UINT8, PTE_FLOAT32, f), PTE_ERR_KERNEL, "does not fit");
  CHECK_FAILS(dequantize(q, 2, 0.1, 0, -128, 127, PTE_INT8, PTE_INT32, f), PTE_ERR_KERNEL,
              "expected a float");
  /* per channel: a NaN scale and a zero point out of range in the tensors */
  double s[] = {0.1, NAN};
  int64_t z[] = {0, 0};
  call c = {0};
  a_t(&c, T2(&c, PTE_FLOAT32, (void *)x, 1, 2));
  a_t(&c, T1(&c, PTE_FLOAT64, s, 2));
  a_t(&c, T1(&c, PTE_INT64, z, 2));
  a_i(&c, 1);
  a_i(&c, -128);
  a_i(&c, 127);
  a_i(&c, PTE_INT8);
  a_out(&c, T2(&c, PTE_INT8, q, 1, 2));
  CHECK_FAILS(run("quantized_decomposed::quantize_per_channel.out", &c), PTE_ERR_KERNEL, "channel 1");
  s[1] = 0.1;
  z[0] = 1000;
  CHECK_FAILS(run("quantized_decomposed::quantize_per_channel.out", &c), PTE_ERR_KERNEL, "zero point 1000");
  z[0] = 0;
  c.v[3].u.i = 0; /* axis 0 has 1 channel, the tensors 2 */
  CHECK_FAILS(run("quantized_decomposed::quantize_per_channel.out", &c), PTE_ERR_KERNEL, "2 scales for 1");
  c.v[3].u.i = 5;
  CHECK_FAILS(run("quantized_decomposed::quantize_per_channel.out", &c), PTE_ERR_KERNEL, "dim");
}

/* embedding_4bit.out with the given packed width and scale groups */
static pte_status emb4(int64_t packed, int64_t groups, int64_t index, const char **msg) {
  static uint8_t w[64];
  static float s[64], out[256];
  int64_t idx[] = {index};
  call c = {0};
  for (int i = 0; i < 64; i++) s[i] = 0.5f;
  a_t(&c, T2(&c, PTE_UINT8, w, 4, packed));
  a_t(&c, T2(&c, PTE_FLOAT32, s, 4, groups));
  a_none(&c);
  a_i(&c, -8);
  a_i(&c, 7);
  a_t(&c, T1(&c, PTE_INT64, idx, 1));
  a_out(&c, tn(&c, PTE_FLOAT32, out, 2, (const int64_t[]){1, packed * 2}, true));
  pte_status st = run("quantized_decomposed::embedding_4bit.out", &c);
  *msg = pte_last_error();
  return st;
}

TEST(hostile_embeddings) {
  const char *msg;
  CHECK_OK(emb4(4, 2, 3, &msg));                                     /* 8 values in 2 groups of 4 */
  CHECK_FAILS(emb4(4, 3, 0, &msg), PTE_ERR_KERNEL, "do not divide"); /* 8 values, 3 groups */
  CHECK_FAILS(emb4(4, 2, 4, &msg), PTE_ERR_KERNEL, "out of range");  /* row 4 of 4 */
  CHECK_FAILS(emb4(4, 2, -1, &msg), PTE_ERR_KERNEL, "out of range");
  /* scales for another number of rows than the table has */
  uint8_t w[8] = {0};
  float s[3] = {1, 1, 1}, out[8];
  int64_t idx[] = {0};
  call c = {0};
  a_t(&c, T2(&c, PTE_UINT8, w, 2, 4));
  a_t(&c, T1(&c, PTE_FLOAT32, s, 3));
  a_none(&c);
  a_i(&c, -128);
  a_i(&c, 127);
  a_t(&c, T1(&c, PTE_INT64, idx, 1));
  a_out(&c, tn(&c, PTE_FLOAT32, out, 2, (const int64_t[]){1, 4}, true));
  CHECK_FAILS(run("quantized_decomposed::embedding_byte.out", &c), PTE_ERR_KERNEL, "3 rows of scales");
  s[0] = NAN;
  c.t[1].sizes[0] = 2;
  CHECK_FAILS(run("quantized_decomposed::embedding_byte.out", &c), PTE_ERR_KERNEL, "not finite");
  /* a 4-bit table must be uint8 */
  c.t[0].dtype = PTE_INT8;
  CHECK_FAILS(run("quantized_decomposed::embedding_4bit.out", &c), PTE_ERR_KERNEL, "expected uint8");
}

/* ---- the zoo ---- */

TEST(quantized_zoo_cases) {
  static const struct {
    const char *name;
    double atol;
  } cases[] = {{"quantize_per_tensor", 0}, {"quantize_tensor_args", 0}, {"quantize_per_channel", 0},
               {"quantize_per_token", 0},  {"embedding_quantized", 0},  {"mixed_linear", 0},
               {"add_quantized", 0},       {"pt2e_static_cnn", -1},     {"pt2e_dynamic_linear", -1}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char rel[128], err[512];
    snprintf(rel, sizeof rel, "quantized/%s", cases[i].name);
    /* the models' tolerance is in their case.json (a few output steps): 1e-2 bounds it */
    double atol = cases[i].atol < 0 ? 1e-2 : 0;
    pte_status st = run_case(zoo_path(rel), "forward", NULL, 0, atol, err, sizeof err);
    CHECK(st == PTE_OK, "%s: %s", cases[i].name, err);
  }
}

TEST_MAIN(T(registers), T(rounds_half_to_even), T(clamps_to_the_quant_range), T(every_quantized_dtype),
          T(per_channel_and_per_token), T(choose_qparams_corners), T(embedding_unpacking),
          T(mixed_linear_groups), T(parallel_matches_serial), T(hostile_scales_and_zero_points),
          T(hostile_embeddings), T(quantized_zoo_cases))
