/* aten::all.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out)
 * aten::all.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
 * aten::all.all_out(Tensor self, *, Tensor(a!) out)
 * Logical all over dims (None = all, [] = none); NaN counts as true. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status all_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_DIM, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, false, a.out);
}

static pte_status all_dims_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_OPT_DIMS, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, false, a.out);
}

static pte_status all_all_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_ALL, 1, &a));
  return kr_anyall(ctx, a.self, a.dims, a.ndims, a.keepdim, false, a.out);
}

PTE_PORTABLE_KERNEL(all_out, "aten::all.out")
PTE_PORTABLE_KERNEL(all_dims_out, "aten::all.dims_out")
PTE_PORTABLE_KERNEL(all_all_out, "aten::all.all_out")
