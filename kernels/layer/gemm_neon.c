/* NEON (aarch64): the packed product's microkernel, the small products
 * straight from the operands and the dot products of a transposed B.
 * The microkernel: an 8 x 12 tile, 24 q-register accumulators
 * (of 32: 3 B vectors and 2 A vectors remain). Per k step 5 loads feed 24
 * FMAs by lane, the A values never leave their vectors. NEON is part of the
 * aarch64 baseline, so no per-file flags are needed. */
#include "simd.h"

#if defined(__aarch64__)
#include <arm_neon.h>

void k_ukr_neon_8x12(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  float32x4_t acc[8][3];
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 3; j++) acc[i][j] = vdupq_n_f32(0.0f);
  for (int64_t k = 0; k < kc; k++) {
    const float32x4_t b0 = vld1q_f32(b), b1 = vld1q_f32(b + 4), b2 = vld1q_f32(b + 8);
    const float32x4_t a0 = vld1q_f32(a), a1 = vld1q_f32(a + 4);
#define ROW(i, av, l)                                \
  acc[i][0] = vfmaq_laneq_f32(acc[i][0], b0, av, l); \
  acc[i][1] = vfmaq_laneq_f32(acc[i][1], b1, av, l); \
  acc[i][2] = vfmaq_laneq_f32(acc[i][2], b2, av, l)
    ROW(0, a0, 0);
    ROW(1, a0, 1);
    ROW(2, a0, 2);
    ROW(3, a0, 3);
    ROW(4, a1, 0);
    ROW(5, a1, 1);
    ROW(6, a1, 2);
    ROW(7, a1, 3);
#undef ROW
    a += 8;
    b += 12;
  }
  /* The generic kernel's epilogue, in its order: alpha, row bias, column
   * bias, then the old value when accumulating. */
  const float32x4_t alpha = vdupq_n_f32(e->alpha), beta = vdupq_n_f32(e->beta);
  float32x4_t cb[3] = {vdupq_n_f32(0.0f), vdupq_n_f32(0.0f), vdupq_n_f32(0.0f)};
  if (e->cb)
    for (int j = 0; j < 3; j++) cb[j] = vmulq_f32(beta, vld1q_f32(e->cb + 4 * j));
  for (int i = 0; i < 8; i++) {
    float *ci = c + i * ldc;
    for (int j = 0; j < 3; j++) {
      float32x4_t v = vmulq_f32(alpha, acc[i][j]);
      if (e->rb) v = vaddq_f32(v, vdupq_n_f32(e->beta * e->rb[i]));
      if (e->cb) v = vaddq_f32(v, cb[j]);
      if (e->accumulate) v = vaddq_f32(vld1q_f32(ci + 4 * j), v);
      vst1q_f32(ci + 4 * j, v);
    }
  }
}

void k_axpy_neon(float *y, const float *x, float a, int64_t n) {
  const float32x4_t av = vdupq_n_f32(a);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) vst1q_f32(y + i, vfmaq_f32(vld1q_f32(y + i), vld1q_f32(x + i), av));
  for (; i < n; i++) y[i] += a * x[i];
}

/* ---- small products straight from A and B ---- */

#define D_INLINE static inline __attribute__((always_inline))

/* Four floats at p, the first n of them (n < 4: the rest 0; NEON has no
 * masked load, and the row may end there). */
D_INLINE float32x4_t load_n(const float *p, int64_t n) {
  if (n >= 4) return vld1q_f32(p);
  float32x4_t v = vdupq_n_f32(0.0f);
  if (n > 0) v = vsetq_lane_f32(p[0], v, 0);
  if (n > 1) v = vsetq_lane_f32(p[1], v, 1);
  if (n > 2) v = vsetq_lane_f32(p[2], v, 2);
  return v;
}
D_INLINE void store_n(float *p, float32x4_t v, int64_t n) {
  if (n >= 4) {
    vst1q_f32(p, v);
    return;
  }
  if (n > 0) p[0] = vgetq_lane_f32(v, 0);
  if (n > 1) p[1] = vgetq_lane_f32(v, 1);
  if (n > 2) p[2] = vgetq_lane_f32(v, 2);
}

/* Row i of a block, NV vectors from column j0 (n columns left), through
 * the epilogue of with_bias in gemm.c (the same terms in the same order). */
