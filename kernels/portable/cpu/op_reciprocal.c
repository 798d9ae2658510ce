/* aten::reciprocal.out(Tensor self, *, Tensor(a!) out)
 *
 * 1 / x (integers divide by zero to inf, like ATen).
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(reciprocal_f32, float, float, 1.0f / a)
K_ROW_FN(reciprocal_f64, double, double, 1.0 / a)
static const k_row_fns reciprocal_fns = {{reciprocal_f32, reciprocal_f64, NULL, NULL}};

static pte_status reciprocal_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &reciprocal_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(reciprocal_out, "aten::reciprocal.out")
