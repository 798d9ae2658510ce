/* The o_kern table for NEON (aarch64, see kern.h): the generic loops of kern_impl.h, with NEON
 * intrinsics where they beat what the compiler makes of them (masked selects instead of branches in
 * the clamps and the 2x2 max pooling, lanes kept in registers in the reductions, de-interleaving
 * loads for stride 2; the general depthwise plane stays generic). Each gives the generic function's results
 * bit for bit: the same operations in the same order, products rounded before the adds (the build
 * does not contract a*b+c), comparisons as the C code's ternaries (so -0.0 and NaN come out the
 * same). NEON is part of the aarch64 baseline: no per-file flags. */
#if defined(__aarch64__)
#include <arm_neon.h>

#define KERN_TABLE kern_c
#define KERN_NAME "neon"
#define KERN_STATIC
#include "kern_impl.h"

/* v < 0 ? 0 : v (a NaN compares false and is kept, like the C code) */
static inline float32x4_t n_relu(float32x4_t v) {
  const float32x4_t z = vdupq_n_f32(0.0f);
  return vbslq_f32(vcltq_f32(v, z), z, v);
}
/* v < lo ? lo : v, then > hi ? hi : v */
static inline float32x4_t n_clamp(float32x4_t v, float32x4_t lo, float32x4_t hi) {
  v = vbslq_f32(vcltq_f32(v, lo), lo, v);
  return vbslq_f32(vcgtq_f32(v, hi), hi, v);
}

#define N_BIN(NAME, VOP, SOP)                                                                     \
  static void NAME(const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n) { \
    int64_t i = 0;                                                                                \
    if (sa && sb) {                                                                               \
      for (; i + 8 <= n; i += 8) {                                                                \
        const float32x4_t r0 = VOP(vld1q_f32(a + i), vld1q_f32(b + i));                           \
        const float32x4_t r1 = VOP(vld1q_f32(a + i + 4), vld1q_f32(b + i + 4));                   \
        vst1q_f32(o + i, r0);                                                                     \
        vst1q_f32(o + i + 4, r1);                                                                 \
      }                                                                                           \
      for (; i < n; i++) o[i] = SOP(a[i], b[i]);                                                  \
    } else if (sa) {                                                                              \
      const float bs = b[0];                                                                      \
      const float32x4_t bv = vdupq_n_f32(bs);                                                     \
      for (; i + 4 <= n; i += 4) vst1q_f32(o + i, VOP(vld1q_f32(a + i), bv));                     \
      for (; i < n; i++) o[i] = SOP(a[i], bs);                                                    \
    } else if (sb) {                                                                              \
      const float as = a[0];                                                                      \
      const float32x4_t av = vdupq_n_f32(as);                                                     \
      for (; i + 4 <= n; i += 4) vst1q_f32(o + i, VOP(av, vld1q_f32(b + i)));                     \
      for (; i < n; i++) o[i] = SOP(as, b[i]);                                                    \
    } else {                                                                                      \
      const float v = SOP(a[0], b[0]);                                                            \
      for (; i < n; i++) o[i] = v;                                                                \
    }                                                                                             \
  }
#define S_ADD(x, y) ((x) + (y))
#define S_MUL(x, y) ((x) * (y))
#define S_DIV(x, y) ((x) / (y))
N_BIN(n_add, vaddq_f32, S_ADD)
N_BIN(n_mul, vmulq_f32, S_MUL)
N_BIN(n_div, vdivq_f32, S_DIV)

static void n_binary(o_binop op, const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n,
                     float alpha) {
  if (op == O_SUB) {
    alpha = -alpha;
    op = O_ADD;
  }
  if (op == O_ADD && alpha != 1.0f && sa && sb) {
    /* a + alpha*b, product rounded first like ATen's float loop */
    const float32x4_t al = vdupq_n_f32(alpha);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) vst1q_f32(o + i, vaddq_f32(vld1q_f32(a + i), vmulq_f32(al, vld1q_f32(b + i))));
    for (; i < n; i++) {
      float t = alpha * b[i];
      o[i] = a[i] + t;
    }
    return;
  }
  if (op == O_ADD && alpha != 1.0f) {
    kern_c.binary(op, a, sa, b, sb, o, n, alpha);
    return;
  }
  switch (op) {
    case O_ADD: n_add(a, sa, b, sb, o, n); break;
    case O_MUL: n_mul(a, sa, b, sb, o, n); break;
    case O_DIV: n_div(a, sa, b, sb, o, n); break;
    default: break;
  }
}

