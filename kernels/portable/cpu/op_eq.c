/* aten::eq.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::eq.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self == other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(eq_f32, float, uint8_t, a == b)
K_ROW_FN(eq_f64, double, uint8_t, a == b)
K_ROW_FN(eq_i64, int64_t, uint8_t, a == b)
K_ROW_FN(eq_bool, uint8_t, uint8_t, a == b)
static const k_row_fns eq_fns = {{eq_f32, eq_f64, eq_i64, eq_bool}};

static pte_status eq_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &eq_fns, EW_PRED, NULL);
}

static pte_status eq_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &eq_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(eq_tensor_out, "aten::eq.Tensor_out")
PTE_PORTABLE_KERNEL(eq_scalar_out, "aten::eq.Scalar_out")
