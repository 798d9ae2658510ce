/* aten::erf.out(Tensor self, *, Tensor(a!) out)
 *
 * Gauss error function.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(erf_f32, float, float, erff(a))
K_ROW_FN(erf_f64, double, double, erf(a))
static const k_row_fns erf_fns = {{erf_f32, erf_f64, NULL, NULL}};

static pte_status erf_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &erf_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(erf_out, "aten::erf.out")
