/* aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
 * Index (int64) of the first min along dim, or in the flattened tensor when
 * dim is None; NaN counts as the extreme like in ATen. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status argmin_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  kr_args a;
  K_CHECK(kr_read_args(ctx, args, nargs, KR_OPT_DIM, 1, &a));
  if (a.self->dtype == PTE_BOOL) return K_FAIL("argmin is not implemented for bool");
  return kr_minmax(ctx, a.self, a.dims, a.ndims, a.keepdim, false, NULL, a.out);
}

PTE_PORTABLE_KERNEL(argmin_out, "aten::argmin.out")
