/* The kernel layer's int8 product (klayer.h, qgemm*.c) on its own: qd8 row
 * quantization against hand-computed and property checks, weight packing
 * (int8, int4 unsigned or signed nibbles, per channel or per group, float
 * or bf16 scales, zero points, transposed storage) and k_qgemm against a
 * double-precision reference over edge shapes, serial and on a pool of 3
 * threads (ctest runs it once per instruction set), and the refusals of
 * bad weights; the static int8 product with its int8 epilogue. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall (the AMX check) */
#include <pterun/threadpool.h>

#include <stdint.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "../common/test_util.h"
#include "klayer.h"

static uint64_t g_rng = 0x2545f4914f6cdd1dull;
static uint32_t urand(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 32);
}
static float frand(void) { return (float)(urand() & 0xffff) / 32768.0f - 1.0f; }
static int64_t irand(int64_t n) { return (int64_t)(urand() % (uint64_t)n); }

TEST(qd8_hand_computed) {
  /* [-1, 3]: step 4/255, inverse 63.75; the summed errors are positive,
   * so the zero point is the one from -1: -64.25, rounded -64 */
  const float x[5] = {-1.0f, 0.0f, 3.0f, 1.0f, 0.5f};
  int8_t q[5];
  k_qd8_params p;
  k_qd8_quantize_rows(1, 5, x, 5, q, 5, &p);
  CHECK(p.zero_point == -64, "zero point %d", (int)p.zero_point);
  CHECK(p.scale == 1.0f / 63.75f, "scale %.9g", (double)p.scale);
  CHECK(q[0] == -128 && q[1] == -64 && q[2] == 127 && q[3] == 0 && q[4] == -32, "q %d %d %d %d %d", q[0],
        q[1], q[2], q[3], q[4]);
  /* all positive: the range widens to 0, zero point -128 */
  const float y[3] = {2.0f, 1.0f, 0.5f};
  k_qd8_quantize_rows(1, 3, y, 3, q, 3, &p);
  CHECK(p.zero_point == -128 && q[0] == 127 && q[1] == 0 && q[2] == -64, "positive row: zp %d q %d %d %d",
        (int)p.zero_point, q[0], q[1], q[2]);
  /* all negative: zero point 127; -127.5 rounds to even */
  const float z[2] = {-2.0f, -1.0f};
  k_qd8_quantize_rows(1, 2, z, 2, q, 2, &p);
  CHECK(p.zero_point == 127 && q[0] == -128 && q[1] == -1, "negative row: zp %d q %d %d", (int)p.zero_point,
        q[0], q[1]);
  /* all zero: step 1, and XNNPACK's choice falls on the zero point from
   * the top (127) */
  const float o[2] = {0.0f, 0.0f};
  k_qd8_quantize_rows(1, 2, o, 2, q, 2, &p);
  CHECK(p.zero_point == 127 && p.scale == 1.0f && q[0] == 127 && q[1] == 127, "zero row: zp %d scale %g",
        (int)p.zero_point, (double)p.scale);
  /* NaN lands in range, the rest of the row as without it */
  const float n[3] = {-1.0f, NAN, 3.0f};
  k_qd8_quantize_rows(1, 3, n, 3, q, 3, &p);
  CHECK(p.zero_point == -64 && q[0] == -128 && q[2] == 127, "NaN row: zp %d", (int)p.zero_point);
  /* the same in the vector loops: a long row, NaN in the first block */
  float r[41];
  int8_t qr[41];
  for (int i = 0; i < 41; i++) r[i] = (float)(i % 5) - 1.0f; /* -1 .. 3 */
  r[3] = NAN;
  k_qd8_quantize_rows(1, 41, r, 41, qr, 41, &p);
  CHECK(p.zero_point == -64 && qr[0] == -128 && qr[4] == 127 && qr[39] == 127 && qr[3] == -128,
        "long NaN row: zp %d q %d %d %d %d", (int)p.zero_point, qr[0], qr[4], qr[39], qr[3]);
}

TEST(qd8_properties) {
  enum { K = 97, M = 40 };
  static float a[M * K];
  static int8_t q[M * 128];
  k_qd8_params p[M];
  for (int i = 0; i < M * K; i++) a[i] = frand() * (float)(1 + i / K) + (i / K % 3 == 0 ? 1.5f : 0.0f);
  k_qd8_quantize_rows(M, K, a, K, q, 128, p);
  for (int m = 0; m < M; m++) {
    CHECK(p[m].zero_point >= -128 && p[m].zero_point <= 127 && p[m].scale > 0, "row %d params", m);
    int lo = 127, hi = -128;
    for (int k = 0; k < K; k++) {
      double back = (double)(q[m * 128 + k] - p[m].zero_point) * p[m].scale;
      CHECK(fabs(back - a[m * K + k]) <= 0.5001 * p[m].scale, "row %d k %d: %g back as %g", m, k,
            (double)a[m * K + k], back);
      lo = q[m * 128 + k] < lo ? q[m * 128 + k] : lo;
      hi = q[m * 128 + k] > hi ? q[m * 128 + k] : hi;
    }
    CHECK(lo == -128 || hi == 127, "row %d uses [%d, %d] of the range", m, lo, hi);
  }
}

typedef struct qcase {
  int64_t M, N, K, group;
  int bits;
  bool transposed, nibble_signed, zps, bf16, bias, clamp, f32_in, parallel;
} qcase;

