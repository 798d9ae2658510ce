/* aten::detach_copy.out(Tensor self, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status detach_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_out_like(ctx, out, self));
  kc_copy_tensor(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(detach_copy_out, "aten::detach_copy.out")
