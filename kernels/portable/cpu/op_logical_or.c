/* aten::logical_or.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * Truth values of any input dtypes (nonzero, including NaN, is true),
 * broadcast; the output may be of any dtype and receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(logical_or_bool, uint8_t, uint8_t, a || b)
static const k_row_fns logical_or_fns = {{NULL, NULL, NULL, logical_or_bool}};

static pte_status logical_or_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &logical_or_fns, EW_TRUTH, NULL);
}

PTE_PORTABLE_KERNEL(logical_or_out, "aten::logical_or.out")