static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16); /* truncation: the value used is the bf16 one */
}
static float from_bf16(uint16_t h) {
  uint32_t u = (uint32_t)h << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* XNNPACK's float arithmetic for one output (qgemm.h), written out: the
 * product must equal it bit for bit, so that it equals ExecuTorch's. q is
 * the row's bytes, w the column's values after zero points (K of them), sc
 * its scales (one, or one per group of G), bias 0 when none. */
static float xnn_reference(const int8_t *q, const k_qd8_params *qp, const int32_t *w, const float *sc,
                           int64_t K, int64_t G, bool blockwise, float bias) {
  int32_t zoff;
  int chunk;
  k_qgemm_xnn_arith(&zoff, &chunk);
  if (!blockwise) {
    int32_t s = 0;
    for (int64_t k = 0; k < K; k++) s += (q[k] - qp->zero_point) * w[k];
    return fmaf((float)s * qp->scale, sc[0], bias);
  }
  float ksum = 0.0f;
  for (int64_t g = 0; g < K / G; g++)
    for (int64_t c0 = g * G; c0 < (g + 1) * G; c0 += chunk) {
      int32_t s = 0;
      for (int64_t k = c0; k < c0 + chunk && k < (g + 1) * G; k++) s += w[k];
      ksum = ksum - (float)s * sc[g];
    }
  float f = ksum * (float)(qp->zero_point + zoff);
  for (int64_t g = 0; g < K / G; g++) {
    int32_t raw = 0;
    for (int64_t k = g * G; k < (g + 1) * G; k++) raw += (q[k] + zoff) * w[k];
    f = fmaf((float)raw, sc[g], f);
  }
  return f * qp->scale + bias;
}

/* Runs one case; returns the worst error relative to its bound (> 1 fails),
 * 3e9 when an output is not XNNPACK's bit for bit, or -1 when the kernel
 * refused. */
static TEST_REFERENCE double qcheck(const qcase *t, const char **why) {
  const int64_t M = t->M, N = t->N, K = t->K;
  const int64_t sg = t->group ? K / t->group : 1, G = t->group ? t->group : K;
  const int64_t rows = t->transposed ? K : N, cols = t->transposed ? N : K;
  const int64_t stride = t->bits == 8 ? cols + (t->transposed ? 3 : 0) : (cols + 1) / 2 + 1;
  uint8_t *wd = calloc((size_t)(rows * stride + 1), 1);
  int32_t *wv = malloc(sizeof(int32_t) * (size_t)(N * K)); /* the values after zero points */
  float *sc = malloc(sizeof(float) * (size_t)(N * sg));
  uint16_t *sb = malloc(sizeof(uint16_t) * (size_t)(N * sg));
  int8_t *zp = malloc((size_t)(N * sg));
  float *bias = malloc(sizeof(float) * (size_t)N);
  float *a = malloc(sizeof(float) * (size_t)(M * K + 1));
  int8_t *qa = malloc((size_t)(M * (K + 5)));
  k_qd8_params *qp = malloc(sizeof(k_qd8_params) * (size_t)M);
  float *c = malloc(sizeof(float) * (size_t)(M * (N + 3))),
        *c2 = malloc(sizeof(float) * (size_t)(M * (N + 3)));
  const int32_t base_zp = t->bits == 4 && !t->nibble_signed ? 8 : 0;
  for (int64_t i = 0; i < N * sg; i++) {
    sc[i] = 0.001f + (float)(urand() % 1000) / 20000.0f;
    sb[i] = to_bf16(sc[i]);
    zp[i] = t->zps ? (int8_t)(irand(5) - 2) : 0;
    if (t->bf16) sc[i] = from_bf16(sb[i]);
  }
  for (int64_t i = 0; i < N; i++) bias[i] = frand();
  for (int64_t n = 0; n < N; n++)
    for (int64_t k = 0; k < K; k++) {
      int32_t z = base_zp + zp[n * sg + k / G], s;
      if (t->bits == 8) s = (int32_t)irand(256 - 8) - 124; /* room for the zero points */
      else s = t->nibble_signed ? (int32_t)irand(16) - 8 : (int32_t)irand(16);
      if (t->bits == 4 && t->zps)
        s = s < 2 + (t->nibble_signed ? -8 : 0) ? s + 2 : s > 13 - (t->nibble_signed ? 8 : 0) ? s - 2 : s;
      wv[n * K + k] = s - z;
      int64_t r = t->transposed ? k : n, cc = t->transposed ? n : k;
      if (t->bits == 8) wd[r * stride + cc] = (uint8_t)(int8_t)s;
      else wd[r * stride + cc / 2] |= (uint8_t)((s & 15) << ((cc & 1) * 4));
    }
  k_qgemm_weights w = {.N = N,
                       .K = K,
                       .bits = t->bits == 8 ? K_QW_INT8 : K_QW_INT4,
                       .data = wd,
                       .stride = stride,
                       .transposed = t->transposed,
                       .nibble_signed = t->nibble_signed,
                       .zero_point = base_zp,
                       .zero_points = t->zps ? zp : NULL,
                       .group = t->group,
                       .scale = t->bf16 ? NULL : sc,
                       .scale_bf16 = t->bf16 ? sb : NULL,
                       .bias = t->bias ? bias : NULL};
  double worst = -1;
  size_t bytes = k_qgemm_packed_size(&w, why);
  void *buf = bytes ? aligned_alloc(64, (bytes + 63) / 64 * 64) : NULL;
  const k_qgemm_packed *p = buf ? k_qgemm_pack(&w, buf, bytes, why) : NULL;
  if (p) {
    for (int64_t i = 0; i < M * K; i++) a[i] = frand() * 2.0f + (i % 7 == 0 ? 1.0f : 0.0f);
    k_qd8_quantize_rows(M, K, a, K, qa, K + 5, qp);
    for (int64_t i = 0; i < M * (N + 3); i++) c[i] = c2[i] = -7.0f;
    k_qgemm_desc g = {.M = M, .w = p, .c = c, .sc = N + 3, .parallel = t->parallel};
    if (t->clamp) g.clamp = true, g.lo = -0.5f, g.hi = 0.7f;
    g.qa = qa, g.sqa = K + 5, g.qparams = qp;
    bool ok = k_qgemm(&g);
    worst = 0;
    for (int64_t m = 0; m < M && ok; m++)
      for (int64_t n = 0; n < N + 3; n++) {
        double got = c[m * (N + 3) + n];
        if (n >= N) {
          if (got != -7.0) worst = 1e9; /* wrote past N */
          continue;
        }
        double ref = t->bias ? bias[n] : 0.0, mag = fabs(ref);
        for (int64_t k = 0; k < K; k++) {
          double v = (double)(qa[m * (K + 5) + k] - qp[m].zero_point) * qp[m].scale * wv[n * K + k] *
                     sc[n * sg + k / G];
          ref += v, mag += fabs(v);
        }
        if (t->clamp) ref = ref < -0.5 ? -0.5 : ref > 0.7 ? 0.7 : ref;
        double e = fabs(got - ref) / (mag * 2e-6 + 1e-30);
        if (e > worst) worst = e;
        /* beyond one internal group (K > 16384) per-channel sums are cut:
         * the tolerance alone applies */
        if (K <= 16384 || t->group) {
          float x = xnn_reference(qa + m * (K + 5), qp + m, wv + n * K, sc + n * sg, K, G, t->group > 0,
                                  t->bias ? bias[n] : 0.0f);
          if (t->clamp) x = x < -0.5f ? -0.5f : x > 0.7f ? 0.7f : x;
          float gf = c[m * (N + 3) + n];
          if (memcmp(&gf, &x, sizeof x)) worst = 3e9;
        }
      }
    if (!ok) worst = 1e9;
    if (t->f32_in) {
      /* float activations: quantized inside, the same numbers */
      g.qa = NULL, g.qparams = NULL, g.a = a, g.sa = K, g.c = c2;
      size_t sb2 = k_qgemm_scratch(M, K);
      void *s = (t->M & 1) ? aligned_alloc(64, sb2) : NULL;
      g.scratch = s, g.scratch_bytes = s ? sb2 : 0;
      if (!k_qgemm(&g) || memcmp(c, c2, sizeof(float) * (size_t)(M * (N + 3)))) worst = 2e9;
      free(s);
    }
  }
  free(buf), free(wd), free(wv), free(sc), free(sb), free(zp), free(bias), free(a), free(qa), free(qp),
      free(c), free(c2);
  return worst;
}

static void qcases(size_t threads, int runs) {
  CHECK_OK(pte_threadpool_set_threads(threads));
  static const int64_t Ms[] = {1, 2, 3, 5, 7, 8, 9, 16, 17, 33, 64};
  static const int64_t Ns[] = {1, 3, 15, 16, 17, 31, 32, 33, 48, 100};
  static const int64_t Ks[] = {1, 2, 3, 4, 5, 7, 31, 32, 33, 64, 96, 127, 128, 256, 384};
  static const int64_t groups[] = {32, 64, 128};
  int fails = 0;
  for (int r = 0; r < runs; r++) {
    qcase t = {.M = Ms[irand(11)], .N = Ns[irand(10)], .K = Ks[irand(15)], .bits = irand(2) ? 8 : 4};
    t.transposed = irand(3) == 0, t.nibble_signed = irand(2), t.zps = irand(3) == 0, t.bf16 = irand(2);
    t.bias = irand(3) != 0, t.clamp = irand(3) == 0, t.f32_in = irand(3) == 0, t.parallel = threads > 1;
    if (irand(2)) {
      int64_t g = groups[irand(3)];
      if (t.K % g == 0) t.group = g;
    }
    const char *why = NULL;
    double e = qcheck(&t, &why);
    if (e < 0 || e > 1) {
      fprintf(
          stderr,
          "M %lld N %lld K %lld group %lld bits %d tr %d signed %d zps %d bf16 %d bias %d clamp %d f32 %d: "
          "%s %g\n",
          (long long)t.M, (long long)t.N, (long long)t.K, (long long)t.group, t.bits, t.transposed,
          t.nibble_signed, t.zps, t.bf16, t.bias, t.clamp, t.f32_in, e < 0 ? why : "error", e);
      fails++;
    }
  }
  CHECK(fails == 0, "%d of %d products (isa %s, %zu threads) off the reference", fails, runs,
        k_isa_name(k_isa_get()), threads);
}

TEST(qgemm_serial) { qcases(1, 400); }
TEST(qgemm_three_threads) { qcases(3, 150); }

TEST(qgemm_large) {
  CHECK_OK(pte_threadpool_set_threads(3));
  /* big enough to split over the pool; K beyond one internal group */
  qcase big[] = {{.M = 130, .N = 200, .K = 512, .bits = 8, .bias = true, .parallel = true},
                 {.M = 70, .N = 96, .K = 1024, .group = 128, .bits = 4, .bf16 = true, .parallel = true},
                 {.M = 2, .N = 5, .K = 40003, .bits = 8, .f32_in = true},
                 {.M = 1, .N = 300, .K = 2048, .group = 32, .bits = 4, .parallel = true, .f32_in = true}};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
    const char *why = NULL;
    double e = qcheck(&big[i], &why);
    CHECK(e >= 0 && e <= 1, "large case %zu: %s %g", i, e < 0 ? why : "error", e);
  }
}

