/* The 8 x 32 float tile of the AVX-512 microkernels: the packed GEMM
 * (gemm_avx512.c) and the indirect product (kernels/optimized
 * igemm_avx512.c) differ only in how they load A and B, so the
 * accumulators, the k step and the epilogue are written here once. Include
 * only from files built with -mavx512f. The helpers are always inlined and
 * every index is a constant after unrolling, so the 16 accumulators stay in
 * zmm registers exactly as hand-named locals would. */
#ifndef PTERUN_KLAYER_UKR_AVX512_H
#define PTERUN_KLAYER_UKR_AVX512_H

#include <immintrin.h>

#include "simd.h"

#define U512_MR 8
#define U512_INLINE static inline __attribute__((always_inline))

U512_INLINE void u512_zero(__m512 acc[U512_MR][2]) {
#pragma GCC unroll 8
  for (int i = 0; i < U512_MR; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
}

/* One k step of one row: its A value broadcast once, an FMA per B vector. */
U512_INLINE void u512_fma_row(__m512 acc[2], float a, __m512 b0, __m512 b1) {
  const __m512 av = _mm512_set1_ps(a);
  acc[0] = _mm512_fmadd_ps(av, b0, acc[0]);
  acc[1] = _mm512_fmadd_ps(av, b1, acc[1]);
}

/* Rows [0, rows) of the tile to c: alpha * acc + beta * (rb[i] + cb[j]),
 * added to c when accumulating. Multiplying by alpha = beta = 1 is exact,
 * so a plain "acc + row bias" store is this with those. */
U512_INLINE void u512_store(__m512 acc[U512_MR][2], int64_t rows, float *c, int64_t ldc,
                            const k_tile_epi *e) {
  const __m512 alpha = _mm512_set1_ps(e->alpha), beta = _mm512_set1_ps(e->beta);
  __m512 cb0 = _mm512_setzero_ps(), cb1 = _mm512_setzero_ps();
  if (e->cb) {
    cb0 = _mm512_mul_ps(beta, _mm512_loadu_ps(e->cb));
    cb1 = _mm512_mul_ps(beta, _mm512_loadu_ps(e->cb + 16));
  }
  /* Bounded by MR and unrolled so that the tile never leaves the registers,
   * whatever the row count. */
#pragma GCC unroll 8
  for (int i = 0; i < U512_MR; i++) {
    if (i >= rows) break;
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

#endif
