/* pterun's own fp32 kernels for the XNNPACK node types that Debian's 2022
 * XNNPACK lacks (transpose, slice, concatenate, batch matmul, gelu, tanh,
 * exp, log, rsqrt, sin, cos, copy, argmax pooling), for the nodes whose
 * parameters it refuses (1x1 pooling, non-constant weights, ...), and for
 * the types whose rows prefer them (fp32 fully connected). Semantics
 * follow the modern XNNPACK subgraph nodes as ExecuTorch defines them; shapes
 * were validated by xg_check, so no bounds are re-checked here.
 *
 * Nothing here allocates: every kernel works on the buffers it is given and
 * splits its work over the process thread pool. */
#include <math.h>
#include <pterun/threadpool.h>
#include <string.h>

#include "klayer.h"
#include "xnn_compute.h"

/* XNNPACK's quantization of an output bound (saturated; an infinite value
 * gives `inf`: no bound). */
int32_t xg_quant_bound(float v, const xg_value *o, int32_t inf) {
  if (isinf(v)) return inf;
  float q = rintf(v / o->scale) + (float)o->zero_point;
  return q < -128.0f ? -128 : q > 127.0f ? 127 : (int32_t)q;
}

static inline float clampf(float v, float lo, float hi) {
  v = v < lo ? lo : v;
  return v > hi ? hi : v;
}

/* ---- elementwise unary ---- */

typedef struct unary_job {
  const float *x;
  float *y;
  float a, lo, hi; /* alpha (leaky relu, elu), bounds (clamp) */
} unary_job;

/* One range function and entry point per operation: y[i] = EXPR of x[i]
 * (and j->a, j->lo, j->hi). */
#define XG_UNARY(name, EXPR)                                                                        \
  static void name##_range(void *ctx, size_t b, size_t e) {                                         \
    const unary_job *j = (const unary_job *)ctx;                                                    \
    const float *in = j->x;                                                                         \
    float *y = j->y;                                                                                \
    for (size_t i = b; i < e; i++) {                                                                \
      const float x = in[i];                                                                        \
      y[i] = (EXPR);                                                                                \
    }                                                                                               \
  }                                                                                                 \
  void xg_native_##name(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {  \
    (void)index_int64;                                                                              \
    unary_job j = {(const float *)ptr[0], (float *)ptr[1], n->p.act.alpha, n->out_min, n->out_max}; \
    const size_t count = g->values[n->in[0]].numel;                                                 \
    k_parallel_for(count, 8.0 * (double)count, name##_range, &j);                                   \
  }

XG_UNARY(clamp, clampf(x, j->lo, j->hi))
XG_UNARY(floor, floorf(x))
XG_UNARY(ceiling, ceilf(x))
XG_UNARY(square_root, sqrtf(x))
XG_UNARY(square, x *x)
XG_UNARY(hardswish, x *clampf(x + 3.0f, 0.0f, 6.0f) * (1.0f / 6.0f))
XG_UNARY(negate, -x)
XG_UNARY(abs, fabsf(x))
XG_UNARY(leaky_relu, x > 0.0f ? x : x * j->a)
XG_UNARY(elu, x > 0.0f ? x : j->a * expm1f(x))
XG_UNARY(rsqrt, 1.0f / sqrtf(x))
XG_UNARY(log, logf(x))

/* Transcendentals on the kernel layer's vectorized functions (a few ulp
 * from libm, see klayer.h): libm's scalar erff and tanhf were most of a
 * transformer's native time. One range function and entry point each. */
#define XG_VMATH(name, fn)                                                                         \
  static void name##_range(void *ctx, size_t b, size_t e) {                                        \
    const unary_job *j = (const unary_job *)ctx;                                                   \
    fn(j->x + b, j->y + b, (int64_t)(e - b));                                                      \
  }                                                                                                \
  void xg_native_##name(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) { \
    (void)index_int64;                                                                             \
    unary_job j = {(const float *)ptr[0], (float *)ptr[1], 0.0f, 0.0f, 0.0f};                      \
    const size_t count = g->values[n->in[0]].numel;                                                \
    k_parallel_for(count, 4.0 * (double)count, name##_range, &j);                                  \
  }

XG_VMATH(sigmoid, k_vsigmoid)
/* The exact (erf) form, which is what XNNPACK's gelu computes; before a
 * quantizing convert (n->approx) the kernel layer's cheaper form, within
 * 2e-7 * (1 + |x|) of it (a millionth of an int8 step). */
XG_VMATH(gelu_exact, k_vgelu)
XG_VMATH(gelu_q, k_vgelu_q)
void xg_native_gelu(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  if (n->approx) xg_native_gelu_q(g, n, ptr, index_int64);
  else xg_native_gelu_exact(g, n, ptr, index_int64);
}
XG_VMATH(tanh, k_vtanh)
XG_VMATH(exp, k_vexp)
XG_UNARY(sin, sinf(x))
XG_UNARY(cos, cosf(x))

/* Reshape, copy, convert (fp32 to fp32), and a transpose that moves no byte. */
void xg_native_copy(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  if (ptr[1] != ptr[0]) memcpy(ptr[1], ptr[0], g->values[n->in[0]].nbytes);
}

/* ---- qdint8 rows, quantized once by their convert ---- */

/* [params of M rows][M rows of K int8] fits the fp32-sized buffer when K >= 3. */
size_t xg_qd8_row_len(const xg_value *v) {
  const uint32_t nb = v->nonbatch_dims == 0 ? 1 : v->nonbatch_dims > v->ndims ? v->ndims : v->nonbatch_dims;
  size_t k = 1;
  for (uint32_t i = v->ndims - nb; i < v->ndims; i++) k *= v->dims[i];
  return k;
}

bool xg_qd8_rows_fit(const xg_value *v) {
  if (v->ndims == 0 || xg_qd8_row_len(v) == 0) return false;
  const size_t k = xg_qd8_row_len(v), m = v->numel / k;
  return m * (sizeof(k_qd8_params) + k) <= v->nbytes;
}

typedef struct qd8_job {
  const float *x;
  int8_t *q;
  k_qd8_params *params;
  int64_t k;
  bool gelu; /* n->pre_gelu */
} qd8_job;

static void qd8_rows_range(void *ctx, size_t b, size_t e) {
  const qd8_job *j = (const qd8_job *)ctx;
  if (j->gelu) {
    float row[XG_GELU_ROW_MAX];
    for (int64_t r = (int64_t)b; r < (int64_t)e; r++) {
      k_vgelu_q(j->x + r * j->k, row, j->k);
      k_qd8_quantize_rows(1, j->k, row, j->k, j->q + r * j->k, j->k, j->params + r);
    }
    return;
  }
  const int64_t r = (int64_t)b;
  k_qd8_quantize_rows((int64_t)(e - b), j->k, j->x + r * j->k, j->k, j->q + r * j->k, j->k, j->params + r);
}

/* The rows of value v at p (xg_qd8_rows_fit): its params, then its int8 rows. */
static qd8_job qd8_layout(const xg_value *v, void *p) {
  const int64_t k = (int64_t)xg_qd8_row_len(v), m = (int64_t)v->numel / k;
  qd8_job j = {NULL, (int8_t *)p + m * (int64_t)sizeof(k_qd8_params), (k_qd8_params *)p, k, false};
  return j;
}

static void qd8_convert(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_value *o = &g->values[n->out[0]];
  qd8_job j = qd8_layout(o, ptr[1]);
  j.x = (const float *)ptr[0];
  j.gelu = n->pre_gelu;
  const size_t m = o->numel / (size_t)j.k;
  k_parallel_for(m, (n->pre_gelu ? 8.0 : 4.0) * (double)o->numel, qd8_rows_range, &j);
}

/* fp32 <-> qint8 as XNNPACK's convert does it (the kernel layer's
 * k_quantize_s8 / k_dequantize_s8), split over the pool in runs. */
typedef struct qconv_job {
  const void *x;
  void *y;
  float s; /* 1 / scale quantizing, scale dequantizing */
  int32_t zp;
  bool quantize;
  size_t total;
} qconv_job;

#define XG_QCONV_RUN 4096 /* elements per pool item */

static void qconv_range(void *ctx, size_t b, size_t e) {
  const qconv_job *j = (const qconv_job *)ctx;
  const size_t i0 = b * XG_QCONV_RUN, i1 = e * XG_QCONV_RUN < j->total ? e * XG_QCONV_RUN : j->total;
  if (j->quantize) k_quantize_s8((const float *)j->x + i0, (int8_t *)j->y + i0, i1 - i0, j->s, j->zp);
  else k_dequantize_s8((const int8_t *)j->x + i0, (float *)j->y + i0, i1 - i0, j->zp, j->s);
}

/* A fused qint8 -> qint8 chain (xg_fuse_quant_tables): a byte table. */
typedef struct qlut_job {
  const int8_t *x;
  int8_t *y;
  const int8_t *lut;
} qlut_job;

static void qlut_range(void *ctx, size_t b, size_t e) {
  const qlut_job *j = (const qlut_job *)ctx;
  k_lut_s8(j->x + b, j->y + b, e - b, j->lut);
}