TEST(qgemm_refusals) {
  int8_t w8[64] = {0};
  uint8_t w4[32] = {0};
  float s[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  static _Alignas(64) unsigned char buf[8192];
  const char *why = NULL;
  k_qgemm_weights ok = {.N = 2, .K = 32, .bits = K_QW_INT8, .data = w8, .scale = s};
  CHECK(k_qgemm_packed_size(&ok, &why) > 0 && k_qgemm_pack(&ok, buf, sizeof buf, &why), "a valid one: %s",
        why);
  CHECK(k_qgemm_packed_n((const k_qgemm_packed *)buf) == 2 &&
            k_qgemm_packed_k((const k_qgemm_packed *)buf) == 32,
        "packed shape");
  k_qgemm_weights bad = ok;
  bad.K = 0;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "rows and columns"), "empty: %s", why);
  bad = ok, bad.group = 12;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "group"), "group 12 of 32: %s", why);
  bad = ok, bad.group = 10, bad.K = 30, bad.data = w8;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "group"), "group not a multiple of 4: %s", why);
  bad = ok, bad.scale = NULL;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "scales"), "no scales: %s", why);
  bad = ok, bad.data = NULL;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "data"), "no data: %s", why);
  bad = ok, bad.bits = 3;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "int8 or int4"), "3 bits: %s", why);
  bad = ok, bad.stride = 16;
  CHECK(!k_qgemm_packed_size(&bad, &why) && strstr(why, "stride"), "short stride: %s", why);
  float zs[2] = {1.0f, 0.0f}, ns[2] = {1.0f, NAN}, is[2] = {INFINITY, 1.0f}, neg[2] = {-1.0f, 1.0f};
  const float *scales[] = {zs, ns, is, neg};
  for (int i = 0; i < 4; i++) {
    bad = ok, bad.scale = scales[i];
    CHECK(!k_qgemm_pack(&bad, buf, sizeof buf, &why) && strstr(why, "scale"), "scale %d: %s", i, why);
  }
  w8[5] = -128;
  bad = ok, bad.zero_point = 1;
  CHECK(!k_qgemm_pack(&bad, buf, sizeof buf, &why) && strstr(why, "fit"), "-128 - 1: %s", why);
  w8[5] = 0;
  CHECK(!k_qgemm_pack(&ok, buf, 64, &why) && strstr(why, "short"), "short buffer: %s", why);
  CHECK(!k_qgemm_pack(&ok, buf + 8, sizeof buf - 8, &why) && strstr(why, "aligned"), "misaligned: %s", why);
  k_qgemm_weights q4 = {
      .N = 2, .K = 32, .bits = K_QW_INT4, .data = w4, .scale = s, .group = 16, .zero_point = 8};
  CHECK(k_qgemm_pack(&q4, buf, sizeof buf, &why), "int4 per group: %s", why);
}

