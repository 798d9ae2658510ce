/* aten::erfc.out(Tensor self, *, Tensor(a!) out)
 *
 * Complementary error function, 1 - erf(x).
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(erfc_f32, float, float, erfcf(a))
K_ROW_FN(erfc_f64, double, double, erfc(a))
static const k_row_fns erfc_fns = {{erfc_f32, erfc_f64, NULL, NULL}};

static pte_status erfc_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &erfc_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(erfc_out, "aten::erfc.out")