void xg_native_convert(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  if (n->qscratch) {
    qlut_job j = {(const int8_t *)ptr[0], (int8_t *)ptr[1], (const int8_t *)n->qscratch};
    k_parallel_for(x->numel, 0.5 * (double)x->numel, qlut_range, &j);
  } else if (o->qd8_rows) {
    qd8_convert(g, n, ptr);
  } else if (!n->quant) {
    xg_native_copy(g, n, ptr, index_int64);
  } else {
    const bool q = o->value_type == XG_VALUE_QUANTIZED;
    qconv_job j = {ptr[0], ptr[1],  q ? 1.0f / o->scale : x->scale, q ? o->zero_point : x->zero_point,
                   q,      x->numel};
    const size_t runs = (x->numel + XG_QCONV_RUN - 1) / XG_QCONV_RUN;
    k_parallel_for(runs, (double)x->numel, qconv_range, &j);
  }
}

static void bcast_strides(const xg_value *v, const size_t *out6, size_t *s6);

/* ---- softmax over the last dimension ---- */

typedef struct softmax_job {
  const float *x;
  float *y;
  size_t c;
  /* a fused prologue (xg_fuse_softmax_prologue): x * scale + mask, the
   * mask broadcast by its strides over the 5 row dims (right-aligned) */
  const float *mask;
  float scale;
  bool scaled; /* (x, scale): x * scale, no mask */
  size_t out[5], sm[5];
} softmax_job;

static void softmax_rows(void *ctx, size_t b, size_t e) {
  const softmax_job *j = (const softmax_job *)ctx;
  size_t idx[5], rem = b, om = 0;
  for (int d = 4; d >= 0; d--) {
    idx[d] = rem % j->out[d];
    rem /= j->out[d];
    om += idx[d] * j->sm[d];
  }
  for (size_t r = b; r < e; r++) {
    const float *x = j->x + r * j->c;
    float *y = j->y + r * j->c;
    if (j->mask) {
      /* rounded as the multiply and the add nodes round, one after the other */
      const float *mk = j->mask + om, s = j->scale;
      for (size_t i = 0; i < j->c; i++) y[i] = x[i] * s + mk[i];
      x = y;
      for (int d = 4; d >= 0; d--) {
        om += j->sm[d];
        if (++idx[d] < j->out[d]) break;
        om -= idx[d] * j->sm[d];
        idx[d] = 0;
      }
    }
    if (j->scaled && j->scale > 0.0f && j->scale < INFINITY) {
      /* x * scale, rounded as the multiply node rounds, in the
       * exponentials' pass; the scaled row's max is the row's max scaled
       * (rounding is monotonic) */
      const float m = k_vmax(x, (int64_t)j->c) * j->scale;
      k_vmulc(y, (int64_t)j->c, 1.0f / k_vexp_sum_scaled(x, y, (int64_t)j->c, j->scale, m));
      continue;
    }
    if (j->scaled) {
      for (size_t i = 0; i < j->c; i++) y[i] = x[i] * j->scale;
      x = y;
    }
    const float m = k_vmax(x, (int64_t)j->c);
    k_vmulc(y, (int64_t)j->c, 1.0f / k_vexp_sum(x, y, (int64_t)j->c, m));
  }
}

/* ---- broadcasting binary ops ---- */

typedef struct binary_job {
  const float *a, *b;
  float *y;
  float lo, hi;
  bool clamp;
  size_t out[XG_MAX_DIMS], sa[XG_MAX_DIMS], sb[XG_MAX_DIMS]; /* 6-D, right-aligned */
} binary_job;

/* One row: y[i] = EXPR of a and b (each a unit-stride element or a scalar). */
#define XG_BINARY_LOOP(A, B, EXPR)   \
  {                                  \
    for (size_t i = 0; i < n; i++) { \
      const float a = (A), b = (B);  \
      py[i] = (EXPR);                \
    }                                \
  }

/* Rows are the product of the first 5 output dims; each row is the last dim.
 * One rows function per operation: y = EXPR of a and b. */
#define XG_BINARY_ROWS(name, EXPR)                                                     \
  static void name##_rows(void *ctx, size_t rb, size_t re) {                           \
    const binary_job *j = (const binary_job *)ctx;                                     \
    const size_t n = j->out[5], ia = j->sa[5], ib = j->sb[5];                          \
    /* the first row's index by division, the next ones by counting */                 \
    size_t idx[5], rem = rb, oa = 0, ob = 0;                                           \
    for (int d = 4; d >= 0; d--) {                                                     \
      idx[d] = rem % j->out[d];                                                        \
      rem /= j->out[d];                                                                \
      oa += idx[d] * j->sa[d];                                                         \
      ob += idx[d] * j->sb[d];                                                         \
    }                                                                                  \
    for (size_t r = rb; r < re; r++) {                                                 \
      const float *pa = j->a + oa, *pb = j->b + ob;                                    \
      float *py = j->y + r * n;                                                        \
      /* unit strides and scalars apart, so each loop vectorizes */                    \
      const float sa0 = pa[0], sb0 = pb[0]; /* scalars read once: py may alias them */ \
      if (ia && ib) XG_BINARY_LOOP(pa[i], pb[i], EXPR)                                 \
      else if (ia) XG_BINARY_LOOP(pa[i], sb0, EXPR)                                    \
      else if (ib) XG_BINARY_LOOP(sa0, pb[i], EXPR)                                    \
      else XG_BINARY_LOOP(sa0, sb0, EXPR)                                              \
      if (j->clamp)                                                                    \
        for (size_t i = 0; i < n; i++) py[i] = clampf(py[i], j->lo, j->hi);            \
      for (int d = 4; d >= 0; d--) {                                                   \
        oa += j->sa[d], ob += j->sb[d];                                                \
        if (++idx[d] < j->out[d]) break;                                               \
        oa -= idx[d] * j->sa[d], ob -= idx[d] * j->sb[d];                              \
        idx[d] = 0;                                                                    \
      }                                                                                \
    }                                                                                  \
  }

/* Strides (in elements) of `v` broadcast to a 6-D right-aligned output. */
static void bcast_strides(const xg_value *v, const size_t *out6, size_t *s6) {
  size_t stride = 1;
  for (int d = XG_MAX_DIMS - 1; d >= 0; d--) {
    int vd = (int)v->ndims - (XG_MAX_DIMS - d);
    size_t size = vd >= 0 ? v->dims[vd] : 1;
    s6[d] = (size == 1 && out6[d] != 1) ? 0 : stride;
    stride *= size;
  }
}

/* `bounded`: the node's output bounds apply (not to minimum, maximum, prelu). */
static void run_binary(const xg_graph *g, const xg_node *n, void *const *ptr, bool bounded,
                       pte_parallel_fn rows_fn) {
  const xg_value *o = &g->values[n->out[0]];
  binary_job j;
  memset(&j, 0, sizeof j);
  j.a = (const float *)ptr[0];
  j.b = (const float *)ptr[1];
  j.y = (float *)ptr[2];
  j.lo = n->out_min;
  j.hi = n->out_max;
  j.clamp = bounded && k_clamps(j.lo, j.hi);
  for (int d = 0; d < XG_MAX_DIMS; d++) {
    int od = (int)o->ndims - (XG_MAX_DIMS - d);
    j.out[d] = od >= 0 ? o->dims[od] : 1;
  }
  bcast_strides(&g->values[n->in[0]], j.out, j.sa);
  bcast_strides(&g->values[n->in[1]], j.out, j.sb);
  size_t rows = o->numel / j.out[5];
  k_parallel_for(rows, (double)rows * (double)j.out[5], rows_fn, &j);
}

#define XG_BINARY(name, bounded, EXPR)                                                             \
  XG_BINARY_ROWS(name, EXPR)                                                                       \
  void xg_native_##name(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) { \
    (void)index_int64;                                                                             \
    run_binary(g, n, ptr, bounded, name##_rows);                                                   \
  }

XG_BINARY(add, true, a + b)
XG_BINARY(subtract, true, a - b)
XG_BINARY(multiply, true, a *b)
XG_BINARY(divide, true, a / b)
XG_BINARY(minimum, false, a < b ? a : b)
XG_BINARY(maximum, false, a > b ? a : b)
XG_BINARY(prelu, false, a > 0.0f ? a : a * b)

/* ---- matrix products: fully connected and batch matmul ---- */

/* Every product runs on the kernel layer's GEMM: the batch dims become its
 * batched strides (in elements; 0 where an operand broadcasts). */
void xg_batch_matmul(const xg_matmul *mm) {
  k_sgemm_desc g;
  memset(&g, 0, sizeof g);
  g.M = (int64_t)mm->m, g.N = (int64_t)mm->n, g.K = (int64_t)mm->k;
  g.a = mm->a, g.sa0 = g.K, g.sa1 = 1;
  g.b = mm->b;
  g.sb0 = mm->b_nk ? 1 : g.N, g.sb1 = mm->b_nk ? g.K : 1;
  g.c = mm->y, g.sc0 = g.N, g.sc1 = 1;
  g.alpha = 1.0f, g.beta = mm->bias ? 1.0f : 0.0f, g.col_bias = mm->bias;
  g.clamp = mm->clamp, g.lo = mm->lo, g.hi = mm->hi;
  g.parallel = true;
  g.scratch = mm->scratch, g.scratch_bytes = mm->scratch_bytes;
  int64_t sizes[4], sa[4], sb[4], sc[4], out_stride = g.M * g.N;
  for (int d = 3; d >= 0; d--) {
    sizes[d] = (int64_t)mm->batch[d];
    sa[d] = (int64_t)mm->sa[d] * g.M * g.K;
    sb[d] = (int64_t)mm->sb[d] * g.K * g.N;
    sc[d] = out_stride;
    out_stride *= sizes[d];
  }
  k_sgemm_batched(&g, 4, sizes, sa, sb, sc);
}

/* ---- static int8 convolution and fully connected (n->sq) ---- */