/* Static int8 (k_qgemm_s8): int8 activations with a per-tensor zero point,
 * int8 outputs requantized, against a double reference: each output is the
 * reference rounded, or its neighbour when the exact value is within float
 * rounding of a half step. Nothing is written outside the M x N block. */
static int s8check(int64_t M, int64_t N, int64_t K, int32_t za, int32_t zo, int32_t qmin, int32_t qmax,
                   bool parallel) {
  const int64_t sa = K + 3, sc = N + 5;
  int8_t *a = malloc((size_t)(M * sa)), *w = malloc((size_t)(N * K)), *c = malloc((size_t)(M * sc));
  float *scale = malloc(sizeof(float) * (size_t)N), *bias = malloc(sizeof(float) * (size_t)N);
  for (int64_t i = 0; i < M * sa; i++) a[i] = (int8_t)(irand(256) - 128);
  for (int64_t i = 0; i < N * K; i++) w[i] = (int8_t)(irand(255) - 127);
  for (int64_t n = 0; n < N; n++) {
    /* the sums spread over about 60 output steps */
    scale[n] = (0.2f + (float)irand(1000) / 1000.0f) / 64.0f / sqrtf((float)K);
    bias[n] = (float)(irand(4001) - 2000) * scale[n];
  }
  memset(c, 0x55, (size_t)(M * sc));
  k_qgemm_weights qw = {.N = N, .K = K, .bits = K_QW_INT8, .data = w, .scale = scale, .bias = bias};
  const char *why = NULL;
  size_t bytes = k_qgemm_packed_size(&qw, &why);
  void *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
  const k_qgemm_packed *p = k_qgemm_pack(&qw, buf, bytes, &why);
  int bad = 0;
  if (!p) bad = 1 << 20;
  else {
    k_qgemm_s8_desc g = {.M = M,
                         .w = p,
                         .a = a,
                         .sa = sa,
                         .a_zero_point = za,
                         .c = c,
                         .sc = sc,
                         .c_zero_point = zo,
                         .qmin = qmin,
                         .qmax = qmax,
                         .parallel = parallel};
    k_qgemm_s8(&g);
    for (int64_t m = 0; m < M; m++)
      for (int64_t n = 0; n < sc; n++) {
        const int got = c[m * sc + n];
        if (n >= N) {
          bad += got != 0x55;
          continue;
        }
        double acc = 0;
        for (int64_t k = 0; k < K; k++) acc += (double)(a[m * sa + k] - za) * w[n * K + k];
        double v = acc * scale[n] + bias[n] + zo;
        v = v < qmin ? qmin : v > qmax ? qmax : v;
        const double slack = 1e-5 * (fabs(acc * scale[n]) + fabs(bias[n]) + 1);
        bad += !(fabs(got - v) <= 0.5 + slack);
      }
  }
  free(a), free(w), free(c), free(scale), free(bias), free(buf);
  if (bad)
    fprintf(stderr, "s8: M %lld N %lld K %lld za %d zo %d [%d, %d]: %d wrong\n", (long long)M, (long long)N,
            (long long)K, za, zo, qmin, qmax, bad);
  return bad;
}

/* Random static int8 weights (N x K; every 11th at -127 or 127 when
 * `ends`), per-channel scales that spread the sums over about 60 output
 * steps, biases: packed into *buf (the caller frees it), NULL if refused. */
static const k_qgemm_packed *s8_random_packed(int64_t N, int64_t K, bool ends, void **buf) {
  int8_t *w = malloc((size_t)(N * K));
  float *scale = malloc(sizeof(float) * (size_t)N), *bias = malloc(sizeof(float) * (size_t)N);
  for (int64_t i = 0; i < N * K; i++)
    w[i] = (int8_t)(ends && i % 11 == 0 ? (irand(2) ? 127 : -127) : irand(255) - 127);
  for (int64_t n = 0; n < N; n++) {
    scale[n] = (0.2f + (float)irand(1000) / 1000.0f) / 64.0f / sqrtf((float)K);
    bias[n] = (float)(irand(4001) - 2000) * scale[n];
  }
  k_qgemm_weights qw = {.N = N, .K = K, .bits = K_QW_INT8, .data = w, .scale = scale, .bias = bias};
  const char *why = NULL;
  size_t bytes = k_qgemm_packed_size(&qw, &why);
  *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
  const k_qgemm_packed *p = k_qgemm_pack(&qw, *buf, bytes, &why);
  free(w), free(scale), free(bias);
  return p;
}

/* The same static int8 product at 1, 2 and 3 threads, split by column
 * blocks (few rows, a large filter: a 7x7 map's) or by tiles, byte for byte
 * what one thread writes; returns the bytes that differ. */
static int64_t s8threads(int64_t M, int64_t N, int64_t K) {
  const int64_t sa = K + 1, sc = N + 3;
  int8_t *a = malloc((size_t)(M * sa)), *c1 = malloc((size_t)(M * sc)), *c = malloc((size_t)(M * sc));
  for (int64_t i = 0; i < M * sa; i++) a[i] = (int8_t)(irand(256) - 128);
  void *buf = NULL;
  const k_qgemm_packed *p = s8_random_packed(N, K, false, &buf);
  int64_t bad = p ? 0 : -1;
  for (size_t t = 0; p && t <= 3; t++) {
    if (pte_threadpool_set_threads(t ? t : 1) != PTE_OK) bad = -2;
    memset(t ? c : c1, 0x55, (size_t)(M * sc));
    k_qgemm_s8_desc g = {.M = M,
                         .w = p,
                         .a = a,
                         .sa = sa,
                         .a_zero_point = -3,
                         .c = t ? c : c1,
                         .sc = sc,
                         .c_zero_point = 2,
                         .qmin = -128,
                         .qmax = 127,
                         .parallel = t > 0}; /* t 0: serial, the reference */
    k_qgemm_s8(&g);
    for (int64_t i = 0; t && i < M * sc; i++) bad += c[i] != c1[i];
  }
  free(a), free(c1), free(c), free(buf);
  return bad;
}

