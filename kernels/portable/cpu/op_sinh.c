/* aten::sinh.out(Tensor self, *, Tensor(a!) out)
 *
 * Hyperbolic sine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(sinh_f32, float, float, sinhf(a))
K_ROW_FN(sinh_f64, double, double, sinh(a))
static const k_row_fns sinh_fns = {{sinh_f32, sinh_f64, NULL, NULL}};

static pte_status sinh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &sinh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(sinh_out, "aten::sinh.out")
