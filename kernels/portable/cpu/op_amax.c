/* aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
 * The max over the given dims ([] = all); NaN propagates. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status amax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0;
  bool keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  return kr_minmax(ctx, self, dims, ndims, keepdim, true, out, NULL);
}

PTE_PORTABLE_KERNEL(amax_out, "aten::amax.out")
