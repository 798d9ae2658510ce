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
/* Rows [0, rows) of columns [0, nr) of the tile to c, as u512_store, then
 * clamped to [lo, hi] when `clamp` (max then min: a NaN stays NaN, as
 * gemm.c's clampf leaves it). Past nr nothing is read or written, so a
 * partial tile needs no bounce buffer and no scalar pass. */
static inline __attribute__((always_inline)) void store_nr(__m512 acc[U512_MR][2], int64_t rows, int64_t nr,
                                                           float *c, int64_t ldc, const k_tile_epi *e,
                                                           const float *clamp) {
  const __mmask16 m0 = nr >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << nr) - 1u),
                  m1 = nr >= 32   ? (__mmask16)0xffff
                       : nr <= 16 ? 0
                                  : (__mmask16)((1u << (nr - 16)) - 1u);
  const __m512 alpha = _mm512_set1_ps(e->alpha), beta = _mm512_set1_ps(e->beta);
  __m512 cb0 = _mm512_setzero_ps(), cb1 = _mm512_setzero_ps();
  if (e->cb) {
    cb0 = _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m0, e->cb));
    cb1 = _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m1, e->cb + 16));
  }
  const __m512 lo = _mm512_set1_ps(clamp ? clamp[0] : 0.0f), hi = _mm512_set1_ps(clamp ? clamp[1] : 0.0f);
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
      v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, ci), v0);
      v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, ci + 16), v1);
    }
    if (clamp) {
      v0 = _mm512_min_ps(hi, _mm512_max_ps(lo, v0));
      v1 = _mm512_min_ps(hi, _mm512_max_ps(lo, v1));
    }
    _mm512_mask_storeu_ps(ci, m0, v0);
    _mm512_mask_storeu_ps(ci + 16, m1, v1);
  }
}

/* The k loop over A's rows in place; NV B vectors a step (1: a panel with
 * 16 columns or fewer, MobileNetV2's 16-channel 1x1s, skips the FMAs on its
 * zero half). */
static inline __attribute__((always_inline)) void tile_a(int nv, int64_t kc, const float *const ar[U512_MR],
                                                         const float *b, __m512 acc[U512_MR][2],
                                                         const char *pf, int64_t npf) {
  u512_zero(acc);
  for (int64_t k = 0; k < kc; k++) {
    if (k < npf) _mm_prefetch(pf + k * 64, _MM_HINT_T1);
    const __m512 b0 = _mm512_load_ps(b);
    if (nv == 2) {
      const __m512 b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 8
      for (int i = 0; i < U512_MR; i++) u512_fma_row(acc[i], ar[i][k], b0, b1);
    } else {
#pragma GCC unroll 8
      for (int i = 0; i < U512_MR; i++) acc[i][0] = _mm512_fmadd_ps(_mm512_set1_ps(ar[i][k]), b0, acc[i][0]);
    }
    b += 32;
  }
}

