/* NEON microkernel (aarch64): an 8 x 12 tile, 24 q-register accumulators
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
#else
void k_ukr_neon_8x12(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_axpy_neon(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
#endif
