/* The 4 x 24 float tile of the AVX2/FMA microkernels: the packed GEMM
 * (gemm_avx2.c) and the indirect product (kernels/optimized igemm_avx2.c)
 * differ only in how they load A and B, so the accumulators, the k step and
 * the epilogue are written here once. Include only from files built with
 * -mavx2 -mfma. The helpers are always inlined and every index is a
 * constant after unrolling, so the 12 accumulators stay in ymm registers
 * exactly as hand-named locals would. */
#ifndef PTERUN_KLAYER_UKR_AVX2_H
#define PTERUN_KLAYER_UKR_AVX2_H

#include <immintrin.h>

#include "simd.h"

#define U256_MR 4
#define U256_NV 3 /* B vectors of 8 per row */
#define U256_INLINE static inline __attribute__((always_inline))

U256_INLINE void u256_zero(__m256 acc[U256_MR][U256_NV]) {
#pragma GCC unroll 4
  for (int i = 0; i < U256_MR; i++)
    for (int j = 0; j < U256_NV; j++) acc[i][j] = _mm256_setzero_ps();
}

/* One k step of one row: its A value broadcast once, an FMA per B vector. */
U256_INLINE void u256_fma_row(__m256 acc[U256_NV], const float *a, const __m256 b[U256_NV]) {
  const __m256 av = _mm256_broadcast_ss(a);
#pragma GCC unroll 3
  for (int j = 0; j < U256_NV; j++) acc[j] = _mm256_fmadd_ps(av, b[j], acc[j]);
}

/* Rows [0, rows) of the tile to c: alpha * acc + beta * (rb[i] + cb[j]),
 * added to c when accumulating. Multiplying by alpha = beta = 1 is exact,
 * so a plain "acc + row bias" store is this with those. */
U256_INLINE void u256_store(__m256 acc[U256_MR][U256_NV], int64_t rows, float *c, int64_t ldc,
                            const k_tile_epi *e) {
  const __m256 alpha = _mm256_set1_ps(e->alpha), beta = _mm256_set1_ps(e->beta);
  __m256 cb[U256_NV] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  if (e->cb)
    for (int j = 0; j < U256_NV; j++) cb[j] = _mm256_mul_ps(beta, _mm256_loadu_ps(e->cb + 8 * j));
      /* Bounded by MR and unrolled so that the tile stays in registers. */
#pragma GCC unroll 4
  for (int i = 0; i < U256_MR; i++) {
    if (i >= rows) break;
    float *ci = c + i * ldc;
    __m256 r = e->rb ? _mm256_set1_ps(e->beta * e->rb[i]) : _mm256_setzero_ps();
    for (int j = 0; j < U256_NV; j++) {
      __m256 v = _mm256_mul_ps(alpha, acc[i][j]);
      if (e->rb) v = _mm256_add_ps(v, r);
      if (e->cb) v = _mm256_add_ps(v, cb[j]);
      if (e->accumulate) v = _mm256_add_ps(_mm256_loadu_ps(ci + 8 * j), v);
      _mm256_storeu_ps(ci + 8 * j, v);
    }
  }
}

#endif
