/* aten::_native_batch_norm_legit_no_training.out(Tensor input, Tensor? weight, Tensor? bias,
 *     Tensor running_mean, Tensor running_var, float momentum, float eps, *,
 *     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 * Inference batch norm over channel dim 1: out0 = (x - running_mean) /
 * sqrt(running_var + eps) * weight + bias; out1 and out2 are empty ([0]) like
 * ATen's. */
#include "util/kernel_util.h"

static pte_status bn_no_training_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *w, *b, *rm, *rv, *out, *o1, *o2;
  double momentum = 0, eps = 0;
  K_CHECK(k_nargs(ctx, nargs, 11));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_opt_tensor(ctx, args, 1, &w));
  K_CHECK(k_opt_tensor(ctx, args, 2, &b));
  K_CHECK(k_tensor(ctx, args, 3, &rm));
  K_CHECK(k_tensor(ctx, args, 4, &rv));
  K_CHECK(k_double(ctx, args, 5, &momentum));
  K_CHECK(k_double(ctx, args, 6, &eps));
  K_CHECK(k_tensor(ctx, args, 7, &out));
  K_CHECK(k_tensor(ctx, args, 8, &o1));
  K_CHECK(k_tensor(ctx, args, 9, &o2));
  (void)momentum;
  K_CHECK(k_has_data(ctx, in, "input"));
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  if (in->dim < 2) return K_FAIL("input must have at least 2 dims, got %d", (int)in->dim);
  int64_t C = in->sizes[1];
  pte_tensor *params[4] = {w, b, rm, rv};
  for (int i = 0; i < 4; i++) {
    if (!params[i]) continue;
    if (!k_is_float(params[i]->dtype))
      return K_FAIL("parameter dtype %s is not a float type", pte_dtype_name(params[i]->dtype));
    if (params[i]->dim != 1 || params[i]->sizes[0] != C)
      return K_FAIL("weight, bias, running_mean and running_var must have shape [%lld]", (long long)C);
    K_CHECK(k_has_data(ctx, params[i], "a parameter"));
  }
  int64_t zero = 0;
  K_CHECK(k_out(ctx, out, in->dim, in->sizes));
  K_CHECK(k_out(ctx, o1, 1, &zero));
  K_CHECK(k_out(ctx, o2, 1, &zero));
  int64_t N = in->sizes[0], inner = k_numel(in->dim - 2, in->sizes + 2);
  if (N * C * inner == 0) return PTE_OK;
  bool contig = pte_tensor_is_contiguous(in) && pte_tensor_is_contiguous(out);
  for (int64_t c = 0; c < C; c++) {
    /* per-channel affine terms: y = x * alpha + beta */
    double mean = k_get_d(rm->data, rm->dtype, c * rm->strides[0]);
    double var = k_get_d(rv->data, rv->dtype, c * rv->strides[0]);
    double alpha = 1.0 / sqrt(var + eps);
    if (w) alpha *= k_get_d(w->data, w->dtype, c * w->strides[0]);
    double beta = -mean * alpha;
    if (b) beta += k_get_d(b->data, b->dtype, c * b->strides[0]);
    for (int64_t n = 0; n < N; n++) {
      int64_t base = (n * C + c) * inner;
      if (contig && in->dtype == PTE_FLOAT32) {
        const float *x = (const float *)in->data + base;
        float *y = (float *)out->data + base;
        float fa = (float)alpha, fb = (float)beta;
        for (int64_t i = 0; i < inner; i++) y[i] = x[i] * fa + fb;
      } else {
        for (int64_t i = 0; i < inner; i++) {
          double x = k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, base + i));
          k_set_d(out->data, out->dtype, k_offset(out->dim, out->sizes, out->strides, base + i),
                  x * alpha + beta);
        }
      }
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(bn_no_training_out, "aten::_native_batch_norm_legit_no_training.out")
