/* aten::bitwise_left_shift.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::bitwise_left_shift.Tensor_Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * a << b in the common dtype, integral dtypes only. Shifts of 64 bits or more, and negative ones, give 0
 * (ATen: a shift by at least the width of the dtype gives 0; computing in
 * int64 and storing truncates to the same result). */
#include "util/elementwise_util.h"

K_ROW_FN(bitwise_left_shift_i64, int64_t, int64_t, b < 0 || b >= 64 ? 0 : (int64_t)((uint64_t)a << b))
static const k_row_fns bitwise_left_shift_fns = {{NULL, NULL, bitwise_left_shift_i64, NULL}};

static pte_status bitwise_left_shift_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &bitwise_left_shift_fns, EW_NO_BOOL, NULL);
}

static pte_status bitwise_left_shift_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &bitwise_left_shift_fns, EW_NO_BOOL, NULL);
}

PTE_PORTABLE_KERNEL(bitwise_left_shift_tensor_out, "aten::bitwise_left_shift.Tensor_out")
PTE_PORTABLE_KERNEL(bitwise_left_shift_scalar_out, "aten::bitwise_left_shift.Tensor_Scalar_out")