D_INLINE void direct_store(const k_sgemm_desc *g, const float32x4_t *acc, int nv, int64_t n, int64_t i,
                           int64_t j0) {
  const float32x4_t alpha = vdupq_n_f32(g->alpha), beta = vdupq_n_f32(g->beta);
  float *c = g->c + i * g->sc0 + j0;
  for (int v = 0; v < nv; v++) {
    const int64_t j = j0 + 4 * v, nl = n - 4 * v;
    float32x4_t x = vmulq_f32(alpha, acc[v]);
    if (g->beta != 0.0f) {
      if (g->row_bias) x = vaddq_f32(x, vdupq_n_f32(g->beta * g->row_bias[i]));
      if (g->col_bias) x = vaddq_f32(x, vmulq_f32(beta, load_n(g->col_bias + j, nl)));
      if (g->bias) {
        float32x4_t bv;
        if (g->sbias1 == 1) {
          bv = load_n(g->bias + i * g->sbias0 + j, nl);
        } else {
          float t[4] = {0.0f, 0.0f, 0.0f, 0.0f};
          for (int64_t l = 0; l < (nl < 4 ? nl : 4); l++) t[l] = g->bias[i * g->sbias0 + (j + l) * g->sbias1];
          bv = vld1q_f32(t);
        }
        x = vaddq_f32(x, vmulq_f32(beta, bv));
      }
    }
    if (g->accumulate) x = vaddq_f32(load_n(c + 4 * v, nl), x);
    /* FMAX/FMIN return a NaN operand: a NaN result stays NaN, as clampf leaves it */
    if (g->clamp) x = vminq_f32(vdupq_n_f32(g->hi), vmaxq_f32(vdupq_n_f32(g->lo), x));
    store_n(c + 4 * v, x, nl);
  }
}

/* A block of 4 rows x 4*NV columns (n of them real): missing rows repeat
 * the last real one (computed, never stored); missing columns read as 0. */
D_INLINE void direct_block(const k_sgemm_desc *g, const float *const ar[4], int64_t rows, int64_t i0,
                           int64_t j0, int nv, int64_t n) {
  float32x4_t acc[4][4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) acc[i][v] = vdupq_n_f32(0.0f);
  const float *bk = g->b + j0;
  const int64_t sa1 = g->sa1, sb0 = g->sb0;
  for (int64_t k = 0; k < g->K; k++, bk += sb0) {
    float32x4_t bv[4];
#pragma GCC unroll 4
    for (int v = 0; v < 4; v++) bv[v] = v < nv ? load_n(bk + 4 * v, n - 4 * v) : bv[0];
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      const float32x4_t av = vdupq_n_f32(ar[i][k * sa1]);
#pragma GCC unroll 4
      for (int v = 0; v < 4; v++)
        if (v < nv) acc[i][v] = vfmaq_f32(acc[i][v], bv[v], av);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
    if (i < rows) direct_store(g, acc[i], nv, n, i0 + i, j0);
}

void k_sgemm_direct_neon(const k_sgemm_desc *g) {
  for (int64_t i0 = 0; i0 < g->M; i0 += 4) {
    const int64_t rows = g->M - i0 < 4 ? g->M - i0 : 4;
    const float *ar[4];
    for (int64_t i = 0; i < 4; i++) ar[i] = g->a + (i0 + (i < rows ? i : rows - 1)) * g->sa0;
    for (int64_t j0 = 0; j0 < g->N; j0 += 16) {
      const int64_t n = g->N - j0 < 16 ? g->N - j0 : 16;
      /* the vector count as a constant, so each block keeps its
       * accumulators in registers */
      switch ((n + 3) / 4) {
        case 4: direct_block(g, ar, rows, i0, j0, 4, n); break;
        case 3: direct_block(g, ar, rows, i0, j0, 3, n); break;
        case 2: direct_block(g, ar, rows, i0, j0, 2, n); break;
        default: direct_block(g, ar, rows, i0, j0, 1, n); break;
      }
    }
  }
}

/* ---- products with B stored transposed (linear's weight), as dots ---- */

/* out[i][j] = sum_k a[i][k] * b[j][k] for MR rows (1..4; 16 accumulators
 * of 32 registers) and 4 columns, both contiguous along k; the tail of k
 * (under 4) in scalar, added after the lanes. */
D_INLINE void dot_tile(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  float32x4_t acc[4][4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) acc[i][j] = vdupq_n_f32(0.0f);
  int64_t k = 0;
  for (; k + 4 <= K; k += 4) {
    float32x4_t bv[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) bv[j] = vld1q_f32(b[j] + k);
#pragma GCC unroll 4
    for (int i = 0; i < mr; i++) {
      const float32x4_t av = vld1q_f32(a[i] + k);
#pragma GCC unroll 4
      for (int j = 0; j < 4; j++) acc[i][j] = vfmaq_f32(acc[i][j], av, bv[j]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < mr; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
      float s = vaddvq_f32(acc[i][j]);
      for (int64_t t = k; t < K; t++) s += a[i][t] * b[j][t];
      out[i][j] = s;
    }
}

void k_dot_tile_neon(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  if (mr == 1) dot_tile(K, a, b, 1, out);
  else dot_tile(K, a, b, 4, out);
}
#else
void k_ukr_neon_8x12(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_axpy_neon(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
void k_sgemm_direct_neon(const k_sgemm_desc *g) { (void)g; }
void k_dot_tile_neon(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  (void)K, (void)a, (void)b, (void)mr, (void)out;
}
#endif
