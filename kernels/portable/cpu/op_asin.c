/* aten::asin.out(Tensor self, *, Tensor(a!) out)
 *
 * Arcsine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(asin_f32, float, float, asinf(a))
K_ROW_FN(asin_f64, double, double, asin(a))
static const k_row_fns asin_fns = {{asin_f32, asin_f64, NULL, NULL}};

static pte_status asin_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &asin_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(asin_out, "aten::asin.out")
