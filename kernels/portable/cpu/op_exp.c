/* aten::exp.out(Tensor self, *, Tensor(a!) out)
 *
 * Natural exponential.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(exp_f32, float, float, expf(a))
K_ROW_FN(exp_f64, double, double, exp(a))
static const k_row_fns exp_fns = {{exp_f32, exp_f64, NULL, NULL}};

static pte_status exp_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &exp_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(exp_out, "aten::exp.out")