static void n_unary(o_unop op, const float *x, float *y, int64_t n, float lo, float hi) {
  const float32x4_t z = vdupq_n_f32(0.0f), three = vdupq_n_f32(3.0f), six = vdupq_n_f32(6.0f);
  const float32x4_t lov = vdupq_n_f32(lo), hiv = vdupq_n_f32(hi);
  int64_t i = 0;
  switch (op) {
    case O_RELU:
      for (; i + 4 <= n; i += 4) vst1q_f32(y + i, n_relu(vld1q_f32(x + i)));
      break;
    case O_CLAMP:
      for (; i + 4 <= n; i += 4) vst1q_f32(y + i, n_clamp(vld1q_f32(x + i), lov, hiv));
      break;
    case O_HARDSWISH:
      /* x * min(max(x + 3, 0), 6) / 6, in ATen's order */
      for (; i + 4 <= n; i += 4) {
        const float32x4_t v = vld1q_f32(x + i);
        const float32x4_t t = n_clamp(vaddq_f32(v, three), z, six);
        vst1q_f32(y + i, vdivq_f32(vmulq_f32(v, t), six));
      }
      break;
    case O_HARDSIGMOID:
      for (; i + 4 <= n; i += 4)
        vst1q_f32(y + i, vdivq_f32(n_clamp(vaddq_f32(vld1q_f32(x + i), three), z, six), six));
      break;
  }
  /* the tail through the generic loop: the same expressions */
  if (i < n) kern_c.unary(op, x + i, y + i, n - i, lo, hi);
}

static void n_scale_shift(const float *x, float *y, int64_t n, float s, float t) {
  const float32x4_t sv = vdupq_n_f32(s), tv = vdupq_n_f32(t);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vaddq_f32(vmulq_f32(vld1q_f32(x + i), sv), tv));
  for (; i < n; i++) y[i] = x[i] * s + t;
}

/* The generic reductions keep LANES (16) partial sums, lane j taking
 * elements i + j, then fold them in halves: four q registers are those
 * sixteen lanes, folded the same way. */
static inline float n_fold(float32x4_t v0, float32x4_t v1, float32x4_t v2, float32x4_t v3) {
  v0 = vaddq_f32(v0, v2); /* w = 8 */
  v1 = vaddq_f32(v1, v3);
  v0 = vaddq_f32(v0, v1);                                        /* w = 4 */
  float32x2_t h = vadd_f32(vget_low_f32(v0), vget_high_f32(v0)); /* w = 2 */
  return vget_lane_f32(h, 0) + vget_lane_f32(h, 1);              /* w = 1 */
}

static float n_sum(const float *x, int64_t n) {
  float32x4_t v0 = vdupq_n_f32(0.0f), v1 = v0, v2 = v0, v3 = v0;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v0 = vaddq_f32(v0, vld1q_f32(x + i));
    v1 = vaddq_f32(v1, vld1q_f32(x + i + 4));
    v2 = vaddq_f32(v2, vld1q_f32(x + i + 8));
    v3 = vaddq_f32(v3, vld1q_f32(x + i + 12));
  }
  float s = 0.0f;
  for (; i < n; i++) s += x[i];
  return n_fold(v0, v1, v2, v3) + s;
}

static float n_sqdev(const float *x, int64_t n, float mean) {
  const float32x4_t m = vdupq_n_f32(mean);
  float32x4_t v0 = vdupq_n_f32(0.0f), v1 = v0, v2 = v0, v3 = v0;
  int64_t i = 0;
#define SQ(v, o)                                              \
  do {                                                        \
    const float32x4_t d = vsubq_f32(vld1q_f32(x + i + o), m); \
    v = vaddq_f32(v, vmulq_f32(d, d));                        \
  } while (0)
  for (; i + 16 <= n; i += 16) {
    SQ(v0, 0);
    SQ(v1, 4);
    SQ(v2, 8);
    SQ(v3, 12);
  }
#undef SQ
  float s = 0.0f;
  for (; i < n; i++) {
    float d = x[i] - mean;
    s += d * d;
  }
  return n_fold(v0, v1, v2, v3) + s;
}

/* acc > v ? acc : v per lane */
static inline float32x4_t n_keep_max(float32x4_t acc, float32x4_t v) {
  return vbslq_f32(vcgtq_f32(acc, v), acc, v);
}

