/* aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
 * aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
 * aten::any.all_out(Tensor self, *, Tensor(a!) out)
 * Logical any over dims (None = all, [] = none); NaN counts as true. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status any_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim = 0;
  bool keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  return kr_anyall(ctx, self, &dim, 1, keepdim, true, out);
}

static pte_status any_dims_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0;
  bool keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  return kr_anyall(ctx, self, dims, ndims, keepdim, true, out);
}

static pte_status any_all_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  return kr_anyall(ctx, self, NULL, -1, false, true, out);
}

PTE_PORTABLE_KERNEL(any_out, "aten::any.out")
PTE_PORTABLE_KERNEL(any_dims_out, "aten::any.dims_out")
PTE_PORTABLE_KERNEL(any_all_out, "aten::any.all_out")
