/* aten::atan.out(Tensor self, *, Tensor(a!) out)
 *
 * Arctangent.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(atan_f32, float, float, atanf(a))
K_ROW_FN(atan_f64, double, double, atan(a))
static const k_row_fns atan_fns = {{atan_f32, atan_f64, NULL, NULL}};

static pte_status atan_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &atan_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(atan_out, "aten::atan.out")
