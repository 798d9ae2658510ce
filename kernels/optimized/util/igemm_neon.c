/* The NEON microkernel of the indirect (stride-1 convolution) product (see
 * igemm.h): 8 x 12 like the kernel layer's packed one (24 accumulators of
 * 32 q registers), but A read in place, one broadcast per row, and each k's
 * B row at its own offset. NEON is the aarch64 baseline: no flags. */
#include "igemm.h"

#if defined(__aarch64__)
#include <arm_neon.h>

void o_ukr_ind_neon_8x12(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  /* Rows past mr repeat the last one: read, never stored. */
  const float *ar[8];
  for (int i = 0; i < 8; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  float32x4_t acc[8][3];
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 3; j++) acc[i][j] = vdupq_n_f32(0.0f);
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    const float32x4_t b0 = vld1q_f32(bk), b1 = vld1q_f32(bk + 4), b2 = vld1q_f32(bk + 8);
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
      const float32x4_t av = vdupq_n_f32(ar[i][k]);
      acc[i][0] = vfmaq_f32(acc[i][0], b0, av);
      acc[i][1] = vfmaq_f32(acc[i][1], b1, av);
      acc[i][2] = vfmaq_f32(acc[i][2], b2, av);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) {
    if (i >= mr) break;
    const float32x4_t bv = vdupq_n_f32(bias ? bias[i] : 0.0f);
    for (int j = 0; j < 3; j++) vst1q_f32(c + i * ldc + 4 * j, vaddq_f32(acc[i][j], bv));
  }
}
#else
void o_ukr_ind_neon_8x12(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)b, (void)boff, (void)c, (void)ldc, (void)bias;
}
#endif
