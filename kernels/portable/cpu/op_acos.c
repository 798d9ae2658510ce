/* aten::acos.out(Tensor self, *, Tensor(a!) out)
 *
 * Arccosine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(acos_f32, float, float, acosf(a))
K_ROW_FN(acos_f64, double, double, acos(a))
static const k_row_fns acos_fns = {{acos_f32, acos_f64, NULL, NULL}};

static pte_status acos_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &acos_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(acos_out, "aten::acos.out")
