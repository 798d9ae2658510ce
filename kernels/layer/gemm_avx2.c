/* AVX2/FMA microkernel: a 4 x 24 tile, 12 ymm accumulators (of 16
 * registers: 3 B vectors and one broadcast remain). Per k step 3 loads and
 * 4 broadcasts feed 12 FMAs. Row panels of 4 fit the channel counts of
 * convolutions (multiples of 4) without padding waste. Compiled with
 * -mavx2 -mfma; only called when the CPU has both. */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include "ukr_avx2.h"

#define D_INLINE static inline __attribute__((always_inline))

/* Lanes [0, n) of 8 on (n clamped to 0..8). */
D_INLINE __m256i lanes(int64_t n) {
  n = n < 0 ? 0 : n > 8 ? 8 : n;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* The tile's k loop over its first NV vectors of B: row i of A at
 * r[i] + k * step (packed panel: r[i] = a + i, step 4; A in place: its
 * rows, step 1). A tile of 16 columns or fewer does 8 or 4 FMAs a k step,
 * not 12 of which a third or more are of the panel's zero padding. */
D_INLINE void tile_k(int nv, int64_t kc, const float *const r[U256_MR], int64_t step, const float *b,
                     __m256 acc[U256_MR][U256_NV]) {
  u256_zero(acc);
  const float *r0 = r[0], *r1 = r[1], *r2 = r[2], *r3 = r[3];
  for (int64_t k = 0; k < kc; k++) {
    __m256 bv[U256_NV];
#pragma GCC unroll 3
    for (int j = 0; j < U256_NV; j++) bv[j] = j < nv ? _mm256_load_ps(b + 8 * j) : _mm256_setzero_ps();
    const float *rk[U256_MR] = {r0, r1, r2, r3};
#pragma GCC unroll 4
    for (int i = 0; i < U256_MR; i++) {
      const __m256 av = _mm256_broadcast_ss(rk[i]);
#pragma GCC unroll 3
      for (int j = 0; j < U256_NV; j++)
        if (j < nv) acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
    }
    r0 += step, r1 += step, r2 += step, r3 += step;
    b += 24;
  }
}

/* Rows [0, rows) and columns [0, nr) of the tile (nv vectors cover nr):
 * u256_store's epilogue in the same order, then the clamp (lo first: a
 * NaN stays NaN, as gemm.c's clampf leaves it). Past nr nothing is read or
 * written, so a partial tile needs no bounce buffer and no scalar pass. */
D_INLINE void store_nr(int nv, __m256 acc[U256_MR][U256_NV], int64_t rows, int64_t nr, float *c, int64_t ldc,
                       const k_tile_epi *e, const float *clamp) {
  __m256i m[U256_NV];
  bool full[U256_NV];
#pragma GCC unroll 3
  for (int j = 0; j < U256_NV; j++) m[j] = lanes(nr - 8 * j), full[j] = nr - 8 * j >= 8;
  const __m256 alpha = _mm256_set1_ps(e->alpha), beta = _mm256_set1_ps(e->beta);
  const __m256 lo = _mm256_set1_ps(clamp ? clamp[0] : 0.0f), hi = _mm256_set1_ps(clamp ? clamp[1] : 0.0f);
  __m256 cb[U256_NV];
#pragma GCC unroll 3
  for (int j = 0; j < U256_NV; j++)
    cb[j] =
        e->cb && j < nv ? _mm256_mul_ps(beta, _mm256_maskload_ps(e->cb + 8 * j, m[j])) : _mm256_setzero_ps();
#pragma GCC unroll 4
  for (int i = 0; i < U256_MR; i++) {
    if (i >= rows) break;
    float *ci = c + i * ldc;
    const __m256 r = e->rb ? _mm256_set1_ps(e->beta * e->rb[i]) : _mm256_setzero_ps();
#pragma GCC unroll 3
    for (int j = 0; j < U256_NV; j++) {
      if (j >= nv) break;
      __m256 v = _mm256_mul_ps(alpha, acc[i][j]);
      if (e->rb) v = _mm256_add_ps(v, r);
      if (e->cb) v = _mm256_add_ps(v, cb[j]);
      if (e->accumulate)
        v = _mm256_add_ps(full[j] ? _mm256_loadu_ps(ci + 8 * j) : _mm256_maskload_ps(ci + 8 * j, m[j]), v);
      if (clamp) v = _mm256_min_ps(hi, _mm256_max_ps(lo, v));
      if (full[j]) _mm256_storeu_ps(ci + 8 * j, v);
      else _mm256_maskstore_ps(ci + 8 * j, m[j], v);
    }
  }
}

void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  const float *const r[U256_MR] = {a, a + 1, a + 2, a + 3};
  __m256 acc[U256_MR][U256_NV];
  tile_k(3, kc, r, U256_MR, b, acc);
  u256_store(acc, U256_MR, c, ldc, e);
}