/* What init prepared: per group, the filter packed with the requantization
 * scales (input scale x filter scale / output scale) and the int32 bias in
 * output steps; n->qscratch holds `chunk` int8 im2col rows per pool thread. */
typedef struct xg_qconv {
  uint32_t groups;
  int64_t kin, kout; /* one group's K (kernel_h x kernel_w x group inputs) and N */
  bool direct;       /* 1x1, stride 1, no padding: the input rows are the product's rows */
  int64_t chunk;     /* else im2col rows per pass: a few hundred KB, which stay in cache */
  size_t col_slot;   /* bytes of n->qscratch per thread (slices for whole passes per thread) */
  int32_t za, zo, qmin, qmax;
  bool has_rq; /* a requantizing pad fused in (xg_native_fuse_requant) */
  k_requant_s8_params rq;
  const k_qgemm_packed *w[];
} xg_qconv;

/* A depthwise one: the requantization scales, the int32 bias with the
 * input zero point folded in (so padding taps, which read the zero-point
 * row, add nothing) and that row; the filter is used in place. */
typedef struct xg_qdw {
  int32_t *bias;
  float *scale;
  int8_t *zrow;
  int16_t *wpack; /* multiplier 1: the filter for the vector bodies */
  int32_t mult, zy, qmin, qmax;
  bool has_rq; /* a requantizing pad fused in (xg_native_fuse_requant) */
  k_requant_s8_params rq;
} xg_qdw;

static pte_status prepare_depthwise(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  const xg_conv_params *c = &n->p.conv;
  const int64_t C = (int64_t)x->dims[3], OC = (int64_t)o->dims[3], taps = (int64_t)c->kernel_h * c->kernel_w;
  xg_qdw *q = xg_mem_alloc(mem, sizeof *q);
  int32_t *bias = xg_mem_array(mem, (size_t)OC, sizeof(int32_t));
  float *scale = xg_mem_array(mem, (size_t)OC, sizeof(float));
  int8_t *zrow = xg_mem_alloc(mem, (size_t)C);
  if (!q || !bias || !scale || !zrow) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
  *q = (xg_qdw){.bias = bias,
                .scale = scale,
                .zrow = zrow,
                .mult = (int32_t)(c->group_out / c->group_in),
                .zy = o->zero_point,
                .qmin = xg_quant_bound(n->out_min, o, -128),
                .qmax = xg_quant_bound(n->out_max, o, 127)};
  if (q->qmin > q->qmax)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "the output bounds are empty in int8");
  memset(zrow, (int8_t)x->zero_point, (size_t)C);
  const int8_t *f = w->data;
  const int32_t wz = w->datatype == XG_DT_QINT8 ? w->zero_point : 0;
  for (int64_t i = 0; i < OC; i++) {
    const float sw = w->datatype == XG_DT_QCINT8 ? w->scales[i] : w->scale;
    scale[i] = x->scale * sw / o->scale; /* in float, as XNNPACK's requantization scale */
    int32_t bi = 0;                      /* a payload's constant data need not be aligned */
    if (b) memcpy(&bi, (const uint8_t *)b->data + (size_t)i * sizeof bi, sizeof bi);
    int64_t sum = 0;
    for (int64_t t = 0; t < taps; t++) sum += f[t * OC + i] - wz;
    /* wraps as the int32 sums do (a hostile bias) */
    bias[i] = (int32_t)(uint32_t)((uint64_t)(int64_t)bi - (uint64_t)(sum * x->zero_point));
  }
  if (wz) {
    /* a per-tensor filter with a zero point: the kernel takes plain int8 taps */
    int8_t *t = xg_mem_alloc(mem, (size_t)(taps * OC));
    if (!t) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
    for (int64_t i = 0; i < taps * OC; i++) {
      int32_t v = f[i] - wz;
      if (v < -128 || v > 127)
        return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "int8 filter minus its zero point %d leaves int8",
                             wz);
      t[i] = (int8_t)v;
    }
    n->qscratch = t;
  }
  if (q->mult == 1 && C >= 16) {
    q->wpack = xg_mem_array(mem, k_dwconv_s8_packed(taps, C), sizeof(int16_t));
    if (!q->wpack) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
    k_dwconv_s8_pack(wz ? n->qscratch : w->data, taps, C, q->wpack);
  }
  n->qw = q;
  return PTE_OK;
}

static void run_depthwise(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_qdw *q = n->qw;
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_conv_params *c = &n->p.conv;
  k_dwconv_s8_desc d = {.N = (int64_t)x->dims[0],
                        .H = (int64_t)x->dims[1],
                        .W = (int64_t)x->dims[2],
                        .C = (int64_t)x->dims[3],
                        .OH = (int64_t)o->dims[1],
                        .OW = (int64_t)o->dims[2],
                        .mult = q->mult,
                        .kh = (int32_t)c->kernel_h,
                        .kw = (int32_t)c->kernel_w,
                        .sh = (int32_t)c->sub_h,
                        .sw = (int32_t)c->sub_w,
                        .dh = (int32_t)c->dil_h,
                        .dw = (int32_t)c->dil_w,
                        .pt = (int32_t)c->pad_top,
                        .pl = (int32_t)c->pad_left,
                        .x = ptr[0],
                        .w = n->qscratch ? n->qscratch : w->data,
                        .zrow = q->zrow,
                        .wpack = q->wpack,
                        .y = ptr[n->nin],
                        .bias = q->bias,
                        .scale = q->scale,
                        .zy = q->zy,
                        .qmin = q->qmin,
                        .qmax = q->qmax,
                        .rq = q->has_rq ? &q->rq : NULL,
                        .parallel = true};
  k_dwconv_s8(&d);
}

static pte_status prepare_static(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  if (n->type == XG_DEPTHWISE_CONV2D) return prepare_depthwise(g, ni, mem);
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  const bool conv = n->type == XG_CONV2D;
  const xg_conv_params *c = &n->p.conv;
  const uint32_t groups = conv ? c->groups : 1;
  const int64_t kin =
      conv ? (int64_t)c->kernel_h * c->kernel_w * c->group_in : (int64_t)x->dims[x->ndims - 1];
  const int64_t kout = conv ? (int64_t)c->group_out : (int64_t)o->dims[o->ndims - 1];
  const int64_t N = kout * groups;
  const bool direct = !conv || (c->kernel_h == 1 && c->kernel_w == 1 && c->sub_h == 1 && c->sub_w == 1 &&
                                !c->pad_top && !c->pad_left && !c->pad_bottom && !c->pad_right);
  /* an im2col K padded to a multiple of 4 (the 3-channel stem's 27 to 28):
   * the product's tiles take whole 4-byte steps of every row (AMX's only
   * so); the pad column of A is the input zero point, of the filter zero */
  const bool wzero = w->datatype != XG_DT_QINT8 || w->zero_point == 0; /* a zero byte weighs nothing */
  const int64_t kpad = !direct && groups == 1 && wzero && kin % 4 ? (kin + 3) / 4 * 4 : kin;
  int8_t *wpad = NULL;
  if (kpad != kin) {
    wpad = xg_mem_alloc(mem, (size_t)(kout * kpad));
    if (!wpad) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
    memset(wpad, 0, (size_t)(kout * kpad));
    for (int64_t i = 0; i < kout; i++)
      memcpy(wpad + i * kpad, (const int8_t *)w->data + (size_t)(i * kin), (size_t)kin);
  }
  xg_qconv *q = xg_mem_alloc(mem, sizeof *q + groups * sizeof q->w[0]);
  float *scale = xg_mem_array(mem, (size_t)N, sizeof(float)),
        *bias = xg_mem_array(mem, (size_t)N, sizeof(float));
  if (!q || !scale || !bias) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
  *q = (xg_qconv){.groups = groups, .kin = kpad, .kout = kout, .za = x->zero_point, .zo = o->zero_point};
  q->qmin = xg_quant_bound(n->out_min, o, -128);
  q->qmax = xg_quant_bound(n->out_max, o, 127);
  if (q->qmin > q->qmax)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "the output bounds are empty in int8");
  q->direct = direct;
  for (int64_t i = 0; i < N; i++) {
    const float sw = w->datatype == XG_DT_QCINT8 ? w->scales[i] : w->scale;
    scale[i] = x->scale * sw / o->scale; /* in float, as XNNPACK's requantization scale */
    int32_t bi = 0;                      /* a payload's constant data need not be aligned */
    if (b) memcpy(&bi, (const uint8_t *)b->data + (size_t)i * sizeof bi, sizeof bi);
    bias[i] = (float)bi * scale[i];
  }
  for (uint32_t gi = 0; gi < groups; gi++) {
    k_qgemm_weights qw;
    memset(&qw, 0, sizeof qw);
    qw.N = kout, qw.K = kpad, qw.bits = K_QW_INT8;
    /* conv filters are [N][kh][kw][group inputs]: a group's rows are contiguous */
    qw.data = wpad ? wpad : (const int8_t *)w->data + (size_t)gi * (size_t)(kout * kin);
    qw.transposed = !conv && (n->flags & 1); /* a per-tensor fc filter stored [K, N] */
    qw.zero_point = w->datatype == XG_DT_QINT8 ? w->zero_point : 0;
    qw.scale = scale + gi * kout;
    qw.bias = bias + gi * kout;
    const char *err = NULL;
    size_t bytes = k_qgemm_packed_size(&qw, &err);
    void *buf = bytes ? xg_mem_alloc(mem, bytes) : NULL;
    q->w[gi] = buf ? k_qgemm_pack(&qw, buf, bytes, &err) : NULL;
    if (!q->w[gi])
      return xg_node_error(g, ni, bytes && !buf ? PTE_ERR_OUT_OF_MEMORY : PTE_ERR_INVALID_PROGRAM,
                           "int8 filter: %s", err ? err : "out of memory");
  }
  if (!q->direct) {
    const int64_t rows = (int64_t)(o->dims[1] * o->dims[2]), fit = (192 * 1024 / kpad + 11) / 12 * 12;
    /* every pass streams the whole filter: a map at most twice `fit` whose
     * filter outweighs its rows (ResNet-18's 7x7 layers: 49 rows, fit 48,
     * 2.3 MB of filter) runs in one pass instead of a second of one row */
    q->chunk = rows <= fit || (rows <= 2 * fit && kout >= rows) ? rows : fit;
    /* a slice of rows per thread, for whole passes per thread (xg_conv_passes) */
    q->col_slot = k_align64((size_t)(q->chunk * kpad));
    n->qscratch_bytes = q->col_slot * (groups == 1 ? k_slots() : 1);
    pte_status st = xg_ws_reserve(g, mem, &n->qscratch, n->qscratch_bytes);
    if (st) return xg_node_error(g, ni, st, "im2col rows: %s", pte_last_error());
  }
  n->qw = q;
  return PTE_OK;
}

