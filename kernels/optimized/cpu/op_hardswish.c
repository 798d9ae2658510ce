/* aten::hardswish.out(Tensor self, *, Tensor(a!) out)
 * aten::hardsigmoid.out(Tensor self, *, Tensor(a!) out): float32. */
#include "util/ew.h"

static bool unary_accepts(pte_value *const *args, int32_t nargs) {
  return o_unary_accepts(args, nargs, 3, 1);
}

static void hardswish_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  o_kern()->unary(O_HARDSWISH, x, y, n, 0.0f, 0.0f);
}
static void hardsigmoid_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  o_kern()->unary(O_HARDSIGMOID, x, y, n, 0.0f, 0.0f);
}

static pte_status hardswish_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 2.0, hardswish_span, NULL);
}
static pte_status hardsigmoid_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 2.0, hardsigmoid_span, NULL);
}

PTE_OPT_KERNEL(hardswish_out, "aten::hardswish.out", unary_accepts, NULL)
PTE_OPT_KERNEL(hardsigmoid_out, "aten::hardsigmoid.out", unary_accepts, NULL)
