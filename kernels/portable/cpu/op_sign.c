/* aten::sign.out(Tensor self, *, Tensor(a!) out)
 *
 * -1, 0 or 1 in the input dtype; NaN gives 0 and bool is returned
 * unchanged, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(sign_f32, float, float, (float)((0.0f < a) - (a < 0.0f)))
K_ROW_FN(sign_f64, double, double, (double)((0.0 < a) - (a < 0.0)))
K_ROW_FN(sign_i64, int64_t, int64_t, (int64_t)((0 < a) - (a < 0)))
K_ROW_FN(sign_bool, uint8_t, uint8_t, a)
static const k_row_fns sign_fns = {{sign_f32, sign_f64, sign_i64, sign_bool}};

static pte_status sign_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &sign_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(sign_out, "aten::sign.out")
