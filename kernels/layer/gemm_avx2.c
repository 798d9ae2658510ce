/* AVX2/FMA microkernel: a 4 x 24 tile, 12 ymm accumulators (of 16
 * registers: 3 B vectors and one broadcast remain). Per k step 3 loads and
 * 4 broadcasts feed 12 FMAs. Row panels of 4 fit the channel counts of
 * convolutions (multiples of 4) without padding waste. Compiled with
 * -mavx2 -mfma; only called when the CPU has both. */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "ukr_avx2.h"

void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  __m256 acc[U256_MR][U256_NV];
  u256_zero(acc);
  for (int64_t k = 0; k < kc; k++) {
    const __m256 bv[U256_NV] = {_mm256_load_ps(b), _mm256_load_ps(b + 8), _mm256_load_ps(b + 16)};
#pragma GCC unroll 4
    for (int i = 0; i < U256_MR; i++) u256_fma_row(acc[i], a + i, bv);
    a += U256_MR;
    b += 24;
  }
  u256_store(acc, U256_MR, c, ldc, e);
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
