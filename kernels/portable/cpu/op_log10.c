/* aten::log10.out(Tensor self, *, Tensor(a!) out)
 *
 * Base-10 logarithm.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(log10_f32, float, float, log10f(a))
K_ROW_FN(log10_f64, double, double, log10(a))
static const k_row_fns log10_fns = {{log10_f32, log10_f64, NULL, NULL}};

static pte_status log10_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &log10_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(log10_out, "aten::log10.out")
