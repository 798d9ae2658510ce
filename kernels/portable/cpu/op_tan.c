/* aten::tan.out(Tensor self, *, Tensor(a!) out)
 *
 * Tangent.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(tan_f32, float, float, tanf(a))
K_ROW_FN(tan_f64, double, double, tan(a))
static const k_row_fns tan_fns = {{tan_f32, tan_f64, NULL, NULL}};

static pte_status tan_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &tan_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(tan_out, "aten::tan.out")