static float n_max(const float *x, int64_t n) {
  float m = -INFINITY;
  int64_t i = 0;
  /* lanes where some element was NaN (x != x): then the first NaN is the
   * answer, as the generic scan finds it */
  uint32x4_t nan = vdupq_n_u32(0);
  if (n >= 16) {
    float32x4_t v0 = vld1q_f32(x), v1 = vld1q_f32(x + 4), v2 = vld1q_f32(x + 8), v3 = vld1q_f32(x + 12);
    nan = vorrq_u32(vorrq_u32(vmvnq_u32(vceqq_f32(v0, v0)), vmvnq_u32(vceqq_f32(v1, v1))),
                    vorrq_u32(vmvnq_u32(vceqq_f32(v2, v2)), vmvnq_u32(vceqq_f32(v3, v3))));
    for (i = 16; i + 16 <= n; i += 16) {
      const float32x4_t x0 = vld1q_f32(x + i), x1 = vld1q_f32(x + i + 4), x2 = vld1q_f32(x + i + 8),
                        x3 = vld1q_f32(x + i + 12);
      nan = vorrq_u32(nan, vorrq_u32(vorrq_u32(vmvnq_u32(vceqq_f32(x0, x0)), vmvnq_u32(vceqq_f32(x1, x1))),
                                     vorrq_u32(vmvnq_u32(vceqq_f32(x2, x2)), vmvnq_u32(vceqq_f32(x3, x3)))));
      v0 = n_keep_max(v0, x0);
      v1 = n_keep_max(v1, x1);
      v2 = n_keep_max(v2, x2);
      v3 = n_keep_max(v3, x3);
    }
    float acc[16];
    vst1q_f32(acc, v0);
    vst1q_f32(acc + 4, v1);
    vst1q_f32(acc + 8, v2);
    vst1q_f32(acc + 12, v3);
    for (int j = 0; j < 16; j++) m = m > acc[j] ? m : acc[j];
  }
  bool any_nan = vmaxvq_u32(nan) != 0;
  for (; i < n; i++) {
    any_nan |= isnan(x[i]);
    m = m > x[i] ? m : x[i];
  }
  if (any_nan)
    for (int64_t j = 0; j < n; j++)
      if (isnan(x[j])) return x[j];
  return m;
}

/* 2x2 stride-2 max pooling rows (the generic fast path's window) four
 * outputs at a time: the generic order as masks (the first maximum wins, a
 * later value only when greater or NaN), the index as an offset 0, 1, IW
 * or IW + 1 from the window's corner. Other rows go through the generic
 * function one row at a time (a shifted top padding selects the row). */
static inline uint32x4_t n_pool_take(float32x4_t m, float32x4_t v) {
  return vorrq_u32(vcgtq_f32(v, m), vmvnq_u32(vceqq_f32(v, v)));
}

static void n_maxpool_plane(const o_win2d *g, const float *x, float *y, int64_t *idx) {
  const int64_t OW = g->OW, IW = g->IW;
  const bool fast_cols = g->KH == 2 && g->KW == 2 && g->sw == 2 && g->pw == 0 && g->dh == 1 && g->dw == 1 &&
                         2 * OW <= IW && OW >= 4;
  const uint32x4_t one = vdupq_n_u32(1), below = vdupq_n_u32((uint32_t)IW),
                   below1 = vdupq_n_u32((uint32_t)IW + 1);
  if (!fast_cols) {
    kern_c.maxpool_plane(g, x, y, idx);
    return;
  }
  for (int64_t oh = 0; oh < g->OH; oh++) {
    const int64_t h0 = oh * g->sh - g->ph;
    float *yr = y + oh * OW;
    int64_t *ir = idx ? idx + oh * OW : NULL;
    if (h0 < 0 || h0 + 1 >= g->IH) {
      o_win2d row = *g;
      row.OH = 1;
      row.ph = g->ph - oh * g->sh;
      kern_c.maxpool_plane(&row, x, yr, ir);
      continue;
    }
    const float *r0 = x + h0 * IW, *r1 = r0 + IW;
    int64_t ow = 0;
    /* vld2q reads columns 2ow .. 2ow + 7, all inside the window's columns */
    for (; ow + 4 <= OW; ow += 4) {
      const float32x4x2_t p0 = vld2q_f32(r0 + 2 * ow), p1 = vld2q_f32(r1 + 2 * ow);
      float32x4_t m = p0.val[0];
      uint32x4_t off = vdupq_n_u32(0), t = n_pool_take(m, p0.val[1]);
      m = vbslq_f32(t, p0.val[1], m), off = vbslq_u32(t, one, off);
      t = n_pool_take(m, p1.val[0]);
      m = vbslq_f32(t, p1.val[0], m), off = vbslq_u32(t, below, off);
      t = n_pool_take(m, p1.val[1]);
      m = vbslq_f32(t, p1.val[1], m), off = vbslq_u32(t, below1, off);
      vst1q_f32(yr + ow, m);
      if (ir) {
        const int64_t c = h0 * IW + 2 * ow;
        const int64x2_t lo = vsetq_lane_s64(c + 2, vdupq_n_s64(c), 1),
                        hi = vsetq_lane_s64(c + 6, vdupq_n_s64(c + 4), 1);
        vst1q_s64(ir + ow, vaddq_s64(lo, vreinterpretq_s64_u64(vmovl_u32(vget_low_u32(off)))));
        vst1q_s64(ir + ow + 2, vaddq_s64(hi, vreinterpretq_s64_u64(vmovl_u32(vget_high_u32(off)))));
      }
    }
    for (; ow < OW; ow++) {
      float m = r0[2 * ow];
      int64_t mi = h0 * IW + 2 * ow;
      float v = r0[2 * ow + 1];
      if (v > m || isnan(v)) m = v, mi = h0 * IW + 2 * ow + 1;
      v = r1[2 * ow];
      if (v > m || isnan(v)) m = v, mi = (h0 + 1) * IW + 2 * ow;
      v = r1[2 * ow + 1];
      if (v > m || isnan(v)) m = v, mi = (h0 + 1) * IW + 2 * ow + 1;
      yr[ow] = m;
      if (ir) ir[ow] = mi;
    }
  }
}