/* Row tiles of 4 down m rows (the last repeating its last row), NV
 * vectors: one call for a column panel's rows, so that short-K products
 * (a 1x1 convolution's 16 input channels) pay no call and tile setup per
 * 4 x 24 tile. */
D_INLINE void tiles_a(int nv, int64_t kc, const float *a, int64_t lda, int64_t m, int64_t nr, const float *b,
                      float *c, int64_t ldc, const k_tile_epi *e, const float *clamp) {
  k_tile_epi t = *e;
  for (int64_t i0 = 0; i0 < m; i0 += U256_MR, a += U256_MR * lda, c += U256_MR * ldc) {
    const int64_t mr = m - i0 < U256_MR ? m - i0 : U256_MR;
    const float *r[U256_MR];
#pragma GCC unroll 4
    for (int64_t i = 0; i < U256_MR; i++) r[i] = a + (i < mr ? i : mr - 1) * lda;
    __m256 acc[U256_MR][U256_NV];
    tile_k(nv, kc, r, 1, b, acc);
    t.rb = e->rb ? e->rb + i0 : NULL;
    if (nv == 3 && nr >= 24 && !clamp) u256_store(acc, mr, c, ldc, &t);
    else store_nr(nv, acc, mr, nr, c, ldc, &t, clamp);
  }
}

void k_ukr_avx2_4x24_a(int64_t kc, const float *a, int64_t lda, int64_t m, int64_t nr, const float *b,
                       float *c, int64_t ldc, const k_tile_epi *e, const float *clamp) {
  if (nr <= 8) tiles_a(1, kc, a, lda, m, nr, b, c, ldc, e, clamp);
  else if (nr <= 16) tiles_a(2, kc, a, lda, m, nr, b, c, ldc, e, clamp);
  else tiles_a(3, kc, a, lda, m, nr, b, c, ldc, e, clamp);
}
/* One or two rows of A in place over np (1 or 2) panels of B, b + p *
 * bstride (a classifier's or a decode step's product over weights packed
 * at load): the 4-row tile wasted half or three quarters of its FMAs on
 * copies of the rows, here every FMA is useful. Each output keeps one
 * chain of FMAs in k order, as in the 4-row tile (bit for bit the same
 * sums), and 6 or 12 chains hide the FMA latency while B streams in.
 * nr: the columns of the last panel. */
void k_ukr_avx2_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                       const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                       const float *clamp) {
  __m256 acc[2][U256_MR][U256_NV];
#pragma GCC unroll 2
  for (int p = 0; p < 2; p++) u256_zero(acc[p]);
  const float *a0 = a, *a1 = mr > 1 ? a + lda : a;
  const float *b0 = b, *b1 = np > 1 ? b + bstride : b;
  if (mr > 1 && np > 1) {
    for (int64_t k = 0; k < kc; k++, b0 += 24, b1 += 24) {
      const __m256 x0 = _mm256_broadcast_ss(a0 + k), x1 = _mm256_broadcast_ss(a1 + k);
#pragma GCC unroll 3
      for (int j = 0; j < U256_NV; j++) {
        const __m256 v0 = _mm256_load_ps(b0 + 8 * j), v1 = _mm256_load_ps(b1 + 8 * j);
        acc[0][0][j] = _mm256_fmadd_ps(x0, v0, acc[0][0][j]);
        acc[0][1][j] = _mm256_fmadd_ps(x1, v0, acc[0][1][j]);
        acc[1][0][j] = _mm256_fmadd_ps(x0, v1, acc[1][0][j]);
        acc[1][1][j] = _mm256_fmadd_ps(x1, v1, acc[1][1][j]);
      }
    }
  } else if (mr > 1) {
    for (int64_t k = 0; k < kc; k++, b0 += 24) {
      const __m256 x0 = _mm256_broadcast_ss(a0 + k), x1 = _mm256_broadcast_ss(a1 + k);
#pragma GCC unroll 3
      for (int j = 0; j < U256_NV; j++) {
        const __m256 v0 = _mm256_load_ps(b0 + 8 * j);
        acc[0][0][j] = _mm256_fmadd_ps(x0, v0, acc[0][0][j]);
        acc[0][1][j] = _mm256_fmadd_ps(x1, v0, acc[0][1][j]);
      }
    }
  } else {
    for (int64_t k = 0; k < kc; k++, b0 += 24, b1 += 24) {
      const __m256 x0 = _mm256_broadcast_ss(a0 + k);
#pragma GCC unroll 3
      for (int j = 0; j < U256_NV; j++) {
        acc[0][0][j] = _mm256_fmadd_ps(x0, _mm256_load_ps(b0 + 8 * j), acc[0][0][j]);
        if (np > 1) acc[1][0][j] = _mm256_fmadd_ps(x0, _mm256_load_ps(b1 + 8 * j), acc[1][0][j]);
      }
    }
  }
  const int64_t rows = mr > 1 ? 2 : 1;
  if (np > 1) {
    store_nr(3, acc[0], rows, 24, c, ldc, e, clamp);
    k_tile_epi e1 = *e;
    if (e1.cb) e1.cb += 24;
    store_nr(3, acc[1], rows, nr, c + 24, ldc, &e1, clamp);
  } else {
    store_nr(3, acc[0], rows, nr, c, ldc, e, clamp);
  }
}
/* Four rows of A (contiguous along k) into a 4-row panel, dst[k * 4 + i]:
 * 8 k steps at a time by a 4x8 register transpose (the scalar loop stored
 * a float at a time, on the calling thread alone while the pool waited). */
