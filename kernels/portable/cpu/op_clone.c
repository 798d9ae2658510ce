/* aten::clone.out(Tensor self, *, MemoryFormat? memory_format=None, Tensor(a!) out)
 * Copies into out's layout (its dim order); same dtype. */
#include "util/copy_util.h"

static pte_status clone_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(kc_memory_format(ctx, args, 1, true));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_out_like(ctx, out, self));
  kc_copy_tensor(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(clone_out, "aten::clone.out")
