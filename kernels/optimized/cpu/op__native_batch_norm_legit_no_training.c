/* aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight,
 *     Tensor? bias, Tensor running_mean, Tensor running_var, float momentum,
 *     float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 * float32 NCHW inference batch norm: per channel y = x * a + b with
 * a = weight / sqrt(var + eps), b = bias - mean * a computed in double like
 * the portable kernel, then one vectorized scale/shift per plane. out1 and
 * out2 come out empty ([0]) like ATen's. */
#include <math.h>

#include "util/kern.h"

static bool param_ok(pte_value *const *args, int32_t nargs, int32_t i, bool optional) {
  if (optional && k_arg_none(args, nargs, i)) return true;
  const pte_tensor *t = k_arg_tensor(args, nargs, i);
  return k_is_f32(t) && t->dim == 1;
}

static bool bn_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  if (nargs != 11 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 7)) return false;
  if (!k_arg_tensor(args, nargs, 8) || !k_arg_tensor(args, nargs, 9)) return false;
  if (!k_arg_num(args, nargs, 5, &d) || !k_arg_num(args, nargs, 6, &d)) return false;
  return args[0]->u.tensor->dim >= 2 && param_ok(args, nargs, 1, true) && param_ok(args, nargs, 2, true) &&
         param_ok(args, nargs, 3, false) && param_ok(args, nargs, 4, false);
}

typedef struct bn_job {
  const float *x;
  float *y;
  const float *w, *b, *mean, *var;
  double eps;
  int64_t C, inner;
} bn_job;

static void bn_planes(void *ctx, size_t p0, size_t p1) {
  const bn_job *j = ctx;
  const o_kern_table *kt = o_kern();
  for (size_t p = p0; p < p1; p++) {
    int64_t c = (int64_t)p % j->C;
    double a = 1.0 / sqrt((double)j->var[c] + j->eps);
    if (j->w) a *= (double)j->w[c];
    double b = -(double)j->mean[c] * a;
    if (j->b) b += (double)j->b[c];
    kt->scale_shift(j->x + (int64_t)p * j->inner, j->y + (int64_t)p * j->inner, j->inner, (float)a, (float)b);
  }
}

static pte_status bn_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[7]->u.tensor;
  double eps = 0;
  k_arg_num(args, nargs, 6, &eps);
  const int64_t C = x->sizes[1];
  const pte_tensor *ps[4] = {NULL, NULL, args[3]->u.tensor, args[4]->u.tensor};
  if (args[1]->tag == PTE_TAG_TENSOR) ps[0] = args[1]->u.tensor;
  if (args[2]->tag == PTE_TAG_TENSOR) ps[1] = args[2]->u.tensor;
  for (int i = 0; i < 4; i++)
    if (ps[i] && ps[i]->sizes[0] != C)
      return K_FAIL("weight, bias, running_mean and running_var must have shape [%lld]", (long long)C);
  int64_t zero = 0;
  K_CHECK(k_out_like(ctx, out, x));
  K_CHECK(k_out(ctx, args[8]->u.tensor, 1, &zero));
  K_CHECK(k_out(ctx, args[9]->u.tensor, 1, &zero));
  int64_t inner = 1;
  for (int32_t i = 2; i < x->dim; i++) inner *= x->sizes[i];
  int64_t planes = x->sizes[0] * C;
  if (planes * inner == 0) return PTE_OK;
  bn_job j = {x->data,
              out->data,
              ps[0] ? ps[0]->data : NULL,
              ps[1] ? ps[1]->data : NULL,
              ps[2]->data,
              ps[3]->data,
              eps,
              C,
              inner};
  k_parallel_for((size_t)planes, (double)(planes * inner), bn_planes, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(bn_out, "aten::_native_batch_norm_legit_no_training.out", bn_accepts, NULL)
