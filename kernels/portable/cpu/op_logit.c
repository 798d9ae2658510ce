/* aten::logit.out(Tensor self, float? eps=None, *, Tensor(a!) out)
 * log(z / (1 - z)) with z = x clamped to [eps, 1 - eps] when eps is given
 * (a negative eps, like None, clamps nothing). Integral and bool inputs
 * compute in float32; float16/bfloat16 in float, rounded on store. */
#include "util/elementwise_util.h"

static inline float logit_f(float a, const k_params *p) {
  if (p->i[0]) a = a < (float)p->d[0] ? (float)p->d[0] : a > (float)p->d[1] ? (float)p->d[1] : a;
  return logf(a / (1.0f - a));
}
static inline double logit_d(double a, const k_params *p) {
  if (p->i[0]) a = a < p->d[0] ? p->d[0] : a > p->d[1] ? p->d[1] : a;
  return log(a / (1.0 - a));
}
K_ROW_FN(logit_f32, float, float, logit_f(a, p))
K_ROW_FN(logit_f64, double, double, logit_d(a, p))
static const k_row_fns logit_fns = {{logit_f32, logit_f64, NULL, NULL}};

static pte_status logit_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  double eps = -1;
  bool has_eps = false;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_double(ctx, args, 1, &eps, &has_eps));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (!k_is_supported(self->dtype))
    return K_FAIL("input has unsupported dtype %s", pte_dtype_name(self->dtype));
  int32_t common = ew_int_to_float(self->dtype);
  if (!k_is_float(out->dtype))
    return K_FAIL("logit writes a floating point output, got %s", pte_dtype_name(out->dtype));
  k_params p;
  memset(&p, 0, sizeof p);
  p.i[0] = has_eps && eps >= 0;
  p.d[0] = eps;
  p.d[1] = 1.0 - eps;
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  return ew_run(ctx, ops, 1, out, common, k_ctype_of(common), &logit_fns, &p);
}

PTE_PORTABLE_KERNEL(logit_out, "aten::logit.out")
