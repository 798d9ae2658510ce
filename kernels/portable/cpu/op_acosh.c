/* aten::acosh.out(Tensor self, *, Tensor(a!) out)
 *
 * Inverse hyperbolic cosine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(acosh_f32, float, float, acoshf(a))
K_ROW_FN(acosh_f64, double, double, acosh(a))
static const k_row_fns acosh_fns = {{acosh_f32, acosh_f64, NULL, NULL}};

static pte_status acosh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &acosh_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(acosh_out, "aten::acosh.out")
