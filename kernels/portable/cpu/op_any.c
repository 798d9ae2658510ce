/* aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
 * aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
 * aten::any.all_out(Tensor self, *, Tensor(a!) out)
 * Logical any over dims (None = all, [] = none); NaN counts as true. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status any_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_DIM, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out);
}

static pte_status any_dims_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_OPT_DIMS, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out);
}

static pte_status any_all_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_ALL, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out);
}

PTE_PORTABLE_KERNEL(any_out, "aten::any.out")
PTE_PORTABLE_KERNEL(any_dims_out, "aten::any.dims_out")
PTE_PORTABLE_KERNEL(any_all_out, "aten::any.all_out")
