/* aten::tanh.out(Tensor self, *, Tensor(a!) out)
 *
 * Hyperbolic tangent.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(tanh_f32, float, float, tanhf(a))
K_ROW_FN(tanh_f64, double, double, tanh(a))
static const k_row_fns tanh_fns = {{tanh_f32, tanh_f64, NULL, NULL}};

static pte_status tanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &tanh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(tanh_out, "aten::tanh.out")
