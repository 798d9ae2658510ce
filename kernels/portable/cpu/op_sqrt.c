/* aten::sqrt.out(Tensor self, *, Tensor(a!) out)
 *
 * Square root.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(sqrt_f32, float, float, sqrtf(a))
K_ROW_FN(sqrt_f64, double, double, sqrt(a))
static const k_row_fns sqrt_fns = {{sqrt_f32, sqrt_f64, NULL, NULL}};

static pte_status sqrt_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &sqrt_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(sqrt_out, "aten::sqrt.out")
