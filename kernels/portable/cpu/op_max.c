/* aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max,
 *                  Tensor(b!) max_values) -> (values, indices)
 * aten::max.unary_out(Tensor self, *, Tensor(a!) out)
 * Values and int64 indices (first occurrence) of the max along dim; the
 * unary form reduces everything to a 0-dim tensor. NaN is the extreme. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status max_dim_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_DIM, 2, &a));
  if (a.out == a.out2) return K_FAIL("values and indices must be different tensors");
  return kr_minmax(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out, a.out2);
}

static pte_status max_unary_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_ALL, 1, &a));
  return kr_minmax(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out, NULL);
}

PTE_PORTABLE_KERNEL(max_dim_out, "aten::max.dim_max")
PTE_PORTABLE_KERNEL(max_unary_out, "aten::max.unary_out")
