/* aten::atan2.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * atan2(self, other); integral and bool inputs compute in float32. */
#include "util/elementwise_util.h"

K_ROW_FN(atan2_f32, float, float, atan2f(a, b))
K_ROW_FN(atan2_f64, double, double, atan2(a, b))
static const k_row_fns atan2_fns = {{atan2_f32, atan2_f64, NULL, NULL}};

static pte_status atan2_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &atan2_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(atan2_out, "aten::atan2.out")
