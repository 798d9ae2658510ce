/* Body of the o_kern tables (see kern.h): included by kern_generic.c,
 * kern_avx2.c and kern_avx512.c with KERN_TABLE naming the table. Plain
 * loops over contiguous memory that vectorize at -O2/-O3; no reassociation
 * of float math is needed (sums use explicit lanes), so results do not
 * depend on the compiler's fast-math choices. */
#include <math.h>

#include "kern.h"

#define LANES 16

static void k_binary(o_binop op, const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n,
                     float alpha) {
  if (op == O_SUB) {
    alpha = -alpha;
    op = O_ADD;
  }
  if (op == O_ADD && alpha != 1.0f) {
    /* a + alpha*b, product rounded first like ATen's float loop */
    if (sa && sb)
      for (int64_t i = 0; i < n; i++) {
        float t = alpha * b[i];
        o[i] = a[i] + t;
      }
    else if (sa) {
      float t = alpha * b[0];
      for (int64_t i = 0; i < n; i++) o[i] = a[i] + t;
    } else if (sb) {
      float av = a[0];
      for (int64_t i = 0; i < n; i++) {
        float t = alpha * b[i];
        o[i] = av + t;
      }
    } else {
      float t = alpha * b[0];
      for (int64_t i = 0; i < n; i++) o[i] = a[0] + t;
    }
    return;
  }
#define BIN_LOOPS(EXPR)                          \
  if (sa && sb)                                  \
    for (int64_t i = 0; i < n; i++) {            \
      float x = a[i], y = b[i];                  \
      o[i] = EXPR;                               \
    }                                            \
  else if (sa) {                                 \
    const float y = b[0];                        \
    for (int64_t i = 0; i < n; i++) {            \
      float x = a[i];                            \
      o[i] = EXPR;                               \
    }                                            \
  } else if (sb) {                               \
    const float x = a[0];                        \
    for (int64_t i = 0; i < n; i++) {            \
      float y = b[i];                            \
      o[i] = EXPR;                               \
    }                                            \
  } else {                                       \
    const float x = a[0], y = b[0];              \
    for (int64_t i = 0; i < n; i++) o[i] = EXPR; \
  }
  switch (op) {
    case O_ADD: BIN_LOOPS(x + y) break;
    case O_MUL: BIN_LOOPS(x * y) break;
    case O_DIV: BIN_LOOPS(x / y) break;
    default: break;
  }
#undef BIN_LOOPS
}

static void k_unary(o_unop op, const float *x, float *y, int64_t n, float lo, float hi) {
  switch (op) {
    case O_RELU:
      for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v < 0.0f ? 0.0f : v;
      }
      break;
    case O_CLAMP:
      for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        v = v < lo ? lo : v;
        y[i] = v > hi ? hi : v;
      }
      break;
    case O_HARDSWISH:
      /* x * min(max(x + 3, 0), 6) / 6, in ATen's order */
      for (int64_t i = 0; i < n; i++) {
        float v = x[i], t = v + 3.0f;
        t = t < 0.0f ? 0.0f : t;
        t = t > 6.0f ? 6.0f : t;
        y[i] = v * t / 6.0f;
      }
      break;
    case O_HARDSIGMOID:
      for (int64_t i = 0; i < n; i++) {
        float t = x[i] + 3.0f;
        t = t < 0.0f ? 0.0f : t;
        t = t > 6.0f ? 6.0f : t;
        y[i] = t / 6.0f;
      }
      break;
  }
}

static void k_scale_shift(const float *x, float *y, int64_t n, float s, float t) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * s + t;
}

static inline int64_t k_max64(int64_t a, int64_t b) { return a > b ? a : b; }
static inline int64_t k_min64(int64_t a, int64_t b) { return a < b ? a : b; }
/* Output columns [lo, hi) whose input column ow*sw - pw + kw*dw is inside [0, IW). */
static inline void k_valid_cols(const o_win2d *g, int64_t kw, int64_t *lo, int64_t *hi) {
  int64_t shift = kw * g->dw - g->pw; /* iw = ow*sw + shift */
  int64_t l = shift >= 0 ? 0 : (-shift + g->sw - 1) / g->sw;
  /* last valid: ow*sw + shift <= IW - 1 */
  int64_t h = g->IW - 1 - shift < 0 ? 0 : (g->IW - 1 - shift) / g->sw + 1;
  *lo = k_min64(l, g->OW);
  *hi = k_max64(k_min64(h, g->OW), *lo);
}

