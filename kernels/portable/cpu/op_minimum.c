/* aten::minimum.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * Elementwise smaller value in the common dtype; NaN propagates (unlike fmin/fmax). */
#include "util/elementwise_util.h"

K_ROW_FN(minimum_f32, float, float, ew_minf(a, b))
K_ROW_FN(minimum_f64, double, double, ew_min(a, b))
K_ROW_FN(minimum_i64, int64_t, int64_t, a < b ? a : b)
K_ROW_FN(minimum_bool, uint8_t, uint8_t, a &&b)
static const k_row_fns minimum_fns = {{minimum_f32, minimum_f64, minimum_i64, minimum_bool}};

static pte_status minimum_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &minimum_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(minimum_out, "aten::minimum.out")
