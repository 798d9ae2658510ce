/* aten::leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out)
 *
 * x > 0 ? x : x * negative_slope (slope rounded to the compute type).
 * Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(leaky_relu_f32, float, float, a > 0.0f ? a : a * (float)p->d[0])
K_ROW_FN(leaky_relu_f64, double, double, a > 0.0 ? a : a * p->d[0])
static const k_row_fns leaky_relu_fns = {{leaky_relu_f32, leaky_relu_f64, NULL, NULL}};

static pte_status leaky_relu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  double slope = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_double(ctx, args, 1, &slope));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = slope;
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  return ew_run(ctx, ops, 1, out, self->dtype, k_ctype_of(self->dtype), &leaky_relu_fns, &p);
}

PTE_PORTABLE_KERNEL(leaky_relu_out, "aten::leaky_relu.out")
