/* The avx512 microkernel of the indirect (stride-1 convolution) product
 * (see igemm.h). Compiled with -mavx512f; only called when the CPU has it. */
#include "igemm.h"

#if defined(__AVX512F__)
#include <immintrin.h>

void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                           const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  const float *a0 = a, *a1 = a + (mr > 1 ? 1 : mr - 1) * lda, *a2 = a + (mr > 2 ? 2 : mr - 1) * lda,
              *a3 = a + (mr > 3 ? 3 : mr - 1) * lda, *a4 = a + (mr > 4 ? 4 : mr - 1) * lda,
              *a5 = a + (mr > 5 ? 5 : mr - 1) * lda, *a6 = a + (mr > 6 ? 6 : mr - 1) * lda,
              *a7 = a + (mr > 7 ? 7 : mr - 1) * lda;
  __m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();
  __m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
  __m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();
  __m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();
  __m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();
  __m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();
  __m512 c60 = _mm512_setzero_ps(), c61 = _mm512_setzero_ps();
  __m512 c70 = _mm512_setzero_ps(), c71 = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    const float *bk = b + boff[k];
    __m512 b0 = _mm512_loadu_ps(bk), b1 = _mm512_loadu_ps(bk + 16);
    __m512 av;
    av = _mm512_set1_ps(a0[k]);
    c00 = _mm512_fmadd_ps(av, b0, c00);
    c01 = _mm512_fmadd_ps(av, b1, c01);
    av = _mm512_set1_ps(a1[k]);
    c10 = _mm512_fmadd_ps(av, b0, c10);
    c11 = _mm512_fmadd_ps(av, b1, c11);
    av = _mm512_set1_ps(a2[k]);
    c20 = _mm512_fmadd_ps(av, b0, c20);
    c21 = _mm512_fmadd_ps(av, b1, c21);
    av = _mm512_set1_ps(a3[k]);
    c30 = _mm512_fmadd_ps(av, b0, c30);
    c31 = _mm512_fmadd_ps(av, b1, c31);
    av = _mm512_set1_ps(a4[k]);
    c40 = _mm512_fmadd_ps(av, b0, c40);
    c41 = _mm512_fmadd_ps(av, b1, c41);
    av = _mm512_set1_ps(a5[k]);
    c50 = _mm512_fmadd_ps(av, b0, c50);
    c51 = _mm512_fmadd_ps(av, b1, c51);
    av = _mm512_set1_ps(a6[k]);
    c60 = _mm512_fmadd_ps(av, b0, c60);
    c61 = _mm512_fmadd_ps(av, b1, c61);
    av = _mm512_set1_ps(a7[k]);
    c70 = _mm512_fmadd_ps(av, b0, c70);
    c71 = _mm512_fmadd_ps(av, b1, c71);
  }
  __m512 acc[8][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                      {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  for (int64_t i = 0; i < mr; i++) {
    __m512 v0 = acc[i][0], v1 = acc[i][1];
    if (bias) {
      __m512 bv = _mm512_set1_ps(bias[i]);
      v0 = _mm512_add_ps(v0, bv);
      v1 = _mm512_add_ps(v1, bv);
    }
    _mm512_storeu_ps(c + i * ldc, v0);
    _mm512_storeu_ps(c + i * ldc + 16, v1);
  }
}
#else
void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                           const int64_t *boff, float *c, int64_t ldc, const float *bias) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)b, (void)boff, (void)c, (void)ldc, (void)bias;
}
#endif
