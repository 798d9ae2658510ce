/* Helpers shared by the neural-network kernels of family B (softmax,
 * normalization, pooling). */
#ifndef PTERUN_NN_UTIL_H
#define PTERUN_NN_UTIL_H

#include "kernel_util.h"

/* softmax (or log_softmax when is_log) of `self` along `dim` into `out`
 * (same shape, same float dtype). Uses the max-subtraction trick. */
pte_status kn_softmax(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool is_log);

/* Split `t`'s shape around dim d into outer * size(d) * inner. */
static inline void kn_split(const pte_tensor *t, int32_t d, int64_t *outer, int64_t *len, int64_t *inner) {
  int64_t o = 1, in = 1;
  for (int32_t k = 0; k < d; k++) o *= t->sizes[k];
  for (int32_t k = d + 1; k < t->dim; k++) in *= t->sizes[k];
  *outer = o;
  *len = t->dim ? t->sizes[d] : 1;
  *inner = in;
}

#endif

/* Spatial window parameters of a 2-D pooling op, after ATen's defaulting
 * (an empty stride means the kernel size; one value means both dims). */
typedef struct kn_pool2d {
  int64_t kh, kw, sh, sw, ph, pw, dh, dw;
  bool ceil_mode;
  int64_t N, C, H, W, OH, OW; /* N = 1 for 3-D inputs */
} kn_pool2d;

/* Reads kernel_size, stride, padding (and dilation when dil_arg >= 0) from
 * args, checks them like ATen's pool2d_shape_check and computes the output
 * size. `out_sizes` gets the output shape (rank of the input). */
pte_status kn_pool2d_init(pte_kernel_ctx *ctx, pte_value **args, const pte_tensor *in, int32_t k_arg,
                          int32_t s_arg, int32_t p_arg, int32_t dil_arg, bool ceil_mode, kn_pool2d *p,
                          int64_t *out_sizes);