/* Short copies inline (a call per tap cost more than the bytes). */
static inline void copy_bytes(uint8_t *d, const uint8_t *s, size_t n) {
  if (n >= 256) {
    memcpy(d, s, n);
    return;
  }
  if (n < 16) {
    /* two overlapping words (a 3-channel stem's 9-byte runs: 2 moves, not 9) */
    if (n >= 8) memcpy(d, s, 8), memcpy(d + n - 8, s + n - 8, 8);
    else if (n >= 4) memcpy(d, s, 4), memcpy(d + n - 4, s + n - 4, 4);
    else
      for (size_t i = 0; i < n; i++) d[i] = s[i];
    return;
  }
  size_t i = 0;
  for (; i + 16 <= n; i += 16) memcpy(d + i, s + i, 16);
  if (i < n) memcpy(d + n - 16, s + n - 16, 16);
}

void xg_im2col_range(void *ctx, size_t b, size_t e) {
  const xg_im2col *j = ctx;
  const xg_conv_params *c = j->c;
  const size_t es = j->es, gin = (size_t)j->gin * es;
  /* a window row inside the image is one run of kernel_w x C elements when
   * the taps are adjacent and the group is every channel */
  const bool runs = c->dil_w == 1 && j->gin == j->C;
  const size_t row = (size_t)c->kernel_w * gin;
  for (size_t r = j->r0 + b; r < j->r0 + e; r++) {
    const int64_t oy = (int64_t)r / j->OW, ox = (int64_t)r % j->OW;
    uint8_t *d = j->col + (r - j->r0) * j->ld;
    if (j->ld > c->kernel_h * row) memset(d + c->kernel_h * row, j->pad, j->ld - c->kernel_h * row);
    const int64_t ix0 = ox * c->sub_w - c->pad_left;
    for (uint32_t ky = 0; ky < c->kernel_h; ky++, d += row) {
      const int64_t iy = oy * c->sub_h + (int64_t)ky * c->dil_h - c->pad_top;
      if (iy < 0 || iy >= j->H) {
        memset(d, j->pad, row);
        continue;
      }
      const uint8_t *src = j->x + (size_t)(iy * j->W * j->C + j->c0) * es;
      if (runs && ix0 >= 0 && ix0 + c->kernel_w <= j->W) {
        copy_bytes(d, src + (size_t)(ix0 * j->C) * es, row);
        continue;
      }
      for (uint32_t kx = 0; kx < c->kernel_w; kx++) {
        const int64_t ix = ix0 + (int64_t)kx * c->dil_w;
        if (ix < 0 || ix >= j->W) memset(d + kx * gin, j->pad, gin);
        else copy_bytes(d + kx * gin, src + (size_t)(ix * j->C) * es, gin);
      }
    }
  }
}

/* Whole passes per thread (xg_conv_passes with slots): each thread builds
 * its own im2col rows and multiplies them serially, one pool job for the
 * convolution. A pass's rows built on the pool and then its product split
 * there (a job each, the fp32 product a job per K block of 256) made
 * ResNet-18's 56x56 convolutions 56 jobs each, and on a loaded machine no
 * faster at 2 threads than at 1: a job a late worker missed ran on the
 * caller alone. The passes are equal (whole 8-row tiles) and taken by
 * whichever thread is free, so a worker that starts late (its core held by
 * another process) costs a pass, not its share. Only with PASS_MIN_ROWS
 * output pixels a thread; smaller maps (7x7) split the product's columns. */
#define PASS_MIN_ROWS 48

typedef struct conv_par {
  xg_im2col j;
  size_t col_slot;
  int64_t kin, pixels, ppi, rows; /* ppi passes per image, of `rows` rows (a multiple of 8) */
  xg_conv_product product;
  void *ctx;
} conv_par;

/* Pass t (of ppi x images), on the running thread's slot. */
static void conv_thread_passes(void *ctx, size_t t0, size_t t1) {
  const conv_par *p = ctx;
  const size_t slot = pte_threadpool_thread_index();
  xg_im2col j = p->j;
  j.col += slot * p->col_slot;
  for (size_t t = t0; t < t1; t++) {
    const int64_t img = (int64_t)t / p->ppi, r0 = (int64_t)t % p->ppi * p->rows;
    const int64_t rows = p->pixels - r0 < p->rows ? p->pixels - r0 : p->rows;
    if (rows <= 0) continue;
    j.x = p->j.x + (size_t)img * (size_t)(j.H * j.W * j.C) * j.es;
    j.r0 = (size_t)r0;
    xg_im2col_range(&j, 0, (size_t)rows);
    p->product(p->ctx, j.col, p->kin, rows, img * p->pixels + r0, 0, (int)slot);
  }
}

void xg_conv_passes(const xg_graph *g, const xg_node *n, const void *in, size_t es, uint8_t pad, bool direct,
                    void *col, int64_t chunk, uint32_t groups, int64_t kin, size_t slots, size_t col_slot,
                    xg_conv_product product, void *ctx) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  const int64_t C = (int64_t)x->dims[x->ndims - 1], gin = n->p.conv.group_in;
  if (direct) {
    for (uint32_t gi = 0; gi < groups; gi++)
      product(ctx, (const uint8_t *)in + (size_t)(gi * gin) * es, C, (int64_t)(x->numel / (size_t)C), 0, gi,
              -1);
    return;
  }
  const int64_t images = (int64_t)x->dims[0], pix = (int64_t)(o->dims[1] * o->dims[2]);
  if (slots > 1 && groups == 1 &&
      (double)(pix * images) * (double)kin * (double)o->dims[o->ndims - 1] >= K_PAR_MIN_FLOPS) {
    size_t t = k_slots();
    if (t > slots) t = slots;
    conv_par p = {.j = {.x = in,
                        .col = col,
                        .c = &n->p.conv,
                        .H = (int64_t)x->dims[1],
                        .W = (int64_t)x->dims[2],
                        .C = C,
                        .OW = (int64_t)o->dims[2],
                        .gin = gin,
                        .es = es,
                        .ld = (size_t)kin * es,
                        .pad = pad},
                  .col_slot = col_slot,
                  .kin = kin,
                  .pixels = pix,
                  .product = product,
                  .ctx = ctx};
    /* passes of at most `chunk` rows, equal (fp32: a multiple of 8 rows), as many
     * as a multiple of the threads per image; taken by whichever thread is
     * free (on its own slot: thread indexes are below k_threads()) */
    p.ppi = (pix + chunk - 1) / chunk;
    p.ppi = (p.ppi + (int64_t)t - 1) / (int64_t)t * (int64_t)t;
    /* int8 rows unrounded: its tiles are not 8 rows (6 on AVX-512 VNNI), and
     * 8 made ResNet-18's 196-row maps passes of 56, 56, 56, 28 (one thread
     * 112 rows, the other 84) */
    const int64_t unit = es == 1 ? 1 : 8;
    p.rows = ((pix + p.ppi - 1) / p.ppi + unit - 1) / unit * unit;
    if (p.rows > chunk) p.rows = chunk;
    p.ppi = (pix + p.rows - 1) / p.rows;
    if (t > 1 && k_threads() <= t && pix >= (int64_t)t * PASS_MIN_ROWS) {
      pte_threadpool_parallel_for((size_t)(p.ppi * images), 1, conv_thread_passes, &p);
      return;
    }
  }
  const int64_t H = (int64_t)x->dims[1], W = (int64_t)x->dims[2], pixels = (int64_t)(o->dims[1] * o->dims[2]);
  xg_im2col j = {.col = col,
                 .c = &n->p.conv,
                 .H = H,
                 .W = W,
                 .C = C,
                 .OW = (int64_t)o->dims[2],
                 .gin = gin,
                 .es = es,
                 .ld = (size_t)kin * es,
                 .pad = pad};
  for (int64_t img = 0; img < (int64_t)x->dims[0]; img++) {
    j.x = (const uint8_t *)in + (size_t)(img * H * W * C) * es;
    for (int64_t r0 = 0; r0 < pixels; r0 += chunk) {
      const int64_t rows = pixels - r0 < chunk ? pixels - r0 : chunk;
      j.r0 = (size_t)r0;
      for (uint32_t gi = 0; gi < groups; gi++) {
        j.c0 = gi * gin;
        k_parallel_for((size_t)rows, (double)(rows * kin), xg_im2col_range, &j);
        product(ctx, col, kin, rows, img * pixels + r0, gi, -1);
      }
    }
  }
}

