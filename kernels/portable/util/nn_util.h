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

/* Contiguous copies of strided tensors in kernel scratch memory, so the
 * contiguous fast paths also serve channels-last (dim-order) tensors. */
static inline size_t kn_pack_bytes(const pte_tensor *t) {
  if (pte_tensor_is_contiguous(t)) return 0;
  return (size_t)pte_tensor_numel(t) * pte_dtype_size(t->dtype) + 64;
}
/* Scratch bytes for packing args[i] for every i in idx[0..n) that is a tensor. */
size_t kn_pack_scratch(pte_value *const *args, int32_t nargs, const int32_t *idx, int32_t n);

typedef struct kn_packer {
  uint8_t *next, *end;
} kn_packer;
void kn_packer_init(pte_kernel_ctx *ctx, kn_packer *p);
/* Make *view a contiguous tensor with t's values: t itself when contiguous,
 * else a copy in scratch (copy_in false: uninitialized, for outputs). */
pte_status kn_pack(pte_kernel_ctx *ctx, kn_packer *p, const pte_tensor *t, bool copy_in, pte_tensor *view);
/* Copy a packed output back into the strided tensor (no-op when not packed). */
void kn_unpack(const pte_tensor *view, pte_tensor *t);
/* True when scratch memory can hold packed copies of the n tensors (NULLs skipped). */
bool kn_pack_fits(pte_kernel_ctx *ctx, const pte_tensor *const *ts, int32_t n);
