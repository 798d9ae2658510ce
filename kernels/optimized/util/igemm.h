/* The indirect product for stride-1 convolution:
 *
 * C[i, q] = sum_k A[i, k] * b[boff[k] + q] (+ row_bias[i]): row k of the
 * right-hand matrix is a contiguous run of the (padded) input starting at
 * boff[k], so a stride-1 convolution needs no im2col at all, the
 * microkernel reads the input directly. Column q of the padded-width
 * output space maps to output element (q / Wp) * OW + q % Wp and is dropped
 * when q % Wp >= OW (the pad columns). `b` must be readable NR_MAX floats
 * past the last column of its last row.
 * The ordinary products run on the kernel layer's k_sgemm (klayer.h).
 * Internal to kernels_optimized. */
#ifndef PTERUN_OPT_IGEMM_H
#define PTERUN_OPT_IGEMM_H

#include "opt_util.h"

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
  k_pack_b_fn pack_b;
  const void *pack_user;
  float *panels;
  int64_t *lin;
} o_igemm;

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
typedef void (*o_ukr_ind_fn)(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                             const int64_t *boff, float *c, int64_t ldc, const float *bias);
void o_ukr_ind_generic_4x16(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                            const int64_t *boff, float *c, int64_t ldc, const float *bias);
void o_ukr_ind_avx2_4x24(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias);
void o_ukr_ind_avx512_8x32(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                           const int64_t *boff, float *c, int64_t ldc, const float *bias);
void o_ukr_ind_neon_8x12(int64_t kc, const float *a, int64_t lda, int64_t mr, const float *b,
                         const int64_t *boff, float *c, int64_t ldc, const float *bias);

#endif