typedef struct qconv_run {
  k_qgemm_s8_desc d;
  const xg_qconv *q;
  int8_t *out;
  int64_t N;
} qconv_run;

static void qconv_product(void *ctx, const void *a, int64_t lda, int64_t rows, int64_t pixel0, uint32_t gi,
                          int slot) {
  const qconv_run *r = ctx;
  k_qgemm_s8_desc d = r->d;
  d.M = rows, d.a = a, d.sa = lda;
  d.w = r->q->w[gi];
  d.c = r->out + pixel0 * r->N + gi * r->q->kout;
  d.parallel = slot < 0; /* a thread's own pass runs serially (the product needs no scratch) */
  k_qgemm_s8(&d);
}

static void run_static(const xg_graph *g, const xg_node *n, void *const *ptr) {
  if (n->type == XG_DEPTHWISE_CONV2D) {
    run_depthwise(g, n, ptr);
    return;
  }
  const xg_qconv *q = n->qw;
  qconv_run r = {.d = {.a_zero_point = q->za,
                       .sc = q->kout * q->groups,
                       .c_zero_point = q->zo,
                       .qmin = q->qmin,
                       .qmax = q->qmax,
                       .rq = q->has_rq ? &q->rq : NULL,
                       .parallel = true},
                 .q = q,
                 .out = ptr[n->nin],
                 .N = q->kout * q->groups};
  size_t slots = q->col_slot ? n->qscratch_bytes / q->col_slot : 1;
  xg_conv_passes(g, n, ptr[0], 1, (uint8_t)(int8_t)q->za, q->direct, n->qscratch, q->chunk, q->groups, q->kin,
                 slots, q->col_slot, qconv_product, &r);
}

bool xg_native_fuse_requant(xg_node *n, int32_t zin, float scale, float inv, int32_t zout, int8_t *table) {
  k_requant_s8_params r = {.zin = zin, .zout = zout, .scale = scale, .inv = inv, .table = table};
  const k_requant_s8_params *rq = &r;
  k_requant_s8_table(&r, table);
  if (!n->sq || !n->qw || n->exec != XG_EXEC_NATIVE) return false;
  if (n->type == XG_DEPTHWISE_CONV2D) {
    xg_qdw *q = (xg_qdw *)(uintptr_t)n->qw; /* init's own allocation */
    if (q->has_rq) return false;
    q->has_rq = true, q->rq = *rq;
    return true;
  }
  if (n->type != XG_CONV2D) return false;
  xg_qconv *q = (xg_qconv *)(uintptr_t)n->qw;
  if (q->has_rq) return false;
  q->has_rq = true, q->rq = *rq;
  return true;
}

bool xg_native_fuse_clamp(const xg_graph *g, xg_node *n, float lo, float hi) {
  if (!n->sq || !n->qw || n->exec != XG_EXEC_NATIVE ||
      (n->type != XG_DEPTHWISE_CONV2D && n->type != XG_CONV2D))
    return false;
  const xg_value *o = &g->values[n->out[0]];
  int32_t *qmin, *qmax;
  if (n->type == XG_DEPTHWISE_CONV2D) {
    xg_qdw *q = (xg_qdw *)(uintptr_t)n->qw; /* init's own allocation */
    if (q->has_rq) return false;
    qmin = &q->qmin, qmax = &q->qmax;
  } else {
    xg_qconv *q = (xg_qconv *)(uintptr_t)n->qw;
    if (q->has_rq) return false;
    qmin = &q->qmin, qmax = &q->qmax;
  }
  const int32_t a = xg_quant_bound(lo, o, -128), b = xg_quant_bound(hi, o, 127);
  const int32_t nlo = a > *qmin ? a : *qmin, nhi = b < *qmax ? b : *qmax;
  if (nlo > nhi) return false; /* an empty range: left to the clamp */
  *qmin = nlo, *qmax = nhi;
  return true;
}

/* ---- int8 convolutions 2022 XNNPACK lacks (n->direct) ---- */

/* Static int8 transposed convolutions with per-channel filters, and
 * convolutions (plain or transposed) of qdint8 images (one scale and zero
 * point per image, quantized by their convert), on k_qconv_direct: init
 * keeps the requantization scales (in float, input scale x filter scale /
 * output scale, as XNNPACK's) and the int32 bias, or the fp32 bias. */
typedef struct xg_qdirect {
  float *scale;  /* qs8 */
  int32_t *bias; /* qs8 */
  float *fbias;  /* qd8 */
  int32_t wz, qmin, qmax;
} xg_qdirect;

static pte_status prepare_direct(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  if (n->type == XG_CLAMP) {
    const xg_value *o = &g->values[n->out[0]];
    xg_qdirect *q = xg_mem_alloc(mem, sizeof *q);
    if (!q) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
    memset(q, 0, sizeof *q);
    q->qmin = xg_quant_bound(n->out_min, o, -128), q->qmax = xg_quant_bound(n->out_max, o, 127);
    n->qw = q;
    return PTE_OK;
  }
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  const xg_conv_params *c = &n->p.conv;
  const uint64_t OC = (uint64_t)c->groups * c->group_out;
  if (w->numel != OC * c->kernel_h * c->kernel_w * c->group_in || o->dims[3] != OC ||
      x->dims[3] != (uint64_t)c->groups * c->group_in)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "filter value %u does not match the groups' sizes",
                         n->in[1]);
  if (b && b->numel != OC)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "bias value %u has %zu entries, not %llu", n->in[2],
                         b->numel, (unsigned long long)OC);
  const uint64_t most = INT32_MAX;
  if (c->kernel_h > most || c->kernel_w > most || c->sub_h > most || c->sub_w > most || c->dil_h > most ||
      c->dil_w > most || c->pad_top > most || c->pad_left > most || !c->sub_h || !c->sub_w)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "window parameters past int32");
  xg_qdirect *q = xg_mem_alloc(mem, sizeof *q);
  if (!q) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
  memset(q, 0, sizeof *q);
  if (n->dyn) {
    if (b) {
      if (!(q->fbias = xg_mem_array(mem, OC, sizeof(float))))
        return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
      memcpy(q->fbias, b->data, OC * sizeof(float)); /* a payload's constant need not be aligned */
    }
  } else {
    q->scale = xg_mem_array(mem, OC, sizeof(float));
    q->bias = b ? xg_mem_array(mem, OC, sizeof(int32_t)) : NULL;
    if (!q->scale || (b && !q->bias)) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
    for (uint64_t i = 0; i < OC; i++)
      q->scale[i] = x->scale * (w->datatype == XG_DT_QCINT8 ? w->scales[i] : w->scale) / o->scale;
    if (b) memcpy(q->bias, b->data, OC * sizeof(int32_t));
    q->wz = w->datatype == XG_DT_QINT8 ? w->zero_point : 0;
    q->qmin = xg_quant_bound(n->out_min, o, -128), q->qmax = xg_quant_bound(n->out_max, o, 127);
    if (q->qmin > q->qmax)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "the output bounds are empty in int8");
  }
  n->qw = q;
  return PTE_OK;
}

static void run_direct(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_qdirect *q = n->qw;
  if (n->type == XG_CLAMP) {
    const int8_t *x = ptr[0];
    int8_t *y = ptr[1];
    for (size_t i = 0, e = g->values[n->in[0]].numel; i < e; i++)
      y[i] = (int8_t)(x[i] < q->qmin ? q->qmin : x[i] > q->qmax ? q->qmax : x[i]);
    return;
  }
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_conv_params *c = &n->p.conv;
  k_qconv_direct_desc d = {.N = (int64_t)x->dims[0],
                           .H = (int64_t)x->dims[1],
                           .W = (int64_t)x->dims[2],
                           .OH = (int64_t)o->dims[1],
                           .OW = (int64_t)o->dims[2],
                           .groups = c->groups,
                           .gin = c->group_in,
                           .gout = c->group_out,
                           .kh = (int32_t)c->kernel_h,
                           .kw = (int32_t)c->kernel_w,
                           .sh = (int32_t)c->sub_h,
                           .sw = (int32_t)c->sub_w,
                           .dh = (int32_t)c->dil_h,
                           .dw = (int32_t)c->dil_w,
                           .pt = (int32_t)c->pad_top,
                           .pl = (int32_t)c->pad_left,
                           .transpose = n->type == XG_CONV_TRANSPOSE2D,
                           .w = w->data,
                           .wz = q->wz,
                           .parallel = true};
  if (n->dyn) {
    const qd8_job j = qd8_layout(x, ptr[0]);
    d.x = j.q, d.xq = j.params;
    d.fbias = q->fbias, d.wscale = w->scales, d.lo = n->out_min, d.hi = n->out_max;
    d.yf = (float *)ptr[n->nin];
  } else {
    d.x = ptr[0], d.zx = x->zero_point;
    d.bias = q->bias, d.scale = q->scale, d.zy = o->zero_point, d.qmin = q->qmin, d.qmax = q->qmax;
    d.y = (int8_t *)ptr[n->nin];
  }
  k_qconv_direct(&d);
}

/* A fully connected layer is one matrix of every row but the features. */
/* Dynamically quantized rows times int8/int4 weights: the kernel layer's
 * int8 product quantizes each fp32 row as XNNPACK's qd8 convert does. */
