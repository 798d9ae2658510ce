/* aten::silu.out(Tensor self, *, Tensor(a!) out)
 *
 * x * sigmoid(x), computed as x / (1 + exp(-x)). Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(silu_f32, float, float, a / (1.0f + expf(-a)))
K_ROW_FN(silu_f64, double, double, a / (1.0 + exp(-a)))
static const k_row_fns silu_fns = {{silu_f32, silu_f64, NULL, NULL}};

static pte_status silu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &silu_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(silu_out, "aten::silu.out")
