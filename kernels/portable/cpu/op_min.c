/* aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min,
 *                  Tensor(b!) min_values) -> (values, indices)
 * aten::min.unary_out(Tensor self, *, Tensor(a!) out)
 * Values and int64 indices (first occurrence) of the min along dim; the
 * unary form reduces everything to a 0-dim tensor. NaN is the extreme. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status min_dim_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values, *indices;
  int64_t dim = 0;
  bool keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_tensor(ctx, args, 3, &values));
  K_CHECK(k_tensor(ctx, args, 4, &indices));
  if (values == indices) return K_FAIL("values and indices must be different tensors");
  return kr_minmax(ctx, self, &dim, 1, keepdim, false, values, indices);
}

static pte_status min_unary_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  return kr_minmax(ctx, self, NULL, -1, false, false, out, NULL);
}

PTE_PORTABLE_KERNEL(min_dim_out, "aten::min.dim_min")
PTE_PORTABLE_KERNEL(min_unary_out, "aten::min.unary_out")
