/* AVX-512 microkernel: an 8 x 32 tile, 16 zmm accumulators. Per k step two
 * B vectors are loaded and each of the 8 A values is broadcast once, so the
 * loop issues 16 FMAs for 10 loads: enough independent accumulators to keep
 * both FMA ports busy through the FMA latency. Compiled with -mavx512f;
 * only called when the CPU has it. */
#include "simd.h"

#if defined(__AVX512F__)
#include "ukr_avx512.h"

void k_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                       const k_tile_epi *e) {
  __m512 acc[U512_MR][2];
  u512_zero(acc);
  for (int64_t k = 0; k < kc; k++) {
    const __m512 b0 = _mm512_load_ps(b), b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 8
    for (int i = 0; i < U512_MR; i++) u512_fma_row(acc[i], a[i], b0, b1);
    a += U512_MR;
    b += 32;
  }
  u512_store(acc, U512_MR, c, ldc, e);
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
