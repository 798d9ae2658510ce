/* aten::bitwise_not.out(Tensor self, *, Tensor(a!) out)
 *
 * ~x for integers, logical not for bool; floats are rejected like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(bitwise_not_i64, int64_t, int64_t, ~a)
K_ROW_FN(bitwise_not_bool, uint8_t, uint8_t, !a)
static const k_row_fns bitwise_not_fns = {{NULL, NULL, bitwise_not_i64, bitwise_not_bool}};

static pte_status bitwise_not_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &bitwise_not_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(bitwise_not_out, "aten::bitwise_not.out")
