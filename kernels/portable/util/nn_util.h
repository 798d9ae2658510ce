/* Helpers shared by the neural-network kernels of family B (softmax,
 * normalization, pooling). */
#ifndef PTERUN_NN_UTIL_H
#define PTERUN_NN_UTIL_H

#include "kernel_util.h"

/* softmax (or log_softmax when is_log) of `self` along `dim` into `out`
 * (same shape, same float dtype). Uses the max-subtraction trick. */
pte_status kn_softmax(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool is_log);

/* p-norm distances (cdist, pdist): accumulate one |difference| d, then
 * finish; p = 0 counts non-zero differences, p = inf takes the max. */
static inline double kn_dist_acc(double acc, double d, double p) {
  if (p == 0) return acc + (d != 0);
  if (p == 1) return acc + d;
  if (p == 2) return acc + d * d;
  if (isinf(p)) return d > acc || d != d ? d : acc;
  return acc + pow(d, p);
}
static inline double kn_dist_finish(double acc, double p) {
  return p == 0 || p == 1 || isinf(p) ? acc : p == 2 ? sqrt(acc) : pow(acc, 1.0 / p);
}

/* Split `t`'s shape around dim d into outer * size(d) * inner. */
static inline void kn_split(const pte_tensor *t, int32_t d, int64_t *outer, int64_t *len, int64_t *inner) {
  int64_t o = 1, in = 1;
  for (int32_t k = 0; k < d; k++) o *= t->sizes[k];
  for (int32_t k = d + 1; k < t->dim; k++) in *= t->sizes[k];
  *outer = o;
  *len = t->dim ? t->sizes[d] : 1;
  *inner = in;
}

/* Window parameters of a 2-D or 3-D pooling op, after ATen's defaulting (an
 * empty stride means the kernel size; one value means every spatial dim).
 * 2-D pools use a depth of 1 (index 0 of the spatial arrays). */
typedef struct kn_pool {
  int32_t nsp; /* spatial dims: 2 or 3 */
  int64_t k[3], s[3], p[3], d[3];
  bool ceil_mode;
  int64_t planes;        /* N * C (N = 1 for unbatched inputs) */
  int64_t in[3], out[3]; /* D, H, W */
} kn_pool;

/* Reads kernel_size, stride, padding (and dilation when dil_arg >= 0) from
 * args, checks them like ATen's pool shape checks and computes the output
 * size. `out_sizes` gets the output shape (rank of the input, which must be
 * nsp + 1 or nsp + 2). */
pte_status kn_pool_init(pte_kernel_ctx *ctx, pte_value **args, const pte_tensor *in, int32_t nsp,
                        int32_t k_arg, int32_t s_arg, int32_t p_arg, int32_t dil_arg, bool ceil_mode,
                        kn_pool *p, int64_t *out_sizes);
/* Max pooling of contiguous tensors; indices are flat positions within the
 * input plane (d * H * W + h * W + w). NaN wins. */
void kn_max_pool(const kn_pool *p, const pte_tensor *in, pte_tensor *out, pte_tensor *ind);
/* Average pooling of contiguous tensors. */
void kn_avg_pool(const kn_pool *p, const pte_tensor *in, pte_tensor *out, bool count_include_pad,
                 bool has_div, int64_t divisor);

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

/* Whole max_pool{2,3}d_with_indices.out / avg_pool{2,3}d.out kernels (the
 * schemas only differ in the number of spatial dims). */
pte_status kn_max_pool_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp);
pte_status kn_avg_pool_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp);
size_t kn_max_pool_scratch(pte_value *const *args, int32_t nargs);
size_t kn_avg_pool_scratch(pte_value *const *args, int32_t nargs);

#endif