static void n_dw3x3_padded(const float *xp, int64_t Wp, int64_t OH, int64_t OW, int64_t s, int64_t d,
                           const float *w, float bias, float *y) {
  if (d != 1 || (s != 1 && s != 2)) {
    kern_c.dw3x3_padded(xp, Wp, OH, OW, s, d, w, bias, y);
    return;
  }
  const float32x4_t bv = vdupq_n_f32(bias);
  float32x4_t wv[9];
  for (int t = 0; t < 9; t++) wv[t] = vdupq_n_f32(w[t]);
  for (int64_t oh = 0; oh < OH; oh++) {
    const float *r[3] = {xp + oh * s * Wp, xp + oh * s * Wp + Wp, xp + oh * s * Wp + 2 * Wp};
    float *yr = y + oh * OW;
    int64_t ow = 0;
    if (s == 1) {
      for (; ow + 4 <= OW; ow += 4) {
        /* bias + w0*x0 + w1*x1 + ... left to right, as the generic row */
        float32x4_t acc = bv;
        for (int k = 0; k < 3; k++) {
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k], vld1q_f32(r[k] + ow)));
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k + 1], vld1q_f32(r[k] + ow + 1)));
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k + 2], vld1q_f32(r[k] + ow + 2)));
        }
        vst1q_f32(yr + ow, acc);
      }
    } else {
      /* columns 2ow, 2ow+1 from one de-interleaving load, 2ow+2 from the
       * next; that one reads 2ow+9, inside the row while ow+4 < OW */
      for (; ow + 5 <= OW; ow += 4) {
        float32x4_t acc = bv;
        for (int k = 0; k < 3; k++) {
          const float32x4x2_t p = vld2q_f32(r[k] + 2 * ow), q = vld2q_f32(r[k] + 2 * ow + 2);
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k], p.val[0]));
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k + 1], p.val[1]));
          acc = vaddq_f32(acc, vmulq_f32(wv[3 * k + 2], q.val[0]));
        }
        vst1q_f32(yr + ow, acc);
      }
    }
    /* the rest of the row: the generic expression on the remaining columns */
    if (ow < OW) {
      const float *r0 = r[0] + ow * s, *r1 = r[1] + ow * s, *r2 = r[2] + ow * s;
      for (int64_t o = 0; o < OW - ow; o++) {
        const int64_t c = o * s;
        yr[ow + o] = bias + w[0] * r0[c] + w[1] * r0[c + 1] + w[2] * r0[c + 2] + w[3] * r1[c] +
                     w[4] * r1[c + 1] + w[5] * r1[c + 2] + w[6] * r2[c] + w[7] * r2[c + 1] + w[8] * r2[c + 2];
      }
    }
  }
}

static void n_gather(float *dst, const float *src, int64_t n, int64_t stride) {
  int64_t j = 0;
  if (stride == 1) {
    for (; j + 4 <= n; j += 4) vst1q_f32(dst + j, vld1q_f32(src + j));
  } else if (stride == 2) {
    /* the load reads src[2j + 7]: inside while j + 4 < n */
    for (; j + 5 <= n; j += 4) vst1q_f32(dst + j, vld2q_f32(src + 2 * j).val[0]);
  } else {
    kern_c.gather(dst, src, n, stride);
    return;
  }
  for (; j < n; j++) dst[j] = src[j * stride];
}

const o_kern_table o_kern_neon = {n_binary, n_unary, n_scale_shift, k_dw_plane,     n_maxpool_plane, n_sum,
                                  n_max,    n_sqdev, k_norm_affine, n_dw3x3_padded, n_gather,        "neon"};
#else
#include "kern.h"
/* Not on this architecture: k_isa_get() never picks NEON here. */
const o_kern_table o_kern_neon = {.name = "neon"};
#endif