void k_pack_a4_avx2(const float *a, int64_t lda, int64_t kc, float *dst) {
  int64_t k = 0;
  for (; k + 8 <= kc; k += 8, dst += 32) {
    const __m256 r0 = _mm256_loadu_ps(a + k), r1 = _mm256_loadu_ps(a + lda + k),
                 r2 = _mm256_loadu_ps(a + 2 * lda + k), r3 = _mm256_loadu_ps(a + 3 * lda + k);
    const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1),
                 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    /* lanes: (k, k + 4) of each row in turn */
    const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
                 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    _mm256_storeu_ps(dst, _mm256_permute2f128_ps(u0, u1, 0x20));
    _mm256_storeu_ps(dst + 8, _mm256_permute2f128_ps(u2, u3, 0x20));
    _mm256_storeu_ps(dst + 16, _mm256_permute2f128_ps(u0, u1, 0x31));
    _mm256_storeu_ps(dst + 24, _mm256_permute2f128_ps(u2, u3, 0x31));
  }
  for (; k < kc; k++, dst += 4)
    for (int64_t i = 0; i < 4; i++) dst[i] = a[i * lda + k];
}
void k_axpy_avx2(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}

/* ---- small products straight from A and B ---- */

D_INLINE __m256 load_n(const float *p, bool full, __m256i m) {
  return full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, m);
}

/* Row i of a block, NV vectors at column j0, through the epilogue of
 * with_bias in gemm.c (the same terms added in the same order). */
D_INLINE void direct_store(const k_sgemm_desc *g, __m256 acc0, __m256 acc1, int nv, bool full,
                           const __m256i m[2], int64_t i, int64_t j0) {
  const __m256 alpha = _mm256_set1_ps(g->alpha), beta = _mm256_set1_ps(g->beta);
  float *c = g->c + i * g->sc0 + j0;
  for (int v = 0; v < nv; v++) {
    const int64_t j = j0 + 8 * v;
    __m256 x = _mm256_mul_ps(alpha, v ? acc1 : acc0);
    if (g->beta != 0.0f) {
      if (g->row_bias) x = _mm256_add_ps(x, _mm256_set1_ps(g->beta * g->row_bias[i]));
      if (g->col_bias) x = _mm256_add_ps(x, _mm256_mul_ps(beta, load_n(g->col_bias + j, full, m[v])));
      if (g->bias) {
        __m256 bv;
        if (g->sbias1 == 1) {
          bv = load_n(g->bias + i * g->sbias0 + j, full, m[v]);
        } else {
          float t[8] = {0};
          int64_t n = g->N - j < 8 ? g->N - j : 8;
          for (int64_t l = 0; l < n; l++) t[l] = g->bias[i * g->sbias0 + (j + l) * g->sbias1];
          bv = _mm256_loadu_ps(t);
        }
        x = _mm256_add_ps(x, _mm256_mul_ps(beta, bv));
      }
    }
    if (g->accumulate) x = _mm256_add_ps(load_n(c + 8 * v, full, m[v]), x);
    /* lo/hi first: a NaN result stays NaN, as clampf leaves it */
    if (g->clamp) x = _mm256_min_ps(_mm256_set1_ps(g->hi), _mm256_max_ps(_mm256_set1_ps(g->lo), x));
    if (full) _mm256_storeu_ps(c + 8 * v, x);
    else _mm256_maskstore_ps(c + 8 * v, m[v], x);
  }
}

/* A block of 4 rows x 8*NV columns: missing rows repeat the last real one
 * (computed, never stored), missing columns are masked. */
