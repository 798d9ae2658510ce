/* aten::bitwise_and.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::bitwise_and.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * a & b in the common dtype (integers and bool only, like ATen). */
#include "util/elementwise_util.h"

K_ROW_FN(bitwise_and_i64, int64_t, int64_t, a &b)
K_ROW_FN(bitwise_and_bool, uint8_t, uint8_t, (a & b) != 0)
static const k_row_fns bitwise_and_fns = {{NULL, NULL, bitwise_and_i64, bitwise_and_bool}};

static pte_status bitwise_and_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &bitwise_and_fns, 0, NULL);
}

static pte_status bitwise_and_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &bitwise_and_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(bitwise_and_tensor_out, "aten::bitwise_and.Tensor_out")
PTE_PORTABLE_KERNEL(bitwise_and_scalar_out, "aten::bitwise_and.Scalar_out")
