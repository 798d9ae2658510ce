/* dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
 *                                     int[]? dim_order=None, Tensor(a!) out)
 * Copies self into out's dim order (e.g. channels-last [0, 2, 3, 1]); a given
 * dim_order must match out's. Same dtype. */
#include "util/copy_util.h"

static pte_status clone_dim_order_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  bool non_blocking = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_bool(ctx, args, 1, &non_blocking));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_out_like(ctx, out, self));
  K_CHECK(kc_check_dim_order(ctx, args, 2, out));
  kc_copy_tensor(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(clone_dim_order_out, "dim_order_ops::_clone_dim_order.out")