static void k_dw_plane(const o_win2d *g, const float *x, const float *w, float bias, float *y) {
  const int64_t OW = g->OW;
  for (int64_t oh = 0; oh < g->OH; oh++) {
    float *yr = y + oh * OW;
    for (int64_t ow = 0; ow < OW; ow++) yr[ow] = bias;
    for (int64_t kh = 0; kh < g->KH; kh++) {
      int64_t ih = oh * g->sh - g->ph + kh * g->dh;
      if (ih < 0 || ih >= g->IH) continue;
      const float *xr = x + ih * g->IW;
      for (int64_t kw = 0; kw < g->KW; kw++) {
        const float wv = w[kh * g->KW + kw];
        int64_t lo, hi;
        k_valid_cols(g, kw, &lo, &hi);
        const float *xs = xr + kw * g->dw - g->pw;
        if (g->sw == 1) {
          for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xs[ow];
        } else if (g->sw == 2) {
          for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xs[2 * ow];
        } else {
          const int64_t sw = g->sw;
          for (int64_t ow = lo; ow < hi; ow++) yr[ow] += wv * xs[ow * sw];
        }
      }
    }
  }
}

static void k_maxpool_plane(const o_win2d *g, const float *x, float *y, int64_t *idx) {
  const int64_t OW = g->OW;
  for (int64_t oh = 0; oh < g->OH; oh++) {
    float *yr = y + oh * OW;
    int64_t *ir = idx ? idx + oh * OW : NULL;
    int64_t h0 = oh * g->sh - g->ph;
    /* the common 2x2 stride-2 unpadded window: straight line code */
    if (g->KH == 2 && g->KW == 2 && g->sw == 2 && g->pw == 0 && g->dh == 1 && g->dw == 1 && h0 >= 0 &&
        h0 + 1 < g->IH && 2 * OW <= g->IW) {
      const float *r0 = x + h0 * g->IW, *r1 = r0 + g->IW;
      for (int64_t ow = 0; ow < OW; ow++) {
        /* first maximum wins, NaN wins (ATen: val > max || isnan(val)) */
        float m = r0[2 * ow];
        int64_t mi = h0 * g->IW + 2 * ow;
        float v = r0[2 * ow + 1];
        if (v > m || isnan(v)) {
          m = v;
          mi = h0 * g->IW + 2 * ow + 1;
        }
        v = r1[2 * ow];
        if (v > m || isnan(v)) {
          m = v;
          mi = (h0 + 1) * g->IW + 2 * ow;
        }
        v = r1[2 * ow + 1];
        if (v > m || isnan(v)) {
          m = v;
          mi = (h0 + 1) * g->IW + 2 * ow + 1;
        }
        yr[ow] = m;
        if (ir) ir[ow] = mi;
      }
      continue;
    }
    /* rows of the window inside the input, and the output columns whose
     * whole window is inside: those skip the bounds checks (ResNet's 3x3/2
     * padded pool spends nearly all its time there) */
    int64_t kh0 = 0, kh1 = g->KH;
    while (kh0 < kh1 && h0 + kh0 * g->dh < 0) kh0++;
    while (kh1 > kh0 && h0 + (kh1 - 1) * g->dh >= g->IH) kh1--;
    const int64_t span = (g->KW - 1) * g->dw;
    int64_t c0 = (g->pw + g->sw - 1) / g->sw,
            c1 = g->IW - 1 - span + g->pw < 0 ? 0 : (g->IW - 1 - span + g->pw) / g->sw + 1;
    c1 = k_min64(c1, OW);
    c0 = k_min64(c0, c1);
    if (kh0 < kh1 && g->KH == 3 && g->KW == 3 && g->dw == 1 && g->dh == 1 && kh0 == 0 && kh1 == 3) {
      const float *r0 = x + h0 * g->IW, *r1 = r0 + g->IW, *r2 = r1 + g->IW;
      const int64_t sw = g->sw;
      const int64_t IW = g->IW, base = h0 * IW - g->pw;
      int64_t ow = c0;
      if (sw == 2 && g->pw == 1) {
        /* ResNet's stem pool: the rows split into even and odd columns make
         * each tap a contiguous array, so the select chain vectorizes. Tap
         * columns of output ow: odd[ow - 1], even[ow], odd[ow]. */
        enum { B = 128 };
        float ev[3][B], od[3][B + 1];
        const float *rows[3] = {r0, r1, r2};
        while (ow < c1) {
          const int64_t n = k_min64(B, c1 - ow);
          for (int r = 0; r < 3; r++) {
            const float *src = rows[r] + 2 * ow - 1; /* column 2*ow - 1: odd[ow - 1] */
            for (int64_t j = 0; j <= n; j++) od[r][j] = src[2 * j];
            for (int64_t j = 0; j < n; j++) ev[r][j] = src[2 * j + 1];
          }
          for (int64_t j = 0; j < n; j++) {
            float m = od[0][j];
            int32_t off = 0;
#define MP_TAP(V, OFF)                \
  do {                                \
    const float v = (V);              \
    const int t = (v > m) | (v != v); \
    m = t ? v : m;                    \
    off = t ? (int32_t)(OFF) : off;   \
  } while (0)
            MP_TAP(ev[0][j], 1);
            MP_TAP(od[0][j + 1], 2);
            MP_TAP(od[1][j], IW);
            MP_TAP(ev[1][j], IW + 1);
            MP_TAP(od[1][j + 1], IW + 2);
            MP_TAP(od[2][j], 2 * IW);
            MP_TAP(ev[2][j], 2 * IW + 1);
            MP_TAP(od[2][j + 1], 2 * IW + 2);
#undef MP_TAP
            yr[ow + j] = m;
            if (ir) ir[ow + j] = base + 2 * (ow + j) + off;
          }
          ow += n;
        }
      }
      /* the same order and rule as the checked loop below, as selects
       * instead of branches (a branch per tap mispredicts on real data) */
      for (; ow < c1; ow++) {
        const int64_t w0 = ow * sw - g->pw;
        float m = r0[w0];
        int64_t off = 0;
#define MP_TAP(R, DH, DW)              \
  do {                                 \
    const float v = R[w0 + DW];        \
    const bool t = (v > m) | (v != v); \
    m = t ? v : m;                     \
    off = t ? (DH)*IW + (DW) : off;    \
  } while (0)
        MP_TAP(r0, 0, 1);
        MP_TAP(r0, 0, 2);
        MP_TAP(r1, 1, 0);
        MP_TAP(r1, 1, 1);
        MP_TAP(r1, 1, 2);
        MP_TAP(r2, 2, 0);
        MP_TAP(r2, 2, 1);
        MP_TAP(r2, 2, 2);
#undef MP_TAP
        yr[ow] = m;
        if (ir) ir[ow] = base + ow * sw + off;
      }
    } else if (kh0 < kh1) {
      for (int64_t ow = c0; ow < c1; ow++) {
        const int64_t w0 = ow * g->sw - g->pw;
        float m = 0.0f;
        int64_t mi = -1;
        for (int64_t kh = kh0; kh < kh1; kh++) {
          const int64_t ih = h0 + kh * g->dh;
          const float *r = x + ih * g->IW;
          for (int64_t kw = 0; kw < g->KW; kw++) {
            const int64_t iw = w0 + kw * g->dw;
            float v = r[iw];
            if (mi < 0 || v > m || isnan(v)) {
              m = v;
              mi = ih * g->IW + iw;
            }
          }
        }
        yr[ow] = m;
        if (ir) ir[ow] = mi;
      }
    } else {
      c0 = c1 = 0;
    }
    for (int64_t ow = 0; ow < OW; ow++) {
      if (ow == c0 && c1 > c0) {
        ow = c1 - 1;
        continue;
      }
      int64_t w0 = ow * g->sw - g->pw;
      float m = -INFINITY;
      int64_t mi = -1;
      for (int64_t kh = 0; kh < g->KH; kh++) {
        int64_t ih = h0 + kh * g->dh;
        if (ih < 0 || ih >= g->IH) continue;
        for (int64_t kw = 0; kw < g->KW; kw++) {
          int64_t iw = w0 + kw * g->dw;
          if (iw < 0 || iw >= g->IW) continue;
          float v = x[ih * g->IW + iw];
          /* ATen: the first element, then val > max || isnan(val) */
          if (mi < 0 || v > m || isnan(v)) {
            m = v;
            mi = ih * g->IW + iw;
          }
        }
      }
      yr[ow] = m;
      if (ir) ir[ow] = mi < 0 ? 0 : mi;
    }
  }
}

