/* The int8 product's aarch64 microkernels (see qgemm.h), 4 rows x 1 panel
 * (16 columns): with the dot-product extension (sdot: 4 signed byte
 * products summed per int32 lane, the packed layout's unit), and plain
 * NEON for CPUs without it (widening byte multiplies, pairs summed into
 * int32, folded per group). Activations stay signed: each group's sums
 * start at -zr * colsum (qgemm.h has the float arithmetic, XNNPACK's). */
#include "qgemm.h"

#if defined(__aarch64__)
#include <arm_neon.h>

#define MR 4

/* The rows, their zr and the float sums' start, ksum * (zp + zoff). */
static inline void rows(const k_qtile *t, const int8_t *a[MR], int32x4_t za[MR], float32x4_t f[MR][4],
                        const int mr) {
  const float *ksum = k_qcol(t->p, t->panel) + K_QNR;
  for (int i = 0; i < mr; i++) {
    a[i] = t->a + i * t->sa;
    za[i] = vdupq_n_s32(k_qzr(t->p, t->qp[i].zero_point));
    const float32x4_t z = vdupq_n_f32((float)(t->qp[i].zero_point + t->p->zoff));
    for (int j = 0; j < 4; j++) f[i][j] = vmulq_f32(vld1q_f32(ksum + 4 * j), z);
  }
}

static int8x16_t bcast4(const int8_t *a, int64_t k, int64_t K, bool tail) {
  int32_t v;
  if (tail) v = k_qload_tail(a, k, K);
  else memcpy(&v, a + k, 4);
  return vreinterpretq_s8_s32(vdupq_n_s32(v));
}

/* f += (sums - zr * colsum) * scale for one group, 16 columns */
static void group_done(float32x4_t f[4], const int32x4_t s[4], int32x4_t za, const int32_t *cs,
                       const float *sc) {
  for (int j = 0; j < 4; j++) {
    int32x4_t v = vmlsq_s32(s[j], za, vld1q_s32(cs + 4 * j));
    f[j] = vfmaq_f32(f[j], vcvtq_f32_s32(v), vld1q_f32(sc + 4 * j));
  }
}

static inline void store(const k_qtile *t, float32x4_t f[MR][4]) {
  const float *bias = k_qbias(t->p, t->panel), *col = k_qcol(t->p, t->panel);
  for (int i = 0; i < t->mr; i++) {
    float tmp[K_QNR];
    const float32x4_t sa = vdupq_n_f32(t->qp[i].scale);
    for (int j = 0; j < 4; j++) {
      float32x4_t v = vfmaq_f32(vld1q_f32(bias + 4 * j), vmulq_f32(f[i][j], sa), vld1q_f32(col + 4 * j));
      if (t->clamp) v = vminq_f32(vmaxq_f32(v, vdupq_n_f32(t->lo)), vdupq_n_f32(t->hi));
      vst1q_f32(tmp + 4 * j, v);
    }
    memcpy(t->c + i * t->sc, tmp, sizeof(float) * (size_t)t->nc);
  }
}

/* Only this function may use sdot: the file is built for the baseline. */
static inline __attribute__((always_inline, target("arch=armv8.2-a+dotprod"))) void body_k_qukr_neondot(
    const k_qtile *t, const int mr) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k, K4 = K / 4 * 4;
  const int8_t *a[MR];
  int32x4_t za[MR];
  float32x4_t f[MR][4];
  rows(t, a, za, f, mr);
  const int8_t *w = k_qw_panel(p, t->panel);
  for (int64_t g = 0; g < p->groups; g++) {
    const int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K;
    int32x4_t s[MR][4];
    for (int i = 0; i < mr; i++)
      for (int j = 0; j < 4; j++) s[i][j] = vdupq_n_s32(0);
    for (int64_t k = k0; k < k1; k += 4) {
      const int8_t *wk = w + k * K_QNR;
      const int8x16_t b0 = vld1q_s8(wk), b1 = vld1q_s8(wk + 16), b2 = vld1q_s8(wk + 32),
                      b3 = vld1q_s8(wk + 48);
      const bool tail = k >= K4;
      for (int i = 0; i < mr; i++) {
        int8x16_t av = bcast4(a[i], k, K, tail);
        s[i][0] = vdotq_s32(s[i][0], b0, av);
        s[i][1] = vdotq_s32(s[i][1], b1, av);
        s[i][2] = vdotq_s32(s[i][2], b2, av);
        s[i][3] = vdotq_s32(s[i][3], b3, av);
      }
    }
    for (int i = 0; i < mr; i++)
      group_done(f[i], s[i], za[i], k_qcsum(p, t->panel) + g * K_QNR, k_qscale(p, t->panel) + g * K_QNR);
  }
  store(t, f);
}

__attribute__((target("arch=armv8.2-a+dotprod"))) void k_qukr_neondot(const k_qtile *t) {
  /* one body per row count: a tile of fewer rows (a decode step's one)
   * computes only its rows */
  switch (t->mr) {
    case 1: body_k_qukr_neondot(t, 1); break;
    case 2: body_k_qukr_neondot(t, 2); break;
    case 3: body_k_qukr_neondot(t, 3); break;
    default: body_k_qukr_neondot(t, MR);
  }
}

static inline __attribute__((always_inline)) void body_k_qukr_neon(const k_qtile *t, const int mr) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k, K4 = K / 4 * 4;
  const int8_t *a[MR];
  int32x4_t za[MR];
  float32x4_t f[MR][4];
  rows(t, a, za, f, mr);
  const int8_t *w = k_qw_panel(p, t->panel);
  for (int64_t g = 0; g < p->groups; g++) {
    const int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K;
    /* per register of 4 columns: columns (0, 1) and (2, 3), each lane a
     * pair of products */
    int32x4_t s[MR][8];
    for (int i = 0; i < mr; i++)
      for (int j = 0; j < 8; j++) s[i][j] = vdupq_n_s32(0);
    for (int64_t k = k0; k < k1; k += 4) {
      const int8_t *wk = w + k * K_QNR;
      const bool tail = k >= K4;
      int8x8_t av[MR];
      for (int i = 0; i < mr; i++) av[i] = vget_low_s8(bcast4(a[i], k, K, tail));
      for (int j = 0; j < 4; j++) {
        const int8x16_t b = vld1q_s8(wk + 16 * j);
        for (int i = 0; i < mr; i++) {
          s[i][2 * j] = vpadalq_s16(s[i][2 * j], vmull_s8(vget_low_s8(b), av[i]));
          s[i][2 * j + 1] = vpadalq_s16(s[i][2 * j + 1], vmull_s8(vget_high_s8(b), av[i]));
        }
      }
    }
    for (int i = 0; i < mr; i++) {
      int32x4_t r[4];
      /* [c0 c0 c1 c1] [c2 c2 c3 c3] -> [c0 c1 c2 c3] */
      for (int j = 0; j < 4; j++) r[j] = vpaddq_s32(s[i][2 * j], s[i][2 * j + 1]);
      group_done(f[i], r, za[i], k_qcsum(p, t->panel) + g * K_QNR, k_qscale(p, t->panel) + g * K_QNR);
    }
  }
  store(t, f);
}

void k_qukr_neon(const k_qtile *t) {
  /* one body per row count: a tile of fewer rows (a decode step's one)
   * computes only its rows */
  switch (t->mr) {
    case 1: body_k_qukr_neon(t, 1); break;
    case 2: body_k_qukr_neon(t, 2); break;
    case 3: body_k_qukr_neon(t, 3); break;
    default: body_k_qukr_neon(t, MR);
  }
}
#endif
