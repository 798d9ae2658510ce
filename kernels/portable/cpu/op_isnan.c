/* aten::isnan.out(Tensor self, *, Tensor(a!) out)
 *
 * Bool result, x != x: true only for NaN; integer and bool inputs give false. */
#include "util/elementwise_util.h"

K_ROW_FN(isnan_f32, float, uint8_t, a != a)
K_ROW_FN(isnan_f64, double, uint8_t, a != a)
K_ROW_FN(isnan_i64, int64_t, uint8_t, 0)
K_ROW_FN(isnan_bool, uint8_t, uint8_t, 0)
static const k_row_fns isnan_fns = {{isnan_f32, isnan_f64, isnan_i64, isnan_bool}};

static pte_status isnan_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &isnan_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(isnan_out, "aten::isnan.out")