void k_ukr_avx512_8x32_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t nr, const float *b,
                         float *c, int64_t ldc, const k_tile_epi *e, const float *clamp, const char *pf,
                         int64_t npf) {
  const float *ar[U512_MR];
  for (int i = 0; i < U512_MR; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  __m512 acc[U512_MR][2];
  if (nr <= 16) tile_a(1, kc, ar, b, acc, pf, npf);
  else tile_a(2, kc, ar, b, acc, pf, npf);
  if (nr >= 32 && !clamp) u512_store(acc, mr, c, ldc, e);
  else store_nr(acc, mr, nr, c, ldc, e, clamp);
}
/* R rows (1, 2 or 4; rows past mr repeat the last, never stored) over NP
 * panels packed at load (R * NP <= 4): 2 R NP accumulators, 8 when full,
 * each output one FMA chain in k order as in the 8-row tile, so the sums
 * are bit for bit the tile's (which wasted 8 - mr of its 16 FMAs, and at
 * one row ran two chains, latency-bound). B streams from memory, NP
 * panels at once: each prefetched 4 KB ahead, past the page the hardware
 * prefetcher stops at. Columns [0, nr) of the last panel stored. */
U512_INLINE void rows_np(int R, int NP, int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t nr,
                         const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                         const float *clamp) {
  const float *ar[4];
  for (int i = 0; i < 4; i++) ar[i] = a + (i < mr ? i : mr - 1) * lda;
  __m512 acc[4][U512_MR][2];
#pragma GCC unroll 4
  for (int p = 0; p < 4; p++) u512_zero(acc[p]);
  for (int64_t k = 0; k < kc; k++) {
#pragma GCC unroll 4
    for (int p = 0; p < NP; p++) {
      const float *bk = b + p * bstride + k * 32;
      _mm_prefetch((const char *)(bk + 1024), _MM_HINT_T0);
      _mm_prefetch((const char *)(bk + 1040), _MM_HINT_T0);
      const __m512 b0 = _mm512_load_ps(bk), b1 = _mm512_load_ps(bk + 16);
#pragma GCC unroll 4
      for (int i = 0; i < R; i++) u512_fma_row(acc[p][i], ar[i][k], b0, b1);
    }
  }
#pragma GCC unroll 4
  for (int p = 0; p < NP; p++) {
    k_tile_epi ep = *e;
    if (ep.cb) ep.cb += 32 * p;
    const int64_t w = p == NP - 1 ? nr : 32;
    if (w >= 32 && !clamp) u512_store(acc[p], mr, c + 32 * p, ldc, &ep);
    else store_nr(acc[p], mr, w, c + 32 * p, ldc, &ep, clamp);
  }
}

void k_ukr_avx512_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                         const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                         const float *clamp) {
  if (mr == 1) {
    if (np >= 4) rows_np(1, 4, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
    else if (np == 3) rows_np(1, 3, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
    else if (np == 2) rows_np(1, 2, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
    else rows_np(1, 1, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
  } else if (mr == 2) {
    if (np >= 2) rows_np(2, 2, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
    else rows_np(2, 1, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
  } else {
    rows_np(4, 1, kc, a, lda, mr, nr, b, bstride, c, ldc, e, clamp);
  }
}
void k_axpy_avx512(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}

/* ---- small products straight from A and B (see gemm_avx2.c) ---- */

#define D_INLINE static inline __attribute__((always_inline))

/* Lanes [0, n) of 16 (n clamped to 0..16). */
D_INLINE __mmask16 lanes(int64_t n) {
  return n <= 0 ? 0 : n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1u);
}

/* Row i of a block, NV vectors at column j0, through the epilogue of
 * with_bias in gemm.c (the same terms added in the same order). */
D_INLINE void direct_store(const k_sgemm_desc *g, __m512 acc0, __m512 acc1, int nv, const __mmask16 m[2],
                           int64_t i, int64_t j0) {
  const __m512 alpha = _mm512_set1_ps(g->alpha), beta = _mm512_set1_ps(g->beta);
  float *c = g->c + i * g->sc0 + j0;
  for (int v = 0; v < nv; v++) {
    const int64_t j = j0 + 16 * v;
    __m512 x = _mm512_mul_ps(alpha, v ? acc1 : acc0);
    if (g->beta != 0.0f) {
      if (g->row_bias) x = _mm512_add_ps(x, _mm512_set1_ps(g->beta * g->row_bias[i]));
      if (g->col_bias)
        x = _mm512_add_ps(x, _mm512_mul_ps(beta, _mm512_maskz_loadu_ps(m[v], g->col_bias + j)));
      if (g->bias) {
        __m512 bv;
        if (g->sbias1 == 1) {
          bv = _mm512_maskz_loadu_ps(m[v], g->bias + i * g->sbias0 + j);
        } else {
          float t[16] = {0};
          int64_t n = g->N - j < 16 ? g->N - j : 16;
          for (int64_t l = 0; l < n; l++) t[l] = g->bias[i * g->sbias0 + (j + l) * g->sbias1];
          bv = _mm512_loadu_ps(t);
        }
        x = _mm512_add_ps(x, _mm512_mul_ps(beta, bv));
      }
    }
    if (g->accumulate) x = _mm512_add_ps(_mm512_maskz_loadu_ps(m[v], c + 16 * v), x);
    /* lo/hi first: a NaN result stays NaN, as clampf leaves it */
    if (g->clamp) x = _mm512_min_ps(_mm512_set1_ps(g->hi), _mm512_max_ps(_mm512_set1_ps(g->lo), x));
    _mm512_mask_storeu_ps(c + 16 * v, m[v], x);
  }
}

/* A block of MR (4 or 8) rows x 16*NV columns: missing rows repeat the
 * last real one (computed, never stored), missing columns are masked. */
D_INLINE void direct_block(const k_sgemm_desc *g, const float *const ar[8], int mr, int64_t rows, int64_t i0,
                           int64_t j0, int nv, const __mmask16 m[2]) {
  __m512 acc[8][2];
#pragma GCC unroll 8
  for (int i = 0; i < 8; i++) acc[i][0] = acc[i][1] = _mm512_setzero_ps();
  const float *bk = g->b + j0;
  const int64_t sa1 = g->sa1, sb0 = g->sb0;
  for (int64_t k = 0; k < g->K; k++, bk += sb0) {
    const __m512 b0 = _mm512_maskz_loadu_ps(m[0], bk);
    const __m512 b1 = nv > 1 ? _mm512_maskz_loadu_ps(m[1], bk + 16) : b0;
#pragma GCC unroll 8
    for (int i = 0; i < mr; i++) {
      const __m512 av = _mm512_set1_ps(ar[i][k * sa1]);
      acc[i][0] = _mm512_fmadd_ps(av, b0, acc[i][0]);
      if (nv > 1) acc[i][1] = _mm512_fmadd_ps(av, b1, acc[i][1]);
    }
  }
  /* unrolled: the accumulators stay in registers */
#pragma GCC unroll 8
  for (int i = 0; i < mr; i++)
    if (i < rows) direct_store(g, acc[i][0], acc[i][1], nv, m, i0 + i, j0);
}

void k_sgemm_direct_avx512(const k_sgemm_desc *g) {
  for (int64_t i0 = 0; i0 < g->M; i0 += 8) {
    const int64_t rows = g->M - i0 < 8 ? g->M - i0 : 8;
    const float *ar[8];
    for (int64_t i = 0; i < 8; i++) ar[i] = g->a + (i0 + (i < rows ? i : rows - 1)) * g->sa0;
    for (int64_t j0 = 0; j0 < g->N; j0 += 32) {
      const int64_t n = g->N - j0;
      const __mmask16 m[2] = {lanes(n), lanes(n - 16)};
      if (rows > 4) {
        if (n > 16) direct_block(g, ar, 8, rows, i0, j0, 2, m);
        else direct_block(g, ar, 8, rows, i0, j0, 1, m);
      } else {
        if (n > 16) direct_block(g, ar, 4, rows, i0, j0, 2, m);
        else direct_block(g, ar, 4, rows, i0, j0, 1, m);
      }
    }
  }
}

/* ---- products with B stored transposed (linear's weight), as dots ---- */

/* out[i][j] = sum_k a[i][k] * b[j][k] for MR rows (1 or 4) and 4 columns,
 * both operands contiguous along k; the tail of k masked. */
D_INLINE void dot_tile(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  __m512 acc[4][4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) acc[i][j] = _mm512_setzero_ps();
  for (int64_t k = 0; k < K; k += 16) {
    const __mmask16 m = lanes(K - k);
    __m512 bv[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) bv[j] = _mm512_maskz_loadu_ps(m, b[j] + k);
#pragma GCC unroll 4
    for (int i = 0; i < mr; i++) {
      const __m512 av = _mm512_maskz_loadu_ps(m, a[i] + k);
#pragma GCC unroll 4
      for (int j = 0; j < 4; j++) acc[i][j] = _mm512_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < mr; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) out[i][j] = _mm512_reduce_add_ps(acc[i][j]);
}

void k_dot_tile_avx512(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  if (mr == 1) dot_tile(K, a, b, 1, out);
  else dot_tile(K, a, b, 4, out);
}
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                       const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_ukr_avx512_8x32_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t nr, const float *b,
                         float *c, int64_t ldc, const k_tile_epi *e, const float *clamp, const char *pf,
                         int64_t npf) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)nr, (void)b, (void)c, (void)ldc, (void)e, (void)clamp,
      (void)pf, (void)npf;
}
void k_ukr_avx512_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                         const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                         const float *clamp) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)np, (void)nr, (void)b, (void)bstride, (void)c, (void)ldc,
      (void)e, (void)clamp;
}
void k_axpy_avx512(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
void k_sgemm_direct_avx512(const k_sgemm_desc *g) { (void)g; }
void k_dot_tile_avx512(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  (void)K, (void)a, (void)b, (void)mr, (void)out;
}
#endif
