/* aten::ne.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::ne.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self != other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(ne_f32, float, uint8_t, a != b)
K_ROW_FN(ne_f64, double, uint8_t, a != b)
K_ROW_FN(ne_i64, int64_t, uint8_t, a != b)
K_ROW_FN(ne_bool, uint8_t, uint8_t, a != b)
static const k_row_fns ne_fns = {{ne_f32, ne_f64, ne_i64, ne_bool}};

static pte_status ne_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &ne_fns, EW_PRED, NULL);
}

static pte_status ne_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &ne_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(ne_tensor_out, "aten::ne.Tensor_out")
PTE_PORTABLE_KERNEL(ne_scalar_out, "aten::ne.Scalar_out")
