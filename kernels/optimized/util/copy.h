/* What the copy operators (permute_copy, expand, slice, cat, view, clone)
 * accept; the strided copy itself is the kernel layer's k_copy (klayer.h).
 * Internal to kernels_optimized. */
#ifndef PTERUN_OPT_COPY_H
#define PTERUN_OPT_COPY_H

#include "opt_util.h"

/* Accept-time: a tensor whose elements k_copy moves with the fast paths (1,
 * 2, 4 or 8 bytes), in default order. */
static inline bool o_copyable(const pte_tensor *t) {
  size_t s = t ? pte_dtype_size(t->dtype) : 0;
  return t && (s == 1 || s == 2 || s == 4 || s == 8) && k_default_order(t);
}

#endif