TEST(qgemm_s8_threads_identical) {
  static const int64_t shapes[][3] = {{49, 512, 4608}, {49, 512, 2304}, {49, 100, 1152},
                                      {1, 1000, 512},  {300, 70, 300},  {196, 256, 2304}};
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    const int64_t bad = s8threads(shapes[i][0], shapes[i][1], shapes[i][2]);
    CHECK(bad == 0, "M %lld N %lld K %lld: %lld bytes differ from one thread's (isa %s)",
          (long long)shapes[i][0], (long long)shapes[i][1], (long long)shapes[i][2], (long long)bad,
          k_qgemm_kernel());
  }
  CHECK_OK(pte_threadpool_set_threads(1));
}

/* k_qgemm_s8 byte for byte what k_qgemm's float tile (the same int8 rows,
 * zero point za, scale 1, clamped to the output range) rounded by
 * k_qstore_s8 gives: the kernels that store int8 themselves (AVX2,
 * AVX-512) must do that epilogue's arithmetic exactly. Tiles of up to 16
 * rows, K across the AVX2 kernel's 256-k chunks and ending off a multiple
 * of 4, zero points at the range ends; 1, 2 and 3 threads. */
static int64_t s8_vs_float(int64_t M, int64_t N, int64_t K, int32_t za, int32_t zo, int32_t qmin,
                           size_t threads) {
  int8_t *a = malloc((size_t)(M * K)), *c = malloc((size_t)(M * N)), *ref = malloc((size_t)(M * N));
  float *f = malloc(sizeof(float) * (size_t)(M * N));
  k_qd8_params *qp = malloc(sizeof(k_qd8_params) * (size_t)M);
  for (int64_t i = 0; i < M * K; i++) a[i] = (int8_t)(irand(256) - 128);
  for (int64_t m = 0; m < M; m++) qp[m] = (k_qd8_params){.zero_point = za, .scale = 1.0f};
  void *buf = NULL;
  const k_qgemm_packed *p = s8_random_packed(N, K, true, &buf);
  int64_t bad = p ? 0 : -1;
  if (p && pte_threadpool_set_threads(threads) != PTE_OK) bad = -2;
  if (!bad) {
    k_qgemm_desc g = {.M = M, .w = p, .c = f, .sc = N, .qa = a, .sqa = K, .qparams = qp, .clamp = true};
    g.lo = (float)(qmin - zo), g.hi = (float)(127 - zo), g.parallel = threads > 1;
    if (!k_qgemm(&g)) bad = -3;
    k_qstore_s8(f, N, M, N, zo, ref, N);
    k_qgemm_s8_desc d = {.M = M, .w = p, .a = a, .sa = K, .a_zero_point = za, .c = c, .sc = N};
    d.c_zero_point = zo, d.qmin = qmin, d.qmax = 127, d.parallel = threads > 1;
    k_qgemm_s8(&d);
    for (int64_t i = 0; !bad && i < M * N; i++) bad += c[i] != ref[i];
  }
  free(a), free(c), free(ref), free(f), free(qp), free(buf);
  return bad;
}

TEST(qgemm_s8_equals_float_tile) {
  static const int64_t Ms[] = {3, 16, 17, 33, 49};
  static const int64_t Ns[] = {1, 15, 16, 17, 33};
  static const int64_t Ks[] = {1, 3, 5, 255, 256, 257, 300, 511, 1029};
  int fails = 0;
  for (int r = 0; r < 60; r++) {
    const int64_t M = Ms[irand(5)], N = Ns[irand(5)], K = Ks[irand(9)];
    const int32_t za = r % 3 == 0 ? -128 : r % 3 == 1 ? 127 : (int32_t)irand(256) - 128;
    const int32_t zo = r % 2 ? 127 : -128, qmin = r % 4 == 1 ? zo : -128;
    const size_t threads = (size_t)(r % 3) + 1;
    const int64_t bad = s8_vs_float(M, N, K, za, zo, qmin, threads);
    if (bad) {
      fprintf(stderr, "s8 vs float tile: M %lld N %lld K %lld za %d zo %d qmin %d, %zu threads: %lld\n",
              (long long)M, (long long)N, (long long)K, za, zo, qmin, threads, (long long)bad);
      fails++;
    }
  }
  CHECK_OK(pte_threadpool_set_threads(1));
  CHECK(fails == 0, "%d static int8 products not the float tile's rounding (isa %s)", fails,
        k_qgemm_kernel());
}

TEST(qgemm_s8) {
  CHECK_OK(pte_threadpool_set_threads(1));
  static const int64_t Ms[] = {1, 2, 3, 5, 6, 7, 12, 13, 49};
  static const int64_t Ns[] = {1, 3, 15, 16, 17, 31, 32, 33, 64, 100};
  static const int64_t Ks[] = {1, 2, 3, 4, 5, 8, 27, 31, 64, 147, 576};
  int fails = 0;
  for (int r = 0; r < 300; r++) {
    int32_t za = (int32_t)irand(256) - 128, zo = (int32_t)irand(256) - 128, qmin = -128, qmax = 127;
    if (r % 4 == 1) qmin = zo; /* a fused ReLU */
    if (r % 4 == 2) qmin = (int32_t)irand(100) - 128, qmax = (int32_t)irand(100) + 28;
    if (r == 0) za = -128, zo = 127;
    if (r == 1) za = 127, zo = -128;
    fails += s8check(Ms[irand(9)], Ns[irand(10)], Ks[irand(11)], za, zo, qmin, qmax, false) != 0;
  }
  CHECK(fails == 0, "%d static int8 products off the reference (isa %s)", fails, k_qgemm_kernel());
  /* on a pool, and K beyond one internal group of int32 sums */
  CHECK_OK(pte_threadpool_set_threads(3));
  CHECK(!s8check(300, 70, 300, 5, -3, -128, 127, true), "parallel");
  CHECK(!s8check(3, 20, 40003, -7, 4, -128, 127, true), "K 40003");
  /* the epilogue alone: half to even, zero point after the rounding */
  const float v[6] = {0.5f, 1.5f, -0.5f, -2.5f, 2.4999f, -127.0f};
  int8_t q[6];
  k_qstore_s8(v, 6, 1, 6, 1, q, 6);
  CHECK(q[0] == 1 && q[1] == 3 && q[2] == 1 && q[3] == -1 && q[4] == 3 && q[5] == -126,
        "epilogue %d %d %d %d %d %d", q[0], q[1], q[2], q[3], q[4], q[5]);
}