pte_status xg_native_prepare(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  if (n->direct) return prepare_direct(g, ni, mem);
  if (n->sq) return prepare_static(g, ni, mem);
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  k_qgemm_weights qw;
  memset(&qw, 0, sizeof qw);
  qw.N = (int64_t)w->dims[0];
  qw.K = (int64_t)w->dims[1];
  qw.bits = w->datatype == XG_DT_QCINT8 ? K_QW_INT8 : K_QW_INT4;
  qw.data = w->data;
  qw.zero_point = qw.bits == K_QW_INT4 ? 8 : 0; /* ExecuTorch stores int4 + 8 in unsigned nibbles */
  qw.group = w->datatype == XG_DT_QBINT4 ? (int64_t)w->group_size : 0;
  qw.scale = w->scales; /* per channel, or [N][K / group] (bf16 widened at parse) */
  qw.bias = b ? (const float *)b->data : NULL;
  const char *err = NULL;
  size_t bytes = k_qgemm_packed_size(&qw, &err);
  if (!bytes)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "quantized weights: %s", err ? err : "invalid");
  void *buf = xg_mem_alloc(mem, bytes);
  const int64_t m = (int64_t)(x->numel / x->dims[x->ndims - 1]);
  n->qscratch_bytes = x->qd8_rows ? 0 : k_qgemm_scratch(m, qw.K); /* rows quantized by the convert */
  if (!buf)
    return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory for %zu bytes of packed weights",
                         bytes);
  if (n->qscratch_bytes) {
    pte_status st = xg_ws_reserve(g, mem, &n->qscratch, n->qscratch_bytes);
    if (st) return xg_node_error(g, ni, st, "quantized rows: %s", pte_last_error());
  }
  n->qw = k_qgemm_pack(&qw, buf, bytes, &err);
  if (!n->qw)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "quantized weights: %s", err ? err : "invalid");
  /* the packed copy is the one read from now on: one copy resident */
  if (mem->ctx) pte_backend_release(mem->ctx, w->data, w->nbytes);
  return PTE_OK;
}

static void run_dynamic_fc(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_value *x = &g->values[n->in[0]];
  const int64_t k = (int64_t)x->dims[x->ndims - 1];
  k_qgemm_desc d;
  memset(&d, 0, sizeof d);
  d.M = (int64_t)x->numel / k;
  d.w = (const k_qgemm_packed *)n->qw;
  if (x->qd8_rows) {
    const qd8_job j = qd8_layout(x, ptr[0]);
    d.qa = j.q, d.sqa = k, d.qparams = j.params;
  } else {
    d.a = (const float *)ptr[0];
    d.sa = k;
  }
  d.c = (float *)ptr[3];
  d.sc = k_qgemm_packed_n(d.w);
  d.lo = n->out_min;
  d.hi = n->out_max;
  d.clamp = k_clamps(d.lo, d.hi);
  d.scratch = n->qscratch;
  d.scratch_bytes = n->qscratch_bytes;
  d.parallel = true;
  (void)k_qgemm(&d); /* fails only without scratch, which init allocated */
}

/* The GEMM packs B per call (a transposed one with a register transpose
 * per panel), and without packing space once per 32 rows of A: that cost a
 * GPT-2's linears a fifth of their time. So a constant filter is packed
 * once here, and the delegate's native products share packing space. */
pte_status xg_fc_scratch_reserve(xg_graph *g, uint32_t ni, xg_mem *mem, size_t need) {
  if (need <= g->fc_scratch_bytes) return PTE_OK;
  pte_status st = xg_ws_reserve(g, mem, &g->fc_scratch, need);
  if (st) return xg_node_error(g, ni, st, "%zu bytes of scratch: %s", need, pte_last_error());
  g->fc_scratch_bytes = need;
  return PTE_OK;
}

pte_status xg_native_prepare_fc(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  if (n->type == XG_BMM && !n->quant) {
    /* a slice per thread: ViT's attention products packing on the stack
     * took twice their time */
    const xg_value *a = &g->values[n->in[0]], *o = &g->values[n->out[0]];
    if (a->ndims < 2 || o->ndims < 2) return PTE_OK;
    return xg_fc_scratch_reserve(
        g, ni, mem,
        k_sgemm_batched_scratch((int64_t)a->dims[a->ndims - 2], (int64_t)o->dims[o->ndims - 1],
                                (int64_t)a->dims[a->ndims - 1]));
  }
  if (n->type != XG_FULLY_CONNECTED || n->quant || n->dyn) return PTE_OK;
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
  if (w->ndims != 2 || w->datatype != XG_DT_FP32 || x->ndims < 1) return PTE_OK;
  const bool nk = !(n->flags & 1);
  const size_t N = nk ? w->dims[0] : w->dims[1], K = nk ? w->dims[1] : w->dims[0];
  if (!N || !K || x->dims[x->ndims - 1] != K) return PTE_OK;
  pte_status st =
      xg_fc_scratch_reserve(g, ni, mem, k_sgemm_scratch((int64_t)(x->numel / K), (int64_t)N, (int64_t)K));
  if (st) return st;
  /* a misaligned constant (a hostile payload's) is left to the plan's aligned copy */
  if (!w->has_data || (uintptr_t)w->data % sizeof(float)) return PTE_OK;
  float *t = (float *)xg_mem_array(mem, k_sgemm_packed_b_floats((int64_t)N, (int64_t)K), sizeof(float));
  if (!t) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory for its packed filter");
  k_sgemm_pack_b((const float *)w->data, nk ? 1 : (int64_t)N, nk ? (int64_t)K : 1, (int64_t)N, (int64_t)K, t);
  n->fc_packed = t;
  /* the packed filter is the one read from now on: one copy resident */
  if (mem->ctx) pte_backend_release(mem->ctx, w->data, w->nbytes);
  return PTE_OK;
}

void xg_native_fully_connected(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  if (n->dyn) {
    run_dynamic_fc(g, n, ptr);
    return;
  }
  if (n->sq) {
    run_static(g, n, ptr);
    return;
  }
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]];
  const bool nk = !(n->flags & 1); /* B as [N, K] */
  k_sgemm_desc d;
  memset(&d, 0, sizeof d);
  d.K = (int64_t)x->dims[x->ndims - 1];
  d.N = (int64_t)(!(n->flags & 1) ? w->dims[0] : w->dims[1]);
  d.M = (int64_t)x->numel / d.K;
  d.a = (const float *)ptr[0], d.sa0 = d.K, d.sa1 = 1;
  d.b = (const float *)ptr[1], d.b_packed = n->fc_packed;
  d.sb0 = nk ? 1 : d.N, d.sb1 = nk ? d.K : 1;
  d.c = (float *)ptr[3], d.sc0 = d.N, d.sc1 = 1;
  d.alpha = 1.0f;
  d.col_bias = n->in[2] == XG_NONE ? NULL : (const float *)ptr[2];
  d.beta = d.col_bias ? 1.0f : 0.0f;
  d.lo = n->out_min, d.hi = n->out_max;
  d.clamp = k_clamps(d.lo, d.hi);
  d.scratch = g->fc_scratch, d.scratch_bytes = g->fc_scratch_bytes;
  d.parallel = true;
  k_sgemm(&d);
}

void xg_native_batch_matmul(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *a = &g->values[n->in[0]], *b = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  xg_matmul j;
  memset(&j, 0, sizeof j);
  j.a = (const float *)ptr[0];
  j.b = (const float *)ptr[1];
  j.y = (float *)ptr[2];
  j.m = a->dims[a->ndims - 2];
  j.k = a->dims[a->ndims - 1];
  j.b_nk = (n->flags & 1) != 0;
  j.n = o->dims[o->ndims - 1];
  j.lo = -INFINITY, j.hi = INFINITY;
  j.scratch = g->fc_scratch, j.scratch_bytes = g->fc_scratch_bytes;
  /* Batch dims, right-aligned into 4 slots (at most 6 - 2). */
  uint32_t ob = o->ndims - 2, ab = a->ndims - 2, bb = b->ndims - 2;
  size_t stride_a = 1, stride_b = 1;
  for (int d = 3; d >= 0; d--) {
    int od = (int)ob - (4 - d), ad = (int)ab - (4 - d), bd = (int)bb - (4 - d);
    size_t os = od >= 0 ? o->dims[od] : 1, as = ad >= 0 ? a->dims[ad] : 1, bs = bd >= 0 ? b->dims[bd] : 1;
    j.batch[d] = os;
    j.sa[d] = (as == 1 && os != 1) ? 0 : stride_a;
    j.sb[d] = (bs == 1 && os != 1) ? 0 : stride_b;
    stride_a *= as;
    stride_b *= bs;
  }
  xg_batch_matmul(&j);
}

/* ---- data movement ---- */

/* Data movement is the kernel layer's strided copy (k_copy): dims and
 * strides in elements, as int64. */
static void dims64(const size_t *v, uint32_t nd, int64_t *out) {
  for (uint32_t d = 0; d < nd; d++) out[d] = (int64_t)v[d];
}

static void strides_of(const size_t *dims, uint32_t nd, int64_t *s) {
  int64_t v = 1;
  for (int d = (int)nd - 1; d >= 0; d--) s[d] = v, v *= (int64_t)dims[d];
}

/* NCHW -> NHWC of 3 byte channels (a CNN's int8 image before its stem):
 * each pixel's bytes from the planes in one loop; the strided copy took a
 * step per byte (MobileNetV2's 224x224 image: 88 us). */
