/* aten::log1p.out(Tensor self, *, Tensor(a!) out)
 *
 * log(1 + x), accurate near 0.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(log1p_f32, float, float, log1pf(a))
K_ROW_FN(log1p_f64, double, double, log1p(a))
static const k_row_fns log1p_fns = {{log1p_f32, log1p_f64, NULL, NULL}};

static pte_status log1p_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &log1p_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(log1p_out, "aten::log1p.out")
