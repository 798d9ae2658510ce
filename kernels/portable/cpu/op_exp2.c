/* aten::exp2.out(Tensor self, *, Tensor(a!) out)
 *
 * Base-2 exponential.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(exp2_f32, float, float, exp2f(a))
K_ROW_FN(exp2_f64, double, double, exp2(a))
static const k_row_fns exp2_fns = {{exp2_f32, exp2_f64, NULL, NULL}};

static pte_status exp2_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &exp2_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(exp2_out, "aten::exp2.out")
