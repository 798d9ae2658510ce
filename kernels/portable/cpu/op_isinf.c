/* aten::isinf.out(Tensor self, *, Tensor(a!) out)
 *
 * Bool result, true for +inf and -inf; integer and bool inputs give false. */
#include "util/elementwise_util.h"

K_ROW_FN(isinf_f32, float, uint8_t, isinf(a))
K_ROW_FN(isinf_f64, double, uint8_t, isinf(a))
K_ROW_FN(isinf_i64, int64_t, uint8_t, 0)
K_ROW_FN(isinf_bool, uint8_t, uint8_t, 0)
static const k_row_fns isinf_fns = {{isinf_f32, isinf_f64, isinf_i64, isinf_bool}};

static pte_status isinf_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &isinf_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(isinf_out, "aten::isinf.out")
