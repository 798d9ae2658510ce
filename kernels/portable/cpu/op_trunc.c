/* aten::trunc.out(Tensor self, *, Tensor(a!) out)
 *
 * trunc(x) for floats; integers are returned unchanged (ATen keeps their
 * dtype). Bool is not supported, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(trunc_f32, float, float, truncf(a))
K_ROW_FN(trunc_f64, double, double, trunc(a))
K_ROW_FN(trunc_i64, int64_t, int64_t, a)
static const k_row_fns trunc_fns = {{trunc_f32, trunc_f64, trunc_i64, NULL}};

static pte_status trunc_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &trunc_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(trunc_out, "aten::trunc.out")