D_INLINE void direct_block(const k_sgemm_desc *g, const float *const ar[4], int64_t rows, int64_t i0,
                           int64_t j0, int nv, bool full, const __m256i m[2]) {
  __m256 acc[4][2];
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
  const float *bk = g->b + j0;
  const int64_t sa1 = g->sa1, sb0 = g->sb0;
  for (int64_t k = 0; k < g->K; k++, bk += sb0) {
    const __m256 b0 = load_n(bk, full, m[0]);
    const __m256 b1 = nv > 1 ? load_n(bk + 8, full, m[1]) : b0;
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      const __m256 av = _mm256_broadcast_ss(ar[i] + k * sa1);
      acc[i][0] = _mm256_fmadd_ps(av, b0, acc[i][0]);
      if (nv > 1) acc[i][1] = _mm256_fmadd_ps(av, b1, acc[i][1]);
    }
  }
  /* unrolled: the accumulators stay in registers */
#pragma GCC unroll 4
  for (int i = 0; i < 4; i++)
    if (i < rows) direct_store(g, acc[i][0], acc[i][1], nv, full, m, i0 + i, j0);
}

void k_sgemm_direct_avx2(const k_sgemm_desc *g) {
  for (int64_t i0 = 0; i0 < g->M; i0 += 4) {
    const int64_t rows = g->M - i0 < 4 ? g->M - i0 : 4;
    const float *ar[4];
    for (int64_t i = 0; i < 4; i++) ar[i] = g->a + (i0 + (i < rows ? i : rows - 1)) * g->sa0;
    for (int64_t j0 = 0; j0 < g->N; j0 += 16) {
      const int64_t n = g->N - j0;
      const __m256i m[2] = {lanes(n), lanes(n - 8)};
      if (n >= 16) direct_block(g, ar, rows, i0, j0, 2, true, m);
      else if (n == 8) direct_block(g, ar, rows, i0, j0, 1, true, m);
      else if (n > 8) direct_block(g, ar, rows, i0, j0, 2, false, m);
      else direct_block(g, ar, rows, i0, j0, 1, false, m);
    }
  }
}

/* ---- products with B stored transposed (linear's weight), as dots ---- */

D_INLINE float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/* out[i][j] = sum_k a[i][k] * b[j][k] for MR rows (1 or 2; 8 accumulators
 * of 16 registers) and 4 columns, both contiguous along k; the tail of k
 * masked. */
D_INLINE void dot_tile(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  __m256 acc[2][4];
#pragma GCC unroll 2
  for (int i = 0; i < 2; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) acc[i][j] = _mm256_setzero_ps();
  for (int64_t k = 0; k < K; k += 8) {
    const bool full = K - k >= 8;
    const __m256i m = lanes(K - k);
    __m256 bv[4];
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) bv[j] = load_n(b[j] + k, full, m);
#pragma GCC unroll 2
    for (int i = 0; i < mr; i++) {
      const __m256 av = load_n(a[i] + k, full, m);
#pragma GCC unroll 4
      for (int j = 0; j < 4; j++) acc[i][j] = _mm256_fmadd_ps(av, bv[j], acc[i][j]);
    }
  }
#pragma GCC unroll 2
  for (int i = 0; i < mr; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) out[i][j] = hsum(acc[i][j]);
}

void k_dot_tile_avx2(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  if (mr == 1) dot_tile(K, a, b, 1, out);
  else dot_tile(K, a, b, 2, out);
}
#else
void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e) {
  (void)kc, (void)a, (void)b, (void)c, (void)ldc, (void)e;
}
void k_ukr_avx2_4x24_a(int64_t kc, const float *a, int64_t lda, int64_t m, int64_t nr, const float *b,
                       float *c, int64_t ldc, const k_tile_epi *e, const float *clamp) {
  (void)kc, (void)a, (void)lda, (void)m, (void)nr, (void)b, (void)c, (void)ldc, (void)e, (void)clamp;
}
void k_pack_a4_avx2(const float *a, int64_t lda, int64_t kc, float *dst) {
  (void)a, (void)lda, (void)kc, (void)dst;
}
void k_ukr_avx2_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                       const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                       const float *clamp) {
  (void)kc, (void)a, (void)lda, (void)mr, (void)np, (void)nr, (void)b, (void)bstride, (void)c, (void)ldc,
      (void)e, (void)clamp;
}
void k_axpy_avx2(float *y, const float *x, float a, int64_t n) { (void)y, (void)x, (void)a, (void)n; }
void k_sgemm_direct_avx2(const k_sgemm_desc *g) { (void)g; }
void k_dot_tile_avx2(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]) {
  (void)K, (void)a, (void)b, (void)mr, (void)out;
}
#endif
