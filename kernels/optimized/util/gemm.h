/* float32 matrix product for mm, addmm, bmm, linear and convolution:
 *
 *   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * (row_bias[i] or col_bias[j])
 *   (or C += alpha * A @ B when `accumulate`)
 *
 * Goto-style: A is packed into MR-row panels and B into NR-column panels in
 * kernel scratch, and a register-blocked microkernel (AVX-512 8x32, AVX2
 * 4x24, or a portable 4x16) computes each MR x NR tile over a KC slice with
 * the tile's accumulators in registers. B can come from a dense matrix or
 * from a packing callback, so convolution packs its im2col columns straight
 * into panels without an intermediate matrix. C has unit column stride.
 * Work is split over the process pool by column panels (and row panels when
 * there are few columns). Internal to kernels_optimized. */
#ifndef PTERUN_OPT_GEMM_H
#define PTERUN_OPT_GEMM_H

#include "opt_util.h"

/* Fill dst[kc][NR] with B[k0 .. k0+kc, j0 .. j0+nr], zero-padding columns
 * nr .. NR. */
typedef void (*o_pack_b_fn)(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                            float *dst);

typedef struct o_gemm {
  int64_t M, N, K;
  const float *a;
  int64_t sa0, sa1;
  const float *b; /* dense B (when pack_b is NULL) */
  int64_t sb0, sb1;
  o_pack_b_fn pack_b;
  const void *pack_user;
  float *c;
  int64_t ldc;
  float alpha, beta;
  const float *row_bias; /* M entries, or NULL */
  const float *col_bias; /* N entries, or NULL */
  bool accumulate;       /* C += alpha * A @ B (C already holds the rest) */
} o_gemm;

/* Scratch bytes o_gemm_run needs for these sizes (whatever the pool size
 * turns out to be, it never uses more). */
size_t o_gemm_scratch(int64_t M, int64_t N, int64_t K);
/* The least o_gemm_run can work with (one thread's share). */
size_t o_gemm_scratch_min(int64_t M, int64_t N, int64_t K);
/* Run it on `bytes` of 64-byte aligned scratch (at least what
 * o_gemm_scratch asked for at load; if the pool grew since, fewer threads
 * share the work). `parallel` false keeps it on the calling thread. */
void o_gemm_run(const o_gemm *g, float *scratch, size_t bytes, bool parallel);

/* ---- microkernels (one per instruction set) ---- */

typedef struct o_tile_epi {
  float alpha, beta;
  const float *rb; /* MR row biases or NULL */
  const float *cb; /* NR column biases or NULL */
  bool accumulate;
} o_tile_epi;

/* A full MR x NR tile: c[i*ldc + j] = epilogue(sum_k a[k*MR+i] * b[k*NR+j]). */
typedef void (*o_ukr_fn)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const o_tile_epi *e);

void o_ukr_generic_4x16(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const o_tile_epi *e);
void o_ukr_avx2_4x24(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const o_tile_epi *e);
void o_ukr_avx512_8x32(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, const o_tile_epi *e);

#endif

/* ---- indirect product for stride-1 convolution ----
 *
 * C[i, q] = sum_k A[i, k] * b[boff[k] + q] (+ row_bias[i]): row k of the
 * right-hand matrix is a contiguous run of the (padded) input starting at
 * boff[k], so a stride-1 convolution needs no im2col at all, the
 * microkernel reads the input directly. Column q of the padded-width
 * output space maps to output element (q / Wp) * OW + q % Wp and is dropped
 * when q % Wp >= OW (the pad columns). `b` must be readable NR_MAX floats
 * past the last column of its last row. */
typedef struct o_igemm {
  int64_t M, K;
  const float *a; /* [M, K] row-major */
  const float *b;
  const int64_t *boff; /* K offsets */
  int64_t Q;           /* columns */
  int64_t Wp, OW;
  float *c; /* output rows of ldc floats */
  int64_t ldc;
  const float *row_bias;
  /* Optional: instead of reading b in place, pack each K x NR column panel
   * with this (into `panels`, o_igemm_panel_bytes(K) per slot, after a
   * table of K offsets in `lin`) and read the panel. For maps so narrow
   * that the pad columns would cost more than packing. */
  o_pack_b_fn pack_b;
  const void *pack_user;
  float *panels;
  int64_t *lin;
} o_igemm;

#define O_GEMM_NR_MAX 32

/* Scratch for the packing variant: one panel per slot plus the offsets. */
size_t o_igemm_panel_bytes(int64_t K);
/* Reads A in place; `slots` bounds the threads that pack panels (1 when
 * pack_b is NULL is fine). */
void o_igemm_run(const o_igemm *g, size_t slots);

/* c[i*ldc + j] = sum_k a[i*lda + k] * b[boff[k] + j] (+ bias[i]) for rows
 * i < mr of the MR x NR tile (A rows past mr repeat row mr-1, unstored).
 * A is read in place: a conv's weights change every call as far as the
 * kernel knows, and packing them cost as much as the products of the
 * narrow layers. */
typedef void (*o_ukr_ind_fn)(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b, const int64_t *boff,
                             float *c, int64_t ldc, const float *bias);
void o_ukr_ind_generic_4x16(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b, const int64_t *boff,
                            float *c, int64_t ldc, const float *bias);
void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b, const int64_t *boff,
                         float *c, int64_t ldc, const float *bias);
void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b, const int64_t *boff,
                           float *c, int64_t ldc, const float *bias);
