/* aten::log.out(Tensor self, *, Tensor(a!) out)
 *
 * Natural logarithm.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(log_f32, float, float, logf(a))
K_ROW_FN(log_f64, double, double, log(a))
static const k_row_fns log_fns = {{log_f32, log_f64, NULL, NULL}};

static pte_status log_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &log_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(log_out, "aten::log.out")
