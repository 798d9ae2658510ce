/* aten::hardsigmoid.out(Tensor self, *, Tensor(a!) out)
 *
 * relu6(x + 3) / 6. Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(hardsigmoid_f32, float, float, ew_minf(ew_maxf(a + 3.0f, 0.0f), 6.0f) / 6.0f)
K_ROW_FN(hardsigmoid_f64, double, double, ew_min(ew_max(a + 3.0, 0.0), 6.0) / 6.0)
static const k_row_fns hardsigmoid_fns = {{hardsigmoid_f32, hardsigmoid_f64, NULL, NULL}};

static pte_status hardsigmoid_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &hardsigmoid_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(hardsigmoid_out, "aten::hardsigmoid.out")
