/* aten::sin.out(Tensor self, *, Tensor(a!) out)
 *
 * Sine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(sin_f32, float, float, sinf(a))
K_ROW_FN(sin_f64, double, double, sin(a))
static const k_row_fns sin_fns = {{sin_f32, sin_f64, NULL, NULL}};

static pte_status sin_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &sin_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(sin_out, "aten::sin.out")
