/* Helpers shared by the backward (gradient) kernels that the joint
 * forward-backward export emits. They accumulate in double through the
 * element accessors, so one loop serves every float dtype. */
#ifndef PTERUN_BACKWARD_UTIL_H
#define PTERUN_BACKWARD_UTIL_H

#include "kernel_util.h"

/* Fail unless t is a contiguous tensor with data of float dtype `dtype`
 * (name in the message). Backward programs plan contiguous gradients; a
 * strided one is refused rather than read wrongly. */
pte_status kb_float_input(pte_kernel_ctx *ctx, const pte_tensor *t, int32_t dtype, const char *name);
/* Fail unless t's shape is (dim, sizes) (name in the message). */
pte_status kb_same_shape(pte_kernel_ctx *ctx, const pte_tensor *t, int32_t dim, const int64_t *sizes,
                         const char *name);
/* Resize `out` like `like` (dtype must match), contiguous, zero-filled. */
pte_status kb_zero_out_like(pte_kernel_ctx *ctx, pte_tensor *out, const pte_tensor *like, const char *name);

/* A bool[3] output mask (argument i) into mask[3]. */
pte_status kb_mask3(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool *mask);
/* Output i when the mask asks for it (a tensor), else NULL (ignored). */
pte_status kb_masked_out(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool wanted, pte_tensor **out);

#endif
