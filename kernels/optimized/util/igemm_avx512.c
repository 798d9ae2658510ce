/* The avx512 microkernel of the indirect (stride-1 convolution) product
 * (see igemm.h). Compiled with -mavx512f; only called when the CPU has it. */
#include "igemm.h"

#if defined(__AVX512F__)
#include "ukr_avx512.h"

void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                           const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  /* Rows past mr repeat the last one: read, never stored. */
  const float *ar[U512_MR];
  for (int i = 0; i < U512_MR; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  __m512 acc[U512_MR][2];
  u512_zero(acc);
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    const __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
#pragma GCC unroll 8
    for (int i = 0; i < U512_MR; i++) u512_fma_row(acc[i], ar[i][k], b0, b1);
  }
  const k_tile_epi e = {1.0f, 1.0f, bias, NULL, false};
  u512_store(acc, mr, c, ldc, &e);
}
#else
void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                           const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)b, (void)boff, (void)c, (void)ldc, (void)bias;
}
#endif
