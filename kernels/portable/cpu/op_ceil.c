/* aten::ceil.out(Tensor self, *, Tensor(a!) out)
 *
 * ceil(x) for floats; integers are returned unchanged (ATen keeps their
 * dtype). Bool is not supported, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(ceil_f32, float, float, ceilf(a))
K_ROW_FN(ceil_f64, double, double, ceil(a))
K_ROW_FN(ceil_i64, int64_t, int64_t, a)
static const k_row_fns ceil_fns = {{ceil_f32, ceil_f64, ceil_i64, NULL}};

static pte_status ceil_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &ceil_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(ceil_out, "aten::ceil.out")
