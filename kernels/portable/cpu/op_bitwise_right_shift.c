/* aten::bitwise_right_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::bitwise_right_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * a >> b in the common dtype, integral dtypes only. Arithmetic for signed dtypes; shifts of 64 bits or
 * more, and negative ones, fill with the sign (ATen shifts by width - 1,
 * the same bits once stored). */
#include "util/elementwise_util.h"

K_ROW_FN(bitwise_right_shift_i64, int64_t, int64_t, a >> (b < 0 || b >= 64 ? 63 : b))
static const k_row_fns bitwise_right_shift_fns = {{NULL, NULL, bitwise_right_shift_i64, NULL}};

static pte_status bitwise_right_shift_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &bitwise_right_shift_fns, EW_NO_BOOL, NULL);
}

static pte_status bitwise_right_shift_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &bitwise_right_shift_fns, EW_NO_BOOL, NULL);
}

PTE_PORTABLE_KERNEL(bitwise_right_shift_tensor_out, "aten::bitwise_right_shift.Tensor_out")
PTE_PORTABLE_KERNEL(bitwise_right_shift_scalar_out, "aten::bitwise_right_shift.Tensor_Scalar_out")