static bool transpose_planes(const xg_value *x, const xg_node *n, const void *in, void *out) {
  const uint32_t *p = n->p.transpose.perm;
  if (x->esize != 1 || x->ndims != 4 || p[0] != 0 || p[1] != 2 || p[2] != 3 || p[3] != 1 || x->dims[1] != 3)
    return false;
  const size_t HW = x->dims[2] * x->dims[3];
  for (size_t b = 0; b < x->dims[0]; b++) {
    const uint8_t *s = (const uint8_t *)in + b * 3 * HW;
    uint8_t *d = (uint8_t *)out + b * 3 * HW;
    for (size_t i = 0; i < HW; i++) d[3 * i] = s[i], d[3 * i + 1] = s[HW + i], d[3 * i + 2] = s[2 * HW + i];
  }
  return true;
}

static void run_transpose(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  if (transpose_planes(x, n, ptr[0], ptr[1])) return;
  int64_t sx[XG_MAX_DIMS], ss[XG_MAX_DIMS], dims[XG_MAX_DIMS];
  strides_of(x->dims, x->ndims, sx);
  for (uint32_t d = 0; d < o->ndims; d++) ss[d] = sx[n->p.transpose.perm[d]];
  dims64(o->dims, o->ndims, dims);
  k_copy_to_contiguous(ptr[1], ptr[0], ss, (int32_t)o->ndims, dims, x->esize, true);
}

void xg_native_slice(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  int64_t sx[XG_MAX_DIMS], dims[XG_MAX_DIMS], start = 0;
  strides_of(x->dims, x->ndims, sx);
  dims64(o->dims, o->ndims, dims);
  for (uint32_t d = 0; d < x->ndims; d++) start += (int64_t)n->p.slice.offsets[d] * sx[d];
  k_copy_to_contiguous(ptr[1], (const uint8_t *)ptr[0] + start * x->esize, sx, (int32_t)o->ndims, dims,
                       x->esize, true);
}

/* A requantizing qint8 pad of H and W in NHWC (MobileNetV2's, and its
 * empty ones): each output row (OW x C bytes, contiguous) is filled,
 * copied into and requantized while it is in cache (one pass instead of
 * three over the tensor, split over the pool). Its padding holds the
 * padding value quantized with the input's parameters before the
 * requantization, as in the plain path. */
typedef struct qpad_job {
  const int8_t *x;
  int8_t *y;
  int64_t H, W, C, OH, OW, pt, pl;
  int32_t zin, zout;
  int8_t pad;
  float scale, inv;
} qpad_job;

static void qpad_rows(void *ctx, size_t b, size_t e) {
  const qpad_job *j = ctx;
  const size_t row = (size_t)(j->OW * j->C);
  for (size_t r = b; r < e; r++) {
    const int64_t img = (int64_t)r / j->OH, iy = (int64_t)r % j->OH - j->pt;
    int8_t *y = j->y + (int64_t)r * (int64_t)row;
    if (j->OW != j->W || iy < 0 || iy >= j->H) memset(y, j->pad, row);
    if (iy >= 0 && iy < j->H)
      memcpy(y + j->pl * j->C, j->x + ((img * j->H + iy) * j->W) * j->C, (size_t)(j->W * j->C));
    k_requant_s8(y, row, j->zin, j->scale, j->inv, j->zout);
  }
}

static bool qpad_fast(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  const size_t *pre = n->p.pad.pre, *post = n->p.pad.post;
  if (o->esize != 1 || !n->qscratch || x->ndims != 4 || o->ndims != 4 || pre[0] || post[0] || pre[3] ||
      post[3])
    return false;
  qpad_job j = {.x = ptr[0],
                .y = ptr[1],
                .H = (int64_t)x->dims[1],
                .W = (int64_t)x->dims[2],
                .C = (int64_t)x->dims[3],
                .OH = (int64_t)o->dims[1],
                .OW = (int64_t)o->dims[2],
                .pt = (int64_t)pre[1],
                .pl = (int64_t)pre[2],
                .zin = x->zero_point,
                .zout = o->zero_point,
                .pad = xg_quantize_value(n->p.pad.value, x),
                .scale = x->scale,
                .inv = 1.0f / o->scale};
  k_parallel_for(o->dims[0] * o->dims[1], 4.0 * (double)o->numel, qpad_rows, &j);
  return true;
}

/* fp32, or qint8: a fused dequantize-pad-quantize (xg_fuse_quant_pads),
 * the padding value quantized with the input's parameters, then
 * requantized when the chain has a table (n->qscratch). */
void xg_native_constant_pad(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  const float v = n->p.pad.value;
  if (qpad_fast(g, n, ptr)) return;
  if (o->numel == x->numel) {
    /* nothing to pad (MobileNetV2 has such pads): the copy fills it all */
  } else if (o->esize == 1) {
    memset(ptr[1], xg_quantize_value(v, x), o->numel);
  } else {
    float *y = (float *)ptr[1];
    for (size_t i = 0; i < o->numel; i++) y[i] = v;
  }
  int64_t sx[XG_MAX_DIMS], sy[XG_MAX_DIMS], dims[XG_MAX_DIMS], start = 0;
  strides_of(x->dims, x->ndims, sx);
  strides_of(o->dims, o->ndims, sy);
  dims64(x->dims, x->ndims, dims);
  for (uint32_t d = 0; d < o->ndims; d++) start += (int64_t)n->p.pad.pre[d] * sy[d];
  k_copy((char *)ptr[1] + start * o->esize, sy, ptr[0], sx, (int32_t)x->ndims, dims, o->esize, true);
  /* the converts' float operations, as xg_quantize_value (the fusion
   * checked the chain as a table with it) */
  if (o->esize == 1 && n->qscratch)
    k_requant_s8(ptr[1], o->numel, x->zero_point, x->scale, 1.0f / o->scale, o->zero_point);
}

void xg_native_concat(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *o = &g->values[n->out[0]];
  const uint32_t axis = n->p.cat.axis;
  int64_t outer = 1, inner = 1;
  for (uint32_t d = 0; d < axis; d++) outer *= (int64_t)o->dims[d];
  for (uint32_t d = axis + 1; d < o->ndims; d++) inner *= (int64_t)o->dims[d];
  uint8_t *y = (uint8_t *)ptr[n->nin];
  const int64_t row = (int64_t)o->dims[axis] * inner;
  int64_t at = 0;
  for (uint32_t k = 0; k < n->nin; k++) {
    const int64_t chunk = (int64_t)g->values[n->in[k]].dims[axis] * inner;
    const int64_t dims[2] = {outer, chunk}, ss[2] = {chunk, 1}, ds[2] = {row, 1};
    k_copy(y + at * o->esize, ds, ptr[k], ss, 2, dims, o->esize, true);
    at += chunk;
  }
}

/* ---- pooling (NHWC) ---- */

enum { POOL_AVG, POOL_MAX, POOL_ARGMAX };

typedef struct pool_job {
  const float *x;
  float *y;
  void *idx;
  bool idx64;
  int kind; /* POOL_* */
  size_t H, W, C, OH, OW;
  xg_pool_params p;
  float lo, hi;
} pool_job;

/* One output pixel (n, oy, ox) per item. */
static void pool_pixels(void *ctx, size_t b, size_t e) {
  const pool_job *j = (const pool_job *)ctx;
  const xg_pool_params *p = &j->p;
  for (size_t it = b; it < e; it++) {
    size_t ox = it % j->OW, oy = (it / j->OW) % j->OH, nb = it / (j->OW * j->OH);
    float *y = j->y + it * j->C;
    for (size_t c = 0; c < j->C; c++) {
      float acc = j->kind == POOL_AVG ? 0.0f : -INFINITY;
      size_t count = 0, best = 0;
      for (size_t ky = 0; ky < p->pool_h; ky++) {
        int64_t iy = (int64_t)(oy * p->stride_h + ky * p->dil_h) - (int64_t)p->pad_top;
        if (iy < 0 || iy >= (int64_t)j->H) continue;
        for (size_t kx = 0; kx < p->pool_w; kx++) {
          int64_t ix = (int64_t)(ox * p->stride_w + kx * p->dil_w) - (int64_t)p->pad_left;
          if (ix < 0 || ix >= (int64_t)j->W) continue;
          float v = j->x[((nb * j->H + (size_t)iy) * j->W + (size_t)ix) * j->C + c];
          if (j->kind == POOL_AVG) {
            acc += v;
          } else if (count == 0 || v > acc) {
            acc = v;
            best = ky * p->pool_w + kx;
          }
          count++;
        }
      }
      if (j->kind == POOL_AVG) acc = count ? acc / (float)count : 0.0f;
      y[c] = clampf(acc, j->lo, j->hi);
      if (j->kind == POOL_ARGMAX) {
        y[c] = acc; /* argmax pooling has no output bounds */
        if (j->idx64) ((int64_t *)j->idx)[it * j->C + c] = (int64_t)best;
        else ((int32_t *)j->idx)[it * j->C + c] = (int32_t)best;
      }
    }
  }
}

/* Max pooling, one output pixel per item, vectorized over the contiguous
 * channels: the first tap inside the image copied, the others kept where
 * greater (the scalar loop's order: a NaN stays only as the first tap),
 * then the bounds. ResNet's 3x3 stride-2 pool ran 4x slower channel by
 * channel, on one thread inside an XNNPACK runtime. */
