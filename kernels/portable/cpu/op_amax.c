/* aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
 * The max over the given dims ([] = all); NaN propagates. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status amax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_DIMS, 1, &a));
  return kr_minmax(ctx, a.self, a.dims, a.ndims, a.keepdim, true, a.out, NULL);
}

PTE_PORTABLE_KERNEL(amax_out, "aten::amax.out")
