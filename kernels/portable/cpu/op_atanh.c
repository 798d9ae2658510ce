/* aten::atanh.out(Tensor self, *, Tensor(a!) out)
 *
 * Inverse hyperbolic tangent.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(atanh_f32, float, float, atanhf(a))
K_ROW_FN(atanh_f64, double, double, atanh(a))
static const k_row_fns atanh_fns = {{atanh_f32, atanh_f64, NULL, NULL}};

static pte_status atanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &atanh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(atanh_out, "aten::atanh.out")
