/* aten::argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
 * Index (int64) of the first max along dim, or in the flattened tensor when
 * dim is None; NaN counts as the extreme like in ATen. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status argmax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim = 0;
  bool has_dim = false, keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int(ctx, args, 1, &dim, &has_dim));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (self->dtype == PTE_BOOL) return K_FAIL("argmax is not implemented for bool");
  return kr_minmax(ctx, self, &dim, has_dim ? 1 : -1, keepdim, true, NULL, out);
}

PTE_PORTABLE_KERNEL(argmax_out, "aten::argmax.out")
