/* aten::ge.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::ge.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self >= other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(ge_f32, float, uint8_t, a >= b)
K_ROW_FN(ge_f64, double, uint8_t, a >= b)
K_ROW_FN(ge_i64, int64_t, uint8_t, a >= b)
K_ROW_FN(ge_bool, uint8_t, uint8_t, a >= b)
static const k_row_fns ge_fns = {{ge_f32, ge_f64, ge_i64, ge_bool}};

static pte_status ge_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &ge_fns, EW_PRED, NULL);
}

static pte_status ge_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &ge_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(ge_tensor_out, "aten::ge.Tensor_out")
PTE_PORTABLE_KERNEL(ge_scalar_out, "aten::ge.Scalar_out")
