/* aten::softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out)
 *
 * x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
 * Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

/* p->d[0] = beta, p->d[1] = threshold */
K_ROW_FN(softplus_f32, float, float,
         a *(float)p->d[0] > (float)p->d[1] ? a : log1pf(expf(a * (float)p->d[0])) / (float)p->d[0])
K_ROW_FN(softplus_f64, double, double, a * p->d[0] > p->d[1] ? a : log1p(exp(a * p->d[0])) / p->d[0])
static const k_row_fns softplus_fns = {{softplus_f32, softplus_f64, NULL, NULL}};

static pte_status softplus_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  double beta = 0, threshold = 0;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_double(ctx, args, 1, &beta));
  K_CHECK(k_double(ctx, args, 2, &threshold));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = beta;
  p.d[1] = threshold;
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  return ew_run(ctx, ops, 1, out, self->dtype, k_ctype_of(self->dtype), &softplus_fns, &p);
}

PTE_PORTABLE_KERNEL(softplus_out, "aten::softplus.out")
