/* AVX-512 microkernel: an 8 x 32 tile, 16 zmm accumulators. Per k step two
 * B vectors are loaded and each of the 8 A values is broadcast once, so the
 * loop issues 16 FMAs for 10 loads: enough independent accumulators to keep
 * both FMA ports busy through the FMA latency. Compiled with -mavx512f;
 * only called when the CPU has it. */
#include "simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>

void k_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                       const k_tile_epi *e) {
  __m512 c00 = _mm512_setzero_ps(), c01 = _mm512_setzero_ps();
  __m512 c10 = _mm512_setzero_ps(), c11 = _mm512_setzero_ps();
  __m512 c20 = _mm512_setzero_ps(), c21 = _mm512_setzero_ps();
  __m512 c30 = _mm512_setzero_ps(), c31 = _mm512_setzero_ps();
  __m512 c40 = _mm512_setzero_ps(), c41 = _mm512_setzero_ps();
  __m512 c50 = _mm512_setzero_ps(), c51 = _mm512_setzero_ps();
  __m512 c60 = _mm512_setzero_ps(), c61 = _mm512_setzero_ps();
  __m512 c70 = _mm512_setzero_ps(), c71 = _mm512_setzero_ps();
  for (int64_t k = 0; k < kc; k++) {
    __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
    __m512 av;
    av = _mm512_set1_ps(a[0]);
    c00 = _mm512_fmadd_ps(av, b0, c00);
    c01 = _mm512_fmadd_ps(av, b1, c01);
    av = _mm512_set1_ps(a[1]);
    c10 = _mm512_fmadd_ps(av, b0, c10);
    c11 = _mm512_fmadd_ps(av, b1, c11);
    av = _mm512_set1_ps(a[2]);
    c20 = _mm512_fmadd_ps(av, b0, c20);
    c21 = _mm512_fmadd_ps(av, b1, c21);
    av = _mm512_set1_ps(a[3]);
    c30 = _mm512_fmadd_ps(av, b0, c30);
    c31 = _mm512_fmadd_ps(av, b1, c31);
    av = _mm512_set1_ps(a[4]);
    c40 = _mm512_fmadd_ps(av, b0, c40);
    c41 = _mm512_fmadd_ps(av, b1, c41);
    av = _mm512_set1_ps(a[5]);
    c50 = _mm512_fmadd_ps(av, b0, c50);
    c51 = _mm512_fmadd_ps(av, b1, c51);
    av = _mm512_set1_ps(a[6]);
    c60 = _mm512_fmadd_ps(av, b0, c60);
    c61 = _mm512_fmadd_ps(av, b1, c61);
    av = _mm512_set1_ps(a[7]);
    c70 = _mm512_fmadd_ps(av, b0, c70);
    c71 = _mm512_fmadd_ps(av, b1, c71);
    a += 8;
    b += 32;
  }
  __m512 acc[8][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31},
                      {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  const __m512 alpha = _mm512_set1_ps(e->alpha), beta = _mm512_set1_ps(e->beta);
  __m512 cb0 = _mm512_setzero_ps(), cb1 = _mm512_setzero_ps();
  if (e->cb) {
    cb0 = _mm512_mul_ps(beta, _mm512_loadu_ps(e->cb));
    cb1 = _mm512_mul_ps(beta, _mm512_loadu_ps(e->cb + 16));
  }
  for (int i = 0; i < 8; i++) {
    float *ci = c + i * ldc;
    __m512 v0 = _mm512_mul_ps(alpha, acc[i][0]), v1 = _mm512_mul_ps(alpha, acc[i][1]);
    if (e->rb) {
      __m512 r = _mm512_set1_ps(e->beta * e->rb[i]);
      v0 = _mm512_add_ps(v0, r);
      v1 = _mm512_add_ps(v1, r);
    }
    if (e->cb) {
      v0 = _mm512_add_ps(v0, cb0);
      v1 = _mm512_add_ps(v1, cb1);
    }
    if (e->accumulate) {
      v0 = _mm512_add_ps(_mm512_loadu_ps(ci), v0);
      v1 = _mm512_add_ps(_mm512_loadu_ps(ci + 16), v1);
    }
    _mm512_storeu_ps(ci, v0);
    _mm512_storeu_ps(ci + 16, v1);
  }
}
void k_axpy_avx512(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                       const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_axpy_avx512(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
#endif
