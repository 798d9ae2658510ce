/* The avx2 microkernel of the indirect (stride-1 convolution) product
 * (see igemm.h). Compiled with -mavx2 -mfma; only called when the CPU has it. */
#include "igemm.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "ukr_avx2.h"

void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  /* Rows past mr repeat the last one: read, never stored. */
  const float *ar[U256_MR];
  for (int i = 0; i < U256_MR; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  __m256 acc[U256_MR][U256_NV];
  u256_zero(acc);
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    const __m256 bv[U256_NV] = {_mm256_loadu_ps(bk), _mm256_loadu_ps(bk + 8), _mm256_loadu_ps(bk + 16)};
#pragma GCC unroll 4
    for (int i = 0; i < U256_MR; i++) u256_fma_row(acc[i], ar[i] + k, bv);
  }
  const k_tile_epi e = {1.0f, 1.0f, bias, NULL, false};
  u256_store(acc, mr, c, ldc, &e);
}
#else
void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)b, (void)boff, (void)c, (void)ldc, (void)bias;
}
#endif