static inline __attribute__((always_inline)) void max_pixels_body(void *ctx, size_t b, size_t e) {
  const pool_job *j = (const pool_job *)ctx;
  const xg_pool_params *p = &j->p;
  const size_t C = j->C;
  for (size_t it = b; it < e; it++) {
    size_t ox = it % j->OW, oy = (it / j->OW) % j->OH, nb = it / (j->OW * j->OH);
    float *restrict y = j->y + it * C;
    bool any = false;
    for (size_t ky = 0; ky < p->pool_h; ky++) {
      int64_t iy = (int64_t)(oy * p->stride_h + ky * p->dil_h) - (int64_t)p->pad_top;
      if (iy < 0 || iy >= (int64_t)j->H) continue;
      for (size_t kx = 0; kx < p->pool_w; kx++) {
        int64_t ix = (int64_t)(ox * p->stride_w + kx * p->dil_w) - (int64_t)p->pad_left;
        if (ix < 0 || ix >= (int64_t)j->W) continue;
        const float *restrict x = j->x + ((nb * j->H + (size_t)iy) * j->W + (size_t)ix) * C;
        if (!any) memcpy(y, x, C * sizeof(float));
        else
          for (size_t c = 0; c < C; c++) y[c] = x[c] > y[c] ? x[c] : y[c];
        any = true;
      }
    }
    if (!any)
      for (size_t c = 0; c < C; c++) y[c] = -INFINITY;
    const float lo = j->lo, hi = j->hi;
    for (size_t c = 0; c < C; c++) y[c] = clampf(y[c], lo, hi);
  }
}

/* the body vectorized for each ISA (compiled for baseline x86-64 it was
 * 4 floats a step and 1.6x slower than XNNPACK's pool) */
static void max_pixels(void *ctx, size_t b, size_t e) { max_pixels_body(ctx, b, e); }
#if defined(__x86_64__)
__attribute__((target("avx2"))) static void max_pixels_avx2(void *ctx, size_t b, size_t e) {
  max_pixels_body(ctx, b, e);
}
__attribute__((target("avx512f"))) static void max_pixels_avx512(void *ctx, size_t b, size_t e) {
  max_pixels_body(ctx, b, e);
}
#endif

static k_range_fn max_pixels_fn(void) {
  switch (k_isa_get()) {
#if defined(__x86_64__)
    case K_ISA_AVX512: return max_pixels_avx512;
    case K_ISA_AVX2: return max_pixels_avx2;
#endif
    default: return max_pixels;
  }
}

static void run_pool(const xg_graph *g, const xg_node *n, void *const *ptr, bool idx64, int kind) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  pool_job j;
  memset(&j, 0, sizeof j);
  j.x = (const float *)ptr[0];
  j.y = (float *)ptr[1];
  j.idx = kind == POOL_ARGMAX ? ptr[2] : NULL;
  j.idx64 = idx64;
  j.kind = kind;
  j.H = x->dims[1], j.W = x->dims[2], j.C = x->dims[3];
  j.OH = o->dims[1], j.OW = o->dims[2];
  j.p = n->p.pool;
  if (kind != POOL_MAX) j.p.dil_h = j.p.dil_w = 1;
  j.lo = n->out_min, j.hi = n->out_max;
  size_t pixels = x->dims[0] * j.OH * j.OW;
  k_parallel_for(pixels, (double)pixels * (double)(j.C * j.p.pool_h * j.p.pool_w),
                 kind == POOL_MAX ? max_pixels_fn() : pool_pixels, &j);
}

void xg_native_avg_pool(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  run_pool(g, n, ptr, index_int64, POOL_AVG);
}

void xg_native_max_pool(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  run_pool(g, n, ptr, index_int64, POOL_MAX);
}

void xg_native_argmax_pool(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  run_pool(g, n, ptr, index_int64, POOL_ARGMAX);
}

void xg_native_global_avg_pool(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *x = &g->values[n->in[0]];
  const size_t N = x->dims[0], HW = x->dims[1] * x->dims[2], C = x->dims[3];
  const float *in = (const float *)ptr[0];
  float *y = (float *)ptr[1];
  for (size_t b = 0; b < N; b++) {
    for (size_t c = 0; c < C; c++) y[b * C + c] = 0.0f;
    for (size_t i = 0; i < HW; i++)
      for (size_t c = 0; c < C; c++) y[b * C + c] += in[(b * HW + i) * C + c];
    for (size_t c = 0; c < C; c++) y[b * C + c] = clampf(y[b * C + c] / (float)HW, n->out_min, n->out_max);
  }
}

/* ---- dispatch ---- */

void xg_native_transpose(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  if (n->copy_like) xg_native_copy(g, n, ptr, index_int64);
  else run_transpose(g, n, ptr);
}

void xg_native_softmax(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *x = &g->values[n->in[0]];
  softmax_job j;
  memset(&j, 0, sizeof j);
  j.x = (const float *)ptr[0];
  j.y = (float *)ptr[n->nin];
  j.c = x->dims[x->ndims - 1];
  for (int d = 0; d < 5; d++) j.out[d] = 1;
  if (n->nin == 3) {
    /* x * scale + mask (both checked when fused) */
    size_t out6[XG_MAX_DIMS], sm6[XG_MAX_DIMS];
    for (int d = 0; d < XG_MAX_DIMS; d++) {
      int xd = (int)x->ndims - (XG_MAX_DIMS - d);
      out6[d] = xd >= 0 ? x->dims[xd] : 1;
    }
    bcast_strides(&g->values[n->in[2]], out6, sm6);
    memcpy(j.out, out6, sizeof j.out);
    memcpy(j.sm, sm6, sizeof j.sm);
    j.scale = *(const float *)ptr[1];
    j.mask = (const float *)ptr[2];
  } else if (n->nin == 2) {
    j.scale = *(const float *)ptr[1];
    j.scaled = true;
  }
  k_parallel_for(x->numel / j.c, (double)x->numel, softmax_rows, &j);
}

/* ---- a fused quantize, multiply by a qint8 factor, dequantize (xg_qmulc) ---- */

typedef struct qmulc_job {
  const float *x;
  float *y;
  float inv;        /* quantizing the input */
  int32_t zp;       /* its zero point */
  float c, scale;   /* the factor less its zero point; a_scale * b_scale / out_scale */
  float lo, hi, so; /* output bounds less the output zero point; output scale */
  size_t total;
  int32_t zo; /* output zero point */
  bool full;  /* the bounds are int8's whole range (k_requant_s8's) */
} qmulc_job;

/* As XNNPACK's qs8 multiply rounds (fp32 requantization): the int32
 * product (exact in float: at most 255 * 255) times the scale, clamped,
 * half to even (the magic number: |v| <= 255), then dequantized. */
static void qmulc_range(void *ctx, size_t b, size_t e) {
  const qmulc_job *j = (const qmulc_job *)ctx;
  const size_t i0 = b * XG_QCONV_RUN, i1 = e * XG_QCONV_RUN < j->total ? e * XG_QCONV_RUN : j->total;
  int8_t q[512];
  for (size_t i = i0; i < i1; i += 512) {
    const size_t c = i1 - i < 512 ? i1 - i : 512;
    k_quantize_s8(j->x + i, q, c, j->inv, j->zp);
    float *y = j->y + i;
    if (j->full) {
      /* the same float operations in the kernel layer's vector bodies
       * (this loop alone was 4% of ViT int8): the int8 product
       * requantized in place, then dequantized */
      k_requant_s8(q, c, j->zp, j->c, j->scale, j->zo);
      k_dequantize_s8(q, y, c, j->zo, j->so);
      continue;
    }
    for (size_t k = 0; k < c; k++) {
      float v = (float)((int32_t)q[k] - j->zp) * j->c * j->scale;
      v = v < j->lo ? j->lo : v;
      v = v > j->hi ? j->hi : v;
      y[k] = ((v + 12582912.0f) - 12582912.0f) * j->so;
    }
  }
}

static void run_qmulc(const xg_graph *g, const xg_node *n, void *const *ptr) {
  const xg_qmulc *t = (const xg_qmulc *)n->qscratch;
  const xg_value *qa = &g->values[t->q_in], *qo = &g->values[t->q_out], *c = &g->values[n->in[1]];
  const size_t total = g->values[n->in[0]].numel;
  qmulc_job j = {(const float *)ptr[0],
                 (float *)ptr[2],
                 1.0f / qa->scale,
                 qa->zero_point,
                 (float)((int32_t) * (const int8_t *)ptr[1] - c->zero_point),
                 qa->scale * c->scale / qo->scale,
                 (float)(xg_quant_bound(n->out_min, qo, -128) - qo->zero_point),
                 (float)(xg_quant_bound(n->out_max, qo, 127) - qo->zero_point),
                 qo->scale,
                 total,
                 qo->zero_point,
                 false};
  j.full = j.lo == (float)(-128 - qo->zero_point) && j.hi == (float)(127 - qo->zero_point);
  k_parallel_for((total + XG_QCONV_RUN - 1) / XG_QCONV_RUN, 2.0 * (double)total, qmulc_range, &j);
}

pte_status xg_native_run(const xg_graph *g, uint32_t ni, void *const *ptr, bool index_int64) {
  const xg_node *n = &g->nodes[ni];
  if (n->type == XG_MULTIPLY && n->qscratch) {
    run_qmulc(g, n, ptr);
    return PTE_OK;
  }
  if (n->direct) {
    run_direct(g, n, ptr);
    return PTE_OK;
  }
  if (n->sq) {
    run_static(g, n, ptr); /* int8: before the row's fp32 body (xnn_conv.c for convolutions) */
    return PTE_OK;
  }
  const xg_node_desc *d = xg_node_desc_of(n->type);
  if (!d || !d->native) return xg_node_error(g, ni, PTE_ERR_INTERNAL, "has no native implementation");
  d->native(g, n, ptr, index_int64);
  return PTE_OK;
}
