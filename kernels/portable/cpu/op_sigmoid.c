/* aten::sigmoid.out(Tensor self, *, Tensor(a!) out)
 *
 * Logistic function 1 / (1 + exp(-x)).
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(sigmoid_f32, float, float, 1.0f / (1.0f + expf(-a)))
K_ROW_FN(sigmoid_f64, double, double, 1.0 / (1.0 + exp(-a)))
static const k_row_fns sigmoid_fns = {{sigmoid_f32, sigmoid_f64, NULL, NULL}};

static pte_status sigmoid_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &sigmoid_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(sigmoid_out, "aten::sigmoid.out")
