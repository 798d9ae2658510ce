/* aten::hardswish.out(Tensor self, *, Tensor(a!) out)
 *
 * x * relu6(x + 3) / 6. Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(hardswish_f32, float, float, a *ew_minf(ew_maxf(a + 3.0f, 0.0f), 6.0f) / 6.0f)
K_ROW_FN(hardswish_f64, double, double, a *ew_min(ew_max(a + 3.0, 0.0), 6.0) / 6.0)
static const k_row_fns hardswish_fns = {{hardswish_f32, hardswish_f64, NULL, NULL}};

static pte_status hardswish_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &hardswish_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(hardswish_out, "aten::hardswish.out")
