/* aten::elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out)
 *
 * x > 0 ? x * scale : expm1(x * input_scale) * alpha * scale.
 * Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

/* p->d[0] = alpha * scale, p->d[1] = scale, p->d[2] = input_scale */
K_ROW_FN(elu_f32, float, float, a <= 0.0f ? expm1f(a * (float)p->d[2]) * (float)p->d[0] : a * (float)p->d[1])
K_ROW_FN(elu_f64, double, double, a <= 0.0 ? expm1(a * p->d[2]) * p->d[0] : a * p->d[1])
static const k_row_fns elu_fns = {{elu_f32, elu_f64, NULL, NULL}};

static pte_status elu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  double alpha = 0, scale = 0, input_scale = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_double(ctx, args, 1, &alpha));
  K_CHECK(k_double(ctx, args, 2, &scale));
  K_CHECK(k_double(ctx, args, 3, &input_scale));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  k_params p;
  memset(&p, 0, sizeof p);
  /* ATen forms the coefficients in the compute type */
  if (self->dtype == PTE_FLOAT64) {
    p.d[0] = alpha * scale;
  } else {
    p.d[0] = (double)((float)alpha * (float)scale);
  }
  p.d[1] = scale;
  p.d[2] = input_scale;
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  return ew_run(ctx, ops, 1, out, self->dtype, k_ctype_of(self->dtype), &elu_fns, &p);
}

PTE_PORTABLE_KERNEL(elu_out, "aten::elu.out")
