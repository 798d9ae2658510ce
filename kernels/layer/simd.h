/* The layer's code built per instruction set (the GEMM microkernels in
 * gemm_<isa>.c, the 4-byte transposes in transpose_<isa>.c, each file with
 * its ISA's flags; called only when the CPU has it). Internal to
 * kernels/layer. */
#ifndef PTERUN_KLAYER_SIMD_H
#define PTERUN_KLAYER_SIMD_H

#include "klayer.h"

typedef struct k_tile_epi {
  float alpha, beta;
  const float *rb; /* MR row biases or NULL */
  const float *cb; /* NR column biases or NULL */
  bool accumulate;
} k_tile_epi;

/* A full MR x NR tile: c[i*ldc + j] = epilogue(sum_k a[k*MR+i] * b[k*NR+j]). */
typedef void (*k_ukr_fn)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                         const k_tile_epi *e);
/* y[0..n) += a * x[0..n) (the one- and two-row products). */
typedef void (*k_axpy_fn)(float *y, const float *x, float a, int64_t n);
/* A few rows of A in place over np panels of B packed at load (the rows
 * kernels below: k_ukr_avx2_rows_a, k_ukr_avx512_rows_a). */
typedef void (*k_rows_fn)(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                          const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                          const float *clamp);

void k_ukr_generic_4x16(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                        const k_tile_epi *e);
void k_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e);
/* The AVX2 tile with A read in place, down m rows (any count): rows a,
 * a + lda, ..., 4 a tile (a last tile's missing rows repeat its last row,
 * computed, never stored), each contiguous along k; rows [0, m) and
 * columns [0, nr) stored as k_ukr_avx2_4x24 stores them (B's panel is zero
 * past nr; e->rb, when set, holds m row biases), clamped to [clamp[0],
 * clamp[1]] unless clamp is NULL. */
void k_ukr_avx2_4x24_a(int64_t kc, const float *a, int64_t lda, int64_t m, int64_t nr, const float *b,
                       float *c, int64_t ldc, const k_tile_epi *e, const float *clamp);
/* 1 or 2 rows (mr) of A in place over np (1 or 2) B panels, b + p * bstride,
 * all rows' and panels' outputs at once (one FMA chain per output, in k
 * order, as the 4-row tile sums); columns [0, nr) of the last panel
 * stored, the epilogue and clamp as k_ukr_avx2_4x24_a's. */
void k_ukr_avx2_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                       const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                       const float *clamp);
/* Rows a, a + lda, a + 2 lda, a + 3 lda (kc floats each) packed as the AVX2
 * tile reads them: dst[k * 4 + i]. */
void k_pack_a4_avx2(const float *a, int64_t lda, int64_t kc, float *dst);
void k_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
                       const k_tile_epi *e);
/* The same tile with A read in place: rows a, a + lda, ... (rows from mr on
 * repeat row mr - 1, computed, never stored), each contiguous along k;
 * columns [0, nr) of c written (B's panel is zero past them), clamped to
 * [clamp[0], clamp[1]] unless clamp is NULL. */
/* npf cache lines from pf (the next panel of a B packed at load, which
 * comes from memory) are prefetched on the way, one per k step. */
void k_ukr_avx512_8x32_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t nr, const float *b,
                         float *c, int64_t ldc, const k_tile_epi *e, const float *clamp, const char *pf,
                         int64_t npf);
/* 1..4 rows (mr) of A in place over np B panels packed at load (b + p *
 * bstride; np <= 4 / mr rounded up to 1, 2 or 4 rows), one FMA chain per
 * output in k order as the 8-row tile sums (a decode step's one row: the
 * tile ran two chains, latency-bound, for 8 rows of which 7 were copies);
 * columns [0, nr) of the last panel stored, clamped as the tile's. */
void k_ukr_avx512_rows_a(int64_t kc, const float *a, int64_t lda, int64_t mr, int64_t np, int64_t nr,
                         const float *b, int64_t bstride, float *c, int64_t ldc, const k_tile_epi *e,
                         const float *clamp);
void k_ukr_neon_8x12(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const k_tile_epi *e);
void k_axpy_generic(float *y, const float *x, float a, int64_t n);
void k_axpy_avx2(float *y, const float *x, float a, int64_t n);
void k_axpy_avx512(float *y, const float *x, float a, int64_t n);
void k_axpy_neon(float *y, const float *x, float a, int64_t n);

/* C of a small product computed straight from A and B, no packing (B with
 * unit column stride, C with unit column stride, K > 0). */
void k_sgemm_direct_avx2(const k_sgemm_desc *g);
void k_sgemm_direct_avx512(const k_sgemm_desc *g);
void k_sgemm_direct_neon(const k_sgemm_desc *g);
/* out[i][j] = sum_k a[i][k] * b[j][k], i < mr (AVX-512: 1 or 4 rows, AVX2:
 * 1 or 2, NEON: 1 or 4), j < 4; rows of a and b contiguous along k. */
typedef void (*k_dot_tile_fn)(int64_t K, const float *const a[4], const float *const b[4], int mr,
                              float out[4][4]);
void k_dot_tile_avx512(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]);
void k_dot_tile_avx2(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]);
void k_dot_tile_neon(int64_t K, const float *const a[4], const float *const b[4], int mr, float out[4][4]);

/* dst[i * dd + j] = src[i + j * sc] for 4-byte elements, R x C. */
void k_transpose4_avx2(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C);
void k_transpose4_neon(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C);

/* Output row (n, oy) of a float32 depthwise convolution (dwconv_f32.c). */
void k_dwconv_f32_row_avx512(const k_dwconv_f32_desc *d, int64_t n, int64_t oy);
void k_dwconv_f32_row_avx2(const k_dwconv_f32_desc *d, int64_t n, int64_t oy);
/* Output row (n, oy) of a float32 short-reduction convolution (conv_f32.c). */
void k_conv_f32_row_avx2(const k_conv_f32_desc *d, int64_t n, int64_t oy);
void k_conv_f32_row_avx512(const k_conv_f32_desc *d, int64_t n, int64_t oy);

#endif
