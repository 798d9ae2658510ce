/* Strided copies into a contiguous output, for the copy operators exported
 * programs run every inference (permute_copy for each nn.Linear weight and
 * attention head, expand, slice, cat, clone). Dtype-agnostic: elements of
 * 1, 2, 4 or 8 bytes. Internal to kernels_optimized. */
#ifndef PTERUN_OPT_COPY_H
#define PTERUN_OPT_COPY_H

#include "opt_util.h"

/* dst (contiguous, shape sizes[dim]) [i] = src[sum idx_k * strides[k]]
 * (strides in elements, 0 for broadcast). Dims are coalesced first; rows
 * whose source is contiguous become memcpy, a transpose of the last two
 * dims goes through cache-sized tiles, the rest is a strided loop. Large
 * copies are split over the pool. */
void o_copy_strided(size_t esize, int32_t dim, const int64_t *sizes, const int64_t *strides, const void *src, void *dst);

/* dst[i * Cn + j] = src[i + j * sc] for 4-byte elements, R x Cn (AVX2). */
void o_transpose4_avx2(const void *src, int64_t sc, void *dst, int64_t R, int64_t Cn);

/* Accept-time: a tensor whose elements o_copy_strided can move, in default order. */
static inline bool o_copyable(const pte_tensor *t) {
  size_t s = t ? pte_dtype_size(t->dtype) : 0;
  return t && (s == 1 || s == 2 || s == 4 || s == 8) && k_default_order(t);
}

#endif
