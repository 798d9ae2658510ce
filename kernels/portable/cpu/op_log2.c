/* aten::log2.out(Tensor self, *, Tensor(a!) out)
 *
 * Base-2 logarithm.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(log2_f32, float, float, log2f(a))
K_ROW_FN(log2_f64, double, double, log2(a))
static const k_row_fns log2_fns = {{log2_f32, log2_f64, NULL, NULL}};

static pte_status log2_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &log2_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(log2_out, "aten::log2.out")
