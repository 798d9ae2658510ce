/* aten::relu.out(Tensor self, *, Tensor(a!) out)
 *
 * max(x, 0) in the input dtype; NaN stays NaN. Bool is rejected like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(relu_f32, float, float, a > 0 ? a : (a != a ? a : 0.0f))
K_ROW_FN(relu_f64, double, double, a > 0 ? a : (a != a ? a : 0.0))
K_ROW_FN(relu_i64, int64_t, int64_t, a > 0 ? a : 0)

static const k_row_fns relu_fns = {{relu_f32, relu_f64, relu_i64, NULL}};

static pte_status relu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &relu_fns, EW_NO_BOOL, NULL);
}

PTE_PORTABLE_KERNEL(relu_out, "aten::relu.out")
