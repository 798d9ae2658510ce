/* aten::cosh.out(Tensor self, *, Tensor(a!) out)
 *
 * Hyperbolic cosine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(cosh_f32, float, float, coshf(a))
K_ROW_FN(cosh_f64, double, double, cosh(a))
static const k_row_fns cosh_fns = {{cosh_f32, cosh_f64, NULL, NULL}};

static pte_status cosh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &cosh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(cosh_out, "aten::cosh.out")
