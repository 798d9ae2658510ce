/* AVX2/FMA microkernel: a 4 x 24 tile, 12 ymm accumulators (of 16
 * registers: 3 B vectors and one broadcast remain). Per k step 3 loads and
 * 4 broadcasts feed 12 FMAs. Row panels of 4 fit the channel counts of
 * convolutions (multiples of 4) without padding waste. Compiled with
 * -mavx2 -mfma; only called when the CPU has both. */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps(), c02 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps(), c12 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps(), c22 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps(), c32 = _mm256_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    __m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8), b2 = _mm256_load_ps(b + 16);
    __m256 av;
    av = _mm256_broadcast_ss(a + 0);
    c00 = _mm256_fmadd_ps(av, b0, c00);
    c01 = _mm256_fmadd_ps(av, b1, c01);
    c02 = _mm256_fmadd_ps(av, b2, c02);
    av = _mm256_broadcast_ss(a + 1);
    c10 = _mm256_fmadd_ps(av, b0, c10);
    c11 = _mm256_fmadd_ps(av, b1, c11);
    c12 = _mm256_fmadd_ps(av, b2, c12);
    av = _mm256_broadcast_ss(a + 2);
    c20 = _mm256_fmadd_ps(av, b0, c20);
    c21 = _mm256_fmadd_ps(av, b1, c21);
    c22 = _mm256_fmadd_ps(av, b2, c22);
    av = _mm256_broadcast_ss(a + 3);
    c30 = _mm256_fmadd_ps(av, b0, c30);
    c31 = _mm256_fmadd_ps(av, b1, c31);
    c32 = _mm256_fmadd_ps(av, b2, c32);
    a += 4;
    b += 24;
  }
  __m256 acc[4][3] = {{c00, c01, c02}, {c10, c11, c12}, {c20, c21, c22}, {c30, c31, c32}};
  const __m256 alpha = _mm256_set1_ps(e->alpha), beta = _mm256_set1_ps(e->beta);
  __m256 cb[3] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  if (e->cb)
    for (int j = 0; j < 3; j++) cb[j] = _mm256_mul_ps(beta, _mm256_loadu_ps(e->cb + 8 * j));
  for (int i = 0; i < 4; i++) {
    float *ci = c + i * ldc;
    __m256 r = e->rb ? _mm256_set1_ps(e->beta * e->rb[i]) : _mm256_setzero_ps();
    for (int j = 0; j < 3; j++) {
      __m256 v = _mm256_mul_ps(alpha, acc[i][j]);
      if (e->rb) v = _mm256_add_ps(v, r);
      if (e->cb) v = _mm256_add_ps(v, cb[j]);
      if (e->accumulate) v = _mm256_add_ps(_mm256_loadu_ps(ci + 8 * j), v);
      _mm256_storeu_ps(ci + 8 * j, v);
    }
  }
}
void k_axpy_avx2(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}
#else
void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_axpy_avx2(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
#endif
