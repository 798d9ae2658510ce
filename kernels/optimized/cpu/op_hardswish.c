/* aten::hardswish.out(Tensor self, *, Tensor(a!) out)
 * aten::hardsigmoid.out(Tensor self, *, Tensor(a!) out): float32. */
#include "util/ew.h"

static bool unary_accepts(pte_value *const *args, int32_t nargs) { return o_unary_accepts(args, nargs, 3, 1); }

static void hardswish_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  o_kern()->unary(O_HARDSWISH, x, y, n, 0.0f, 0.0f);
}
static void hardsigmoid_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  o_kern()->unary(O_HARDSIGMOID, x, y, n, 0.0f, 0.0f);
}

static pte_status run(pte_kernel_ctx *ctx, pte_value **args, o_span_fn fn) {
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[1]->u.tensor;
  O_CHECK(o_out_like(ctx, out, x));
  o_spans(x->data, out->data, o_numel(x), 2.0, fn, NULL);
  return PTE_OK;
}

static pte_status hardswish_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  return run(ctx, args, hardswish_span);
}
static pte_status hardsigmoid_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  return run(ctx, args, hardsigmoid_span);
}

PTE_OPT_KERNEL(hardswish_out, "aten::hardswish.out", unary_accepts, NULL)
PTE_OPT_KERNEL(hardsigmoid_out, "aten::hardsigmoid.out", unary_accepts, NULL)