/* A second requantization fused into the int8 product and the depthwise
 * kernel (k_requant_s8_params) must equal k_requant_s8 over the unfused
 * result, byte for byte: in registers (no table) and by the table. */
static void rq_params(k_requant_s8_params *rq, int8_t *table, int r, int32_t zin) {
  *rq = (k_requant_s8_params){.zin = zin,
                              .zout = r % 3 ? -128 : (int32_t)irand(256) - 128,
                              .scale = 0.01f + (float)irand(1000) / 20000.0f,
                              .inv = 1.0f / (0.005f + (float)irand(1000) / 40000.0f)};
  k_requant_s8_table(rq, table);
}

TEST(qgemm_s8_requant) {
  CHECK_OK(pte_threadpool_set_threads(1));
  static const int64_t Ms[] = {1, 5, 6, 13, 49};
  static const int64_t Ns[] = {3, 16, 24, 33, 96, 144};
  static const int64_t Ks[] = {3, 16, 27, 32, 64};
  int bad = 0;
  for (int r = 0; r < 60; r++) {
    const int64_t M = r % 3 ? Ms[irand(5)] : 385 /* 65 row tiles: the table path */, N = Ns[irand(6)],
                  K = Ks[irand(5)], sc = r % 2 ? N : N + 3;
    int8_t *a = malloc((size_t)(M * K)), *w = malloc((size_t)(N * K)), *c0 = malloc((size_t)(M * sc)),
           *c1 = malloc((size_t)(M * sc));
    float *scale = malloc(sizeof(float) * (size_t)N), *bias = malloc(sizeof(float) * (size_t)N);
    for (int64_t i = 0; i < M * K; i++) a[i] = (int8_t)(irand(256) - 128);
    for (int64_t i = 0; i < N * K; i++) w[i] = (int8_t)(irand(255) - 127);
    for (int64_t n = 0; n < N; n++) {
      scale[n] = (0.2f + (float)irand(1000) / 1000.0f) / 64.0f / sqrtf((float)K);
      bias[n] = (float)(irand(4001) - 2000) * scale[n];
    }
    k_qgemm_weights qw = {.N = N, .K = K, .bits = K_QW_INT8, .data = w, .scale = scale, .bias = bias};
    const char *why = NULL;
    size_t bytes = k_qgemm_packed_size(&qw, &why);
    void *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
    const k_qgemm_packed *p = k_qgemm_pack(&qw, buf, bytes, &why);
    CHECK(p != NULL, "pack: %s", why);
    const int32_t zo = (int32_t)irand(256) - 128;
    k_qgemm_s8_desc g = {.M = M,
                         .w = p,
                         .a = a,
                         .sa = K,
                         .a_zero_point = (int32_t)irand(256) - 128,
                         .c = c0,
                         .sc = sc,
                         .c_zero_point = zo,
                         .qmin = r % 2 ? zo : -128,
                         .qmax = 127};
    k_qgemm_s8(&g);
    k_requant_s8_params rq;
    int8_t table[256];
    rq_params(&rq, table, r, zo);
    for (int64_t m = 0; m < M; m++) k_requant_s8(c0 + m * sc, (size_t)N, rq.zin, rq.scale, rq.inv, rq.zout);
    for (int t = 0; t < 2; t++) {
      rq.table = t ? table : NULL;
      g.c = c1, g.rq = &rq;
      k_qgemm_s8(&g);
      for (int64_t m = 0; m < M; m++) bad += memcmp(c0 + m * sc, c1 + m * sc, (size_t)N) != 0;
    }
    free(a), free(w), free(c0), free(c1), free(scale), free(bias), free(buf);
  }
  CHECK(bad == 0, "%d rows requantized in the product differ from k_requant_s8 (kernel %s)", bad,
        k_qgemm_kernel());
}