static float k_sum(const float *x, int64_t n) {
  float acc[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (int j = 0; j < LANES; j++) acc[j] += x[i + j];
  float s = 0.0f;
  for (; i < n; i++) s += x[i];
  for (int w = LANES / 2; w > 0; w /= 2)
    for (int j = 0; j < w; j++) acc[j] += acc[j + w];
  return acc[0] + s;
}

static float k_max(const float *x, int64_t n) {
  float m = -INFINITY;
  int64_t i = 0;
  /* the lanes below drop NaN (comparisons are false), so they also note
   * one (x != x) branch-free: a separate early-exit scan did not vectorize
   * and cost more than the max (a fifth of attention's softmax) */
  int32_t nan = 0;
  if (n >= LANES) {
    float acc[LANES];
    int32_t un[LANES];
    for (int j = 0; j < LANES; j++) acc[j] = x[j], un[j] = x[j] != x[j];
    for (i = LANES; i + LANES <= n; i += LANES)
      for (int j = 0; j < LANES; j++) {
        float v = x[i + j];
        acc[j] = acc[j] > v ? acc[j] : v;
        un[j] |= v != v;
      }
    for (int j = 0; j < LANES; j++) m = m > acc[j] ? m : acc[j], nan |= un[j];
  }
  for (; i < n; i++) m = m > x[i] ? m : x[i], nan |= x[i] != x[i];
  if (nan)
    for (int64_t j = 0; j < n; j++)
      if (isnan(x[j])) return x[j];
  return m;
}

static float k_sqdev(const float *x, int64_t n, float mean) {
  float acc[LANES] = {0};
  int64_t i = 0;
  for (; i + LANES <= n; i += LANES)
    for (int j = 0; j < LANES; j++) {
      float d = x[i + j] - mean;
      acc[j] += d * d;
    }
  float s = 0.0f;
  for (; i < n; i++) {
    float d = x[i] - mean;
    s += d * d;
  }
  for (int w = LANES / 2; w > 0; w /= 2)
    for (int j = 0; j < w; j++) acc[j] += acc[j + w];
  return acc[0] + s;
}

static void k_norm_affine(const float *x, float *y, int64_t n, float m, float r, const float *w,
                          const float *b) {
  for (int64_t i = 0; i < n; i++) {
    float v = (x[i] - m) * r;
    v = v * w[i];
    y[i] = v + b[i];
  }
}

static void k_dw3x3_padded(const float *xp, int64_t Wp, int64_t OH, int64_t OW, int64_t s, int64_t d,
                           const float *w, float bias, float *y) {
  const float w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3], w4 = w[4], w5 = w[5], w6 = w[6], w7 = w[7],
              w8 = w[8];
  for (int64_t oh = 0; oh < OH; oh++) {
    const float *r0 = xp + oh * s * Wp, *r1 = r0 + d * Wp, *r2 = r1 + d * Wp;
    float *yr = y + oh * OW;
#define DW_ROW(S, D)                                                                                       \
  for (int64_t ow = 0; ow < OW; ow++) {                                                                    \
    const int64_t c = ow * (S);                                                                            \
    yr[ow] = bias + w0 * r0[c] + w1 * r0[c + (D)] + w2 * r0[c + 2 * (D)] + w3 * r1[c] + w4 * r1[c + (D)] + \
             w5 * r1[c + 2 * (D)] + w6 * r2[c] + w7 * r2[c + (D)] + w8 * r2[c + 2 * (D)];                  \
  }
    if (s == 1 && d == 1) {
      DW_ROW(1, 1)
    } else if (s == 2 && d == 1) {
      DW_ROW(2, 1)
    } else {
      DW_ROW(s, d)
    }
#undef DW_ROW
  }
}

static void k_gather(float *dst, const float *src, int64_t n, int64_t stride) {
  /* constant strides let the compiler vectorize with permutes */
  if (stride == 1)
    for (int64_t j = 0; j < n; j++) dst[j] = src[j];
  else if (stride == 2)
    for (int64_t j = 0; j < n; j++) dst[j] = src[2 * j];
  else
    for (int64_t j = 0; j < n; j++) dst[j] = src[j * stride];
}

/* KERN_STATIC: the includer wraps this table in one of its own (kern_neon.c). */
#ifdef KERN_STATIC
static
#endif
    const o_kern_table KERN_TABLE = {k_binary,        k_unary,        k_scale_shift, k_dw_plane,
                                     k_maxpool_plane, k_sum,          k_max,         k_sqdev,
                                     k_norm_affine,   k_dw3x3_padded, k_gather,      KERN_NAME};
