/* aten::logical_and.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * Truth values of any input dtypes (nonzero, including NaN, is true),
 * broadcast; the output may be of any dtype and receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(logical_and_bool, uint8_t, uint8_t, a &&b)
static const k_row_fns logical_and_fns = {{NULL, NULL, NULL, logical_and_bool}};

static pte_status logical_and_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &logical_and_fns, EW_TRUTH, NULL);
}

PTE_PORTABLE_KERNEL(logical_and_out, "aten::logical_and.out")
