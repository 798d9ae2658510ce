/* dim_order_ops::_empty_dim_order.out(int[] size, *, int[]? dim_order=None, Tensor(a!) out)
 * Only shapes the output; dim_order must match out's. */
#include "util/copy_util.h"

static pte_status empty_dim_order_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_int_list(ctx, args, 0, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_out(ctx, out, n, sizes));
  return kc_check_dim_order(ctx, args, 1, out);
}

PTE_PORTABLE_KERNEL(empty_dim_order_out, "dim_order_ops::_empty_dim_order.out")
