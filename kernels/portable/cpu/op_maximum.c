/* aten::maximum.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * Elementwise larger value in the common dtype; NaN propagates (unlike fmin/fmax). */
#include "util/elementwise_util.h"

K_ROW_FN(maximum_f32, float, float, ew_maxf(a, b))
K_ROW_FN(maximum_f64, double, double, ew_max(a, b))
K_ROW_FN(maximum_i64, int64_t, int64_t, a > b ? a : b)
K_ROW_FN(maximum_bool, uint8_t, uint8_t, a || b)
static const k_row_fns maximum_fns = {{maximum_f32, maximum_f64, maximum_i64, maximum_bool}};

static pte_status maximum_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &maximum_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(maximum_out, "aten::maximum.out")
