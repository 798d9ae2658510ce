/* aten::sigmoid.out, aten::tanh.out, aten::silu.out (Tensor self, *, Tensor(a!) out):
 * float32 through the kernel layer's vectorized functions (within a few
 * ulp of the exact values, see klayer.h), split over the pool: these are
 * compute-bound, not memory-bound, so two threads pay off earlier. */
#include "util/ew.h"

static bool unary_accepts(pte_value *const *args, int32_t nargs) {
  return o_unary_accepts(args, nargs, 3, 1);
}

static void sigmoid_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vsigmoid(x, y, n);
}
static void tanh_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vtanh(x, y, n);
}
static void silu_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vsilu(x, y, n);
}

static pte_status sigmoid_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 20.0, sigmoid_span, NULL);
}
static pte_status tanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 20.0, tanh_span, NULL);
}
static pte_status silu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 1, 20.0, silu_span, NULL);
}

PTE_OPT_KERNEL(sigmoid_out, "aten::sigmoid.out", unary_accepts, NULL)
PTE_OPT_KERNEL(tanh_out, "aten::tanh.out", unary_accepts, NULL)
PTE_OPT_KERNEL(silu_out, "aten::silu.out", unary_accepts, NULL)
