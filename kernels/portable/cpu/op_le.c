/* aten::le.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::le.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self <= other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(le_f32, float, uint8_t, a <= b)
K_ROW_FN(le_f64, double, uint8_t, a <= b)
K_ROW_FN(le_i64, int64_t, uint8_t, a <= b)
K_ROW_FN(le_bool, uint8_t, uint8_t, a <= b)
static const k_row_fns le_fns = {{le_f32, le_f64, le_i64, le_bool}};

static pte_status le_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &le_fns, EW_PRED, NULL);
}

static pte_status le_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &le_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(le_tensor_out, "aten::le.Tensor_out")
PTE_PORTABLE_KERNEL(le_scalar_out, "aten::le.Scalar_out")
