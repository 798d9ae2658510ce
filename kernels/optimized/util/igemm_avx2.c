/* The avx2 microkernel of the indirect (stride-1 convolution) product
 * (see igemm.h). Compiled with -mavx2 -mfma; only called when the CPU has it. */
#include "igemm.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  const float *a0 = a, *a1 = a + (mr > 1 ? 1 : mr - 1) * lda, *a2 = a + (mr > 2 ? 2 : mr - 1) * lda,
              *a3 = a + (mr > 3 ? 3 : mr - 1) * lda;
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c02 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(), c12 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c22 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c32 = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    __m256 b0 = _mm256_loadu_ps(bk), b1 = _mm256_loadu_ps(bk + 8), b2 = _mm256_loadu_ps(bk + 16);
    __m256 av;
    av = _mm256_broadcast_ss(a0 + k);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    c02 = _mm256_fmadd_ps(av, b2, c02);
    av = _mm256_broadcast_ss(a1 + k);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    c12 = _mm256_fmadd_ps(av, b2, c12);
    av = _mm256_broadcast_ss(a2 + k);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    c22 = _mm256_fmadd_ps(av, b2, c22);
    av = _mm256_broadcast_ss(a3 + k);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    c32 = _mm256_fmadd_ps(av, b2, c32);
  }
  __m256 acc[4][3] = {{c00, c01, c02}, {c10, c11, c12}, {c20, c21, c22}, {c30, c31, c32}};
  for (int64_t i = 0; i < mr; i++) {
    const __m256 bv = _mm256_set1_ps(bias ? bias[i] : 0.0f);
    for (int j = 0; j < 3; j++)
      _mm256_storeu_ps(c + i * ldc + 8 * j, bias ? _mm256_add_ps(acc[i][j], bv) : acc[i][j]);
  }
}
#else
void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)b, (void)boff, (void)c, (void)ldc, (void)bias;
}
#endif
