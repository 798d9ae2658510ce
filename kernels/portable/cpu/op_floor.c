/* aten::floor.out(Tensor self, *, Tensor(a!) out)
 *
 * floor(x) for floats; integers are returned unchanged (ATen keeps their
 * dtype). Bool is not supported, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(floor_f32, float, float, floorf(a))
K_ROW_FN(floor_f64, double, double, floor(a))
K_ROW_FN(floor_i64, int64_t, int64_t, a)
static const k_row_fns floor_fns = {{floor_f32, floor_f64, floor_i64, NULL}};

static pte_status floor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &floor_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(floor_out, "aten::floor.out")
