/* aten::asinh.out(Tensor self, *, Tensor(a!) out)
 *
 * Inverse hyperbolic sine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(asinh_f32, float, float, asinhf(a))
K_ROW_FN(asinh_f64, double, double, asinh(a))
static const k_row_fns asinh_fns = {{asinh_f32, asinh_f64, NULL, NULL}};

static pte_status asinh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &asinh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(asinh_out, "aten::asinh.out")