TEST(dwconv_s8_requant) {
  CHECK_OK(pte_threadpool_set_threads(1));
  static const int64_t Cs[] = {8, 16, 20, 32, 48, 51, 144};
  int bad = 0;
  for (int r = 0; r < 42; r++) {
    const int64_t C = Cs[r % 7], H = 5 + irand(6), W = 5 + irand(6);
    const int32_t k = r % 5 == 4 ? 5 : 3, s = r % 3 == 2 ? 2 : 1, pad = (int32_t)irand(3);
    const int64_t OH = (H + 2 * pad - k) / s + 1, OW = (W + 2 * pad - k) / s + 1, taps = k * k;
    int8_t *x = malloc((size_t)(H * W * C)), *w = malloc((size_t)(taps * C)), *zrow = malloc((size_t)C),
           *y0 = malloc((size_t)(OH * OW * C)), *y1 = malloc((size_t)(OH * OW * C));
    int32_t *bias = malloc(sizeof(int32_t) * (size_t)C);
    float *scale = malloc(sizeof(float) * (size_t)C);
    int16_t *wpack = malloc(sizeof(int16_t) * (k_dwconv_s8_packed(taps, C) + 1));
    const int32_t zx = (int32_t)irand(256) - 128, zy = (int32_t)irand(256) - 128;
    for (int64_t i = 0; i < H * W * C; i++) x[i] = (int8_t)(irand(256) - 128);
    for (int64_t i = 0; i < taps * C; i++) w[i] = (int8_t)(irand(255) - 127);
    memset(zrow, zx, (size_t)C);
    for (int64_t c = 0; c < C; c++)
      bias[c] = (int32_t)irand(20001) - 10000, scale[c] = 0.0005f + (float)irand(100) / 100000.0f;
    if (C >= 16) k_dwconv_s8_pack(w, taps, C, wpack);
    k_dwconv_s8_desc d = {.N = 1,
                          .H = H,
                          .W = W,
                          .C = C,
                          .OH = OH,
                          .OW = OW,
                          .mult = 1,
                          .kh = k,
                          .kw = k,
                          .sh = s,
                          .sw = s,
                          .dh = 1,
                          .dw = 1,
                          .pt = pad,
                          .pl = pad,
                          .x = x,
                          .w = w,
                          .zrow = zrow,
                          .wpack = C >= 16 ? wpack : NULL,
                          .y = y0,
                          .bias = bias,
                          .scale = scale,
                          .zy = zy,
                          .qmin = r % 2 ? zy : -128,
                          .qmax = 127};
    k_dwconv_s8(&d);
    /* against the plain sum (taps outside read zrow), in the kernels'
     * float steps: product, bounds, rounding half to even */
    int wrong = 0;
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++)
        for (int64_t c = 0; c < C; c++) {
          int32_t acc = bias[c];
          for (int32_t ky = 0; ky < k; ky++)
            for (int32_t kx = 0; kx < k; kx++) {
              const int64_t iy = oy * s + ky - pad, ix = ox * s + kx - pad;
              const int32_t xv = iy < 0 || iy >= H || ix < 0 || ix >= W ? zrow[c] : x[(iy * W + ix) * C + c];
              acc += xv * w[(ky * k + kx) * C + c];
            }
          float v = (float)acc * scale[c];
          const float lo = (float)((r % 2 ? zy : -128) - zy), hi = (float)(127 - zy);
          v = v < lo ? lo : v > hi ? hi : v;
          wrong += y0[(oy * OW + ox) * C + c] != (int8_t)((int32_t)nearbyintf(v) + zy);
        }
    if (wrong)
      fprintf(stderr, "dw C %lld k %d s %d pad %d: %d off the plain sum\n", (long long)C, k, s, pad, wrong);
    bad += wrong != 0;
    k_requant_s8_params rq;
    int8_t table[256];
    rq_params(&rq, table, r, zy);
    k_requant_s8(y0, (size_t)(OH * OW * C), rq.zin, rq.scale, rq.inv, rq.zout);
    for (int t = 0; t < 2; t++) {
      rq.table = t ? table : NULL;
      d.y = y1, d.rq = &rq;
      k_dwconv_s8(&d);
      if (memcmp(y0, y1, (size_t)(OH * OW * C)) != 0) {
        bad++;
        for (int64_t i = 0; i < OH * OW * C; i++)
          if (y0[i] != y1[i]) {
            fprintf(stderr, "dw C %lld t %d at %lld: %d vs %d\n", (long long)C, t, (long long)i, y0[i],
                    y1[i]);
            break;
          }
      }
    }
    free(x), free(w), free(zrow), free(y0), free(y1), free(bias), free(scale), free(wpack);
  }
  CHECK(bad == 0, "%d depthwise runs requantized in the kernel differ from k_requant_s8 (isa %s)", bad,
        k_isa_name(k_isa_get()));
}

/* Requantization in place against the two converts done one value at a
 * time in float; lengths around the vector widths (the tails). */
TEST(requant_s8) {
  static const struct {
    int32_t zin, zout;
    float scale, oscale;
  } ps[] = {{-4, -128, 0.03023f, 0.014867f},
            {3, 3, 0.034479f, 0.034479f},
            {127, -128, 1.0f, 0.5f},
            {-128, 127, 0.001f, 0.37f},
            {0, 0, 0.1f, 0.1f / 3.0f}};
  static const size_t ns[] = {1, 15, 31, 32, 33, 63, 64, 65, 300};
  int bad = 0;
  for (size_t p = 0; p < sizeof ps / sizeof ps[0]; p++)
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
      int8_t y[300], x[300];
      for (size_t i = 0; i < ns[k]; i++) x[i] = y[i] = (int8_t)(int)((i * 37 + p) % 256 - 128);
      const float inv = 1.0f / ps[p].oscale;
      k_requant_s8(y, ns[k], ps[p].zin, ps[p].scale, inv, ps[p].zout);
      for (size_t i = 0; i < ns[k]; i++) {
        float v = (float)(x[i] - ps[p].zin) * ps[p].scale * inv;
        const float lo = (float)(-128 - ps[p].zout), hi = (float)(127 - ps[p].zout);
        v = v < lo ? lo : v > hi ? hi : v;
        bad += y[i] != (int8_t)((int32_t)nearbyintf(v) + ps[p].zout);
      }
    }
  CHECK(bad == 0, "%d requantized values off (isa %s)", bad, k_isa_name(k_isa_get()));
}

/* fp32 <-> qint8 converts against the scalar formulas: ties to even,
 * saturation both ways, NaN to the zero point, every tail length. */
TEST(quantize_dequantize_s8) {
  static const int32_t zps[] = {-128, -3, 0, 5, 127};
  static const float invs[] = {1.0f, 2.0f, 1.0f / 0.037f, 0.5f};
  float x[70], back[70];
  int8_t q[70];
  int bad = 0;
  for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++)
    for (size_t s = 0; s < sizeof invs / sizeof invs[0]; s++)
      for (size_t n = 0; n <= 70; n += (n < 34 ? 1 : 9)) {
        for (size_t i = 0; i < n; i++) x[i] = ((float)((int)(i * 29 % 71) - 35) * 4.5f) / invs[s];
        if (n > 3) x[3] = NAN, x[n - 1] = 0.5f, x[n - 2] = -2.5f;
        k_quantize_s8(x, q, n, invs[s], zps[z]);
        const float lo = (float)(-128 - zps[z]), hi = (float)(127 - zps[z]);
        for (size_t i = 0; i < n; i++) {
          float v = x[i] * invs[s];
          v = v != v ? 0.0f : v < lo ? lo : v > hi ? hi : v;
          bad += q[i] != (int8_t)((int32_t)nearbyintf(v) + zps[z]);
        }
        k_dequantize_s8(q, back, n, zps[z], 0.037f);
        for (size_t i = 0; i < n; i++) bad += back[i] != (float)((int32_t)q[i] - zps[z]) * 0.037f;
      }
  CHECK(bad == 0, "%d converted values off (isa %s)", bad, k_isa_name(k_isa_get()));
}

/* Byte tables: every int8 value, every length around the 64-byte body,
 * offsets that misalign, in place too. */
