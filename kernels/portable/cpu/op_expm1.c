/* aten::expm1.out(Tensor self, *, Tensor(a!) out)
 *
 * exp(x) - 1, accurate near 0.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(expm1_f32, float, float, expm1f(a))
K_ROW_FN(expm1_f64, double, double, expm1(a))
static const k_row_fns expm1_fns = {{expm1_f32, expm1_f64, NULL, NULL}};

static pte_status expm1_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &expm1_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(expm1_out, "aten::expm1.out")
