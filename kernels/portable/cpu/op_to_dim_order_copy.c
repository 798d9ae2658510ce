/* dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False,
 *                                       int[]? dim_order=None, Tensor(a!) out)
 * Converts to out's dtype (ATen cast semantics: float → int truncates toward
 * zero, anything → bool is `!= 0`) and out's dim order; a given dim_order
 * must match out's. Same dtype and layout is a plain memcpy. */
#include "util/copy_util.h"

static pte_status to_dim_order_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  bool non_blocking = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_bool(ctx, args, 1, &non_blocking));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dtype != out->dtype) { /* same-dtype copies are byte copies: any dtype */
    K_CHECK(kc_movable_cast(ctx, self->dtype, out->dtype));
  }
  K_CHECK(k_out_like(ctx, out, self));
  K_CHECK(kc_check_dim_order(ctx, args, 2, out));
  kc_copy_tensor(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(to_dim_order_copy_out, "dim_order_ops::_to_dim_order_copy.out")
