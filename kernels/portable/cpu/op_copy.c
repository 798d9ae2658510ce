/* aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)
 *   (the exporter's in-place copy for mutable buffers; args: self, src,
 *   non_blocking, return slot)
 * aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
 * src is broadcast to self's shape and converted to the destination dtype. */
#include "util/copy_util.h"

static pte_status copy_broadcast(pte_kernel_ctx *ctx, pte_tensor *dst, const pte_tensor *src) {
  K_CHECK(k_has_data(ctx, src, "src"));
  K_CHECK(kc_movable_cast(ctx, src->dtype, dst->dtype));
  if (src->dim > dst->dim) goto bad;
  for (int32_t k = 0; k < src->dim; k++) {
    int64_t s = src->sizes[k], d = dst->sizes[dst->dim - src->dim + k];
    if (s != d && s != 1) goto bad;
  }
  int64_t strides[PTE_MAX_DIM];
  k_broadcast_strides(src, dst->dim, dst->sizes, strides);
  kc_convert(dst->data, dst->dtype, dst->strides, src->data, src->dtype, strides, dst->dim, dst->sizes);
  return PTE_OK;
bad:;
  char a[160], b[160];
  return K_FAIL("src of shape %s can't be broadcast to %s", pte_shape_str(src->dim, src->sizes, a, sizeof a),
                pte_shape_str(dst->dim, dst->sizes, b, sizeof b));
}

static pte_status copy_(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *src;
  bool non_blocking = false;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &src));
  K_CHECK(k_bool(ctx, args, 2, &non_blocking));
  K_CHECK(k_out_like(ctx, self, self)); /* refuses constants, checks memory */
  return copy_broadcast(ctx, self, src);
}

static pte_status copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *src, *out;
  bool non_blocking = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &src));
  K_CHECK(k_bool(ctx, args, 2, &non_blocking));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, src, NULL));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_out_like(ctx, out, self));
  return copy_broadcast(ctx, out, src);
}

PTE_PORTABLE_KERNEL(copy_, "aten::copy_")
PTE_PORTABLE_KERNEL(copy_out, "aten::copy.out")
