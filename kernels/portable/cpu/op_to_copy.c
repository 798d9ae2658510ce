/* aten::_to_copy.out(Tensor self, *, bool non_blocking=False, MemoryFormat? memory_format=None,
 *                    Tensor(a!) out)
 * Converts to out's dtype with ATen's cast semantics (float → int truncates,
 * anything → bool is `!= 0`) and out's layout. */
#include "util/copy_util.h"

static pte_status to_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  bool non_blocking = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_bool(ctx, args, 1, &non_blocking));
  K_CHECK(kc_memory_format(ctx, args, 2, true));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dtype != out->dtype) { /* same-dtype copies are byte copies: any dtype */
    K_CHECK(kc_supported(ctx, self->dtype, "self"));
    K_CHECK(kc_supported(ctx, out->dtype, "out"));
  }
  K_CHECK(k_out_like(ctx, out, self));
  kc_copy_tensor(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(to_copy_out, "aten::_to_copy.out")
