/* aten::relu.out(Tensor self, *, Tensor(a!) out): float32, NaN kept. */
#include "util/ew.h"

static bool relu_accepts(pte_value *const *args, int32_t nargs) { return o_unary_accepts(args, nargs, 3, 1); }

static void relu_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  o_kern()->unary(O_RELU, x, y, n, 0.0f, 0.0f);
}

static pte_status relu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 1.0, relu_span, NULL);
}

PTE_OPT_KERNEL(relu_out, "aten::relu.out", relu_accepts, NULL)
