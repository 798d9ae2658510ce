/* aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
 * float32 squared or cubed (GPT-2's tanh GELU decomposes into x ** 3): a
 * plain loop the compiler vectorizes, (x * x) * x as the portable kernel
 * (and ATen) round it. Other exponents stay portable. */
#include "util/ew.h"

static bool pow_exponent(const pte_value *e, int *power) {
  double v;
  if (e->tag == PTE_TAG_INT) v = (double)e->u.i;
  else if (e->tag == PTE_TAG_DOUBLE) v = e->u.d;
  else return false;
  if (v != 2.0 && v != 3.0) return false;
  *power = (int)v;
  return true;
}

static bool pow_accepts(pte_value *const *args, int32_t nargs) {
  int power;
  return o_unary_accepts(args, nargs, 4, 2) && pow_exponent(args[1], &power);
}

static void square_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * x[i];
}
static void cube_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * x[i] * x[i];
}

static pte_status pow_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int power = 0;
  pow_exponent(args[1], &power);
  return o_map(ctx, args, nargs, 2, 2.0, power == 2 ? square_span : cube_span, NULL);
}

PTE_OPT_KERNEL(pow_scalar_out, "aten::pow.Tensor_Scalar_out", pow_accepts, NULL)