TEST(lut_s8) {
  int8_t table[256], x[200], y[200], ref[200];
  for (int i = 0; i < 256; i++) table[i] = (int8_t)((i * 37 + 11) & 0xFF);
  int bad = 0;
  for (size_t off = 0; off < 3; off++)
    for (size_t n = 0; n + off <= 200; n += (n < 70 ? 1 : 13)) {
      for (size_t i = 0; i < 200; i++) x[i] = (int8_t)((i * 101 + off * 7) & 0xFF);
      for (size_t i = 0; i < n; i++) ref[i] = table[x[off + i] + 128];
      k_lut_s8(x + off, y, n, table);
      for (size_t i = 0; i < n; i++) bad += y[i] != ref[i];
      k_lut_s8(x + off, x + off, n, table);
      for (size_t i = 0; i < n; i++) bad += x[off + i] != ref[i];
    }
  CHECK(bad == 0, "%d looked-up bytes off (isa %s)", bad, k_isa_name(k_isa_get()));
}

/* The kernel the instruction-set choice asks for is the one that runs. */
TEST(qgemm_kernel_named) {
  const char *want = getenv("PTERUN_OPT_ISA"), *got = k_qgemm_kernel();
  printf("qgemm kernel: %s\n", got);
  if (!want) return;
  if (!strcmp(want, "generic")) CHECK(!strcmp(got, "generic"), "generic asked, %s runs", got);
  if (!strcmp(want, "avx2-novnni")) CHECK(!strcmp(got, "avx2"), "plain avx2 asked, %s runs", got);
  if (!strcmp(want, "neon-nodot")) CHECK(!strcmp(got, "neon"), "plain neon asked, %s runs", got);
#if defined(__x86_64__)
  __builtin_cpu_init();
  /* AMX where the CPU has it and Linux grants the tiles (k_qamx_usable) */
  unsigned a7, b7, c7, d7;
  const bool amx = __get_cpuid_count(7, 0, &a7, &b7, &c7, &d7) && (d7 >> 25 & 1) && (d7 >> 24 & 1) &&
                   syscall(SYS_arch_prctl, 0x1023, 18) == 0;
  if (!strcmp(want, "avx512") && __builtin_cpu_supports("avx512vnni"))
    CHECK(!strcmp(got, amx ? "amx" : "avx512vnni"), "avx512 on a VNNI CPU (AMX %d), %s runs", amx, got);
  if (!strcmp(want, "avx512-noamx") && __builtin_cpu_supports("avx512vnni"))
    CHECK(!strcmp(got, "avx512vnni"), "avx512 without AMX on a VNNI CPU, %s runs", got);
  unsigned a, b, c, d; /* AVX-VNNI: CPUID leaf 7 subleaf 1, EAX bit 4 */
  const bool avxvnni = __get_cpuid_count(7, 1, &a, &b, &c, &d) && (a >> 4 & 1);
  if (!strcmp(want, "avx2"))
    CHECK(!strcmp(got, avxvnni ? "avxvnni" : "avx2"), "avx2 asked (AVX-VNNI %d), %s runs", avxvnni, got);
#endif
}

/* The split over the pool: a decode step's product over a language model's
 * weights (one row of 576 x 1536, 4-bit in groups of 32: streaming-bound)
 * is split, as is a prefill's; a small layer's single row is not (waking
 * the pool costs more), and neither was the decode step before the bytes
 * counted (its multiply-adds alone are under the bar). */
TEST(qgemm_split_counts_streamed_weights) {
  const int64_t N = 1536, K = 576;
  uint8_t *wd = calloc((size_t)(N * K / 2), 1);
  uint16_t *sb = malloc(sizeof(uint16_t) * (size_t)(N * K / 32));
  for (int64_t i = 0; i < N * K / 32; i++) sb[i] = to_bf16(0.01f);
  k_qgemm_weights w = {
      .N = N, .K = K, .bits = K_QW_INT4, .data = wd, .zero_point = 8, .group = 32, .scale_bf16 = sb};
  const char *why = NULL;
  size_t bytes = k_qgemm_packed_size(&w, &why);
  void *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
  const k_qgemm_packed *p = k_qgemm_pack(&w, buf, bytes, &why);
  CHECK(p, "pack: %s", why ? why : "?");
  CHECK(0.5 * 2.0 * (double)N * (double)K < K_PAR_MIN_FLOPS,
        "the decode product's multiply-adds alone reach the bar");
  CHECK(k_qgemm_split_cost(p, 1) >= K_PAR_MIN_FLOPS, "a decode step's product is not split: %g",
        k_qgemm_split_cost(p, 1));
  CHECK(k_qgemm_split_cost(p, 128) >= 0.5 * 2.0 * 128 * (double)N * (double)K, "a prefill counts its work");
  free(buf), free(wd), free(sb);
  /* a small layer: 256 x 256 int8, one row */
  int8_t *w8 = calloc(256 * 256, 1);
  float *sc = malloc(sizeof(float) * 256);
  for (int i = 0; i < 256; i++) sc[i] = 0.01f;
  k_qgemm_weights s = {.N = 256, .K = 256, .bits = K_QW_INT8, .data = w8, .scale = sc};
  bytes = k_qgemm_packed_size(&s, &why);
  buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
  p = k_qgemm_pack(&s, buf, bytes, &why);
  CHECK(p && k_qgemm_split_cost(p, 1) < K_PAR_MIN_FLOPS, "a small layer's single row is split");
  free(buf), free(w8), free(sc);
  /* the float product the same way: one row of 576 x 576 fp32 is split,
   * one of 64 x 64 is not */
  CHECK(k_sgemm_split_cost(1, 576, 576) >= K_PAR_MIN_FLOPS && 576.0 * 576.0 < K_PAR_MIN_FLOPS,
        "a decode step's fp32 product is not split");
  CHECK(k_sgemm_split_cost(1, 64, 64) < K_PAR_MIN_FLOPS, "a small fp32 row is split");
}

TEST_MAIN(T(qgemm_kernel_named), T(qd8_hand_computed), T(qd8_properties), T(qgemm_serial),
          T(qgemm_three_threads), T(qgemm_large), T(qgemm_refusals), T(qgemm_s8),
          T(qgemm_s8_threads_identical), T(qgemm_s8_equals_float_tile), T(qgemm_s8_requant),
          T(dwconv_s8_requant), T(requant_s8), T(quantize_dequantize_s8), T(lut_s8),
          T(qgemm_split_counts_streamed_weights))
