/* aten::abs.out(Tensor self, *, Tensor(a!) out)
 *
 * |x| in the input dtype (abs(INT64_MIN) wraps to INT64_MIN like ATen).
 * Bool is not supported, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(abs_f32, float, float, fabsf(a))
K_ROW_FN(abs_f64, double, double, fabs(a))
K_ROW_FN(abs_i64, int64_t, int64_t, a < 0 ? ew_subi(0, a) : a)
static const k_row_fns abs_fns = {{abs_f32, abs_f64, abs_i64, NULL}};

static pte_status abs_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &abs_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(abs_out, "aten::abs.out")
