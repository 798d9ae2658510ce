/* aten::_native_batch_norm_legit.no_stats_out(Tensor input, Tensor? weight, Tensor? bias,
 *     bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean,
 *     Tensor(c!) save_invstd) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 * Batch norm with statistics of this batch (what instance norm lowers to):
 * per channel over N and the spatial dims, population variance;
 * save_mean and save_invstd = 1 / sqrt(var + eps) have shape [C]. Without
 * running statistics only training mode is valid, like ATen. */
#include "util/kernel_util.h"

static pte_status bn_legit_no_stats_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *w, *b, *out, *mean_t, *invstd_t;
  bool training = false;
  double momentum = 0, eps = 0;
  K_CHECK(k_nargs(ctx, nargs, 10));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_opt_tensor(ctx, args, 1, &w));
  K_CHECK(k_opt_tensor(ctx, args, 2, &b));
  K_CHECK(k_bool(ctx, args, 3, &training));
  K_CHECK(k_double(ctx, args, 4, &momentum));
  K_CHECK(k_double(ctx, args, 5, &eps));
  K_CHECK(k_tensor(ctx, args, 6, &out));
  K_CHECK(k_tensor(ctx, args, 7, &mean_t));
  K_CHECK(k_tensor(ctx, args, 8, &invstd_t));
  (void)momentum;
  if (!training) return K_FAIL("running_mean and running_var must be defined in evaluation mode");
  K_CHECK(k_has_data(ctx, in, "input"));
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype || !k_is_float(mean_t->dtype) || !k_is_float(invstd_t->dtype))
    return K_FAIL("output dtypes do not fit input %s", pte_dtype_name(in->dtype));
  if (in->dim < 2) return K_FAIL("input must have at least 2 dims, got %d", (int)in->dim);
  int64_t N = in->sizes[0], C = in->sizes[1], inner = k_numel(in->dim - 2, in->sizes + 2);
  pte_tensor *wb[2] = {w, b};
  for (int i = 0; i < 2; i++) {
    if (!wb[i]) continue;
    if (!k_is_float(wb[i]->dtype) || wb[i]->dim != 1 || wb[i]->sizes[0] != C)
      return K_FAIL("weight and bias must be float tensors of shape [%lld]", (long long)C);
    K_CHECK(k_has_data(ctx, wb[i], "weight/bias"));
  }
  if (N * inner == 0 && C > 0) return K_FAIL("expected more than 1 value per channel when training");
  K_CHECK(k_out(ctx, out, in->dim, in->sizes));
  K_CHECK(k_out(ctx, mean_t, 1, &C));
  K_CHECK(k_out(ctx, invstd_t, 1, &C));
  bool contig = pte_tensor_is_contiguous(in) && pte_tensor_is_contiguous(out) && in->dtype == PTE_FLOAT32;
  double cnt = (double)(N * inner);
  for (int64_t c = 0; c < C; c++) {
    double s = 0, ss = 0;
    for (int64_t n = 0; n < N; n++) {
      int64_t base = (n * C + c) * inner;
      if (contig) {
        const float *x = (const float *)in->data + base;
        for (int64_t i = 0; i < inner; i++) s += x[i];
      } else {
        for (int64_t i = 0; i < inner; i++)
          s += k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, base + i));
      }
    }
    double mean = s / cnt;
    for (int64_t n = 0; n < N; n++) {
      int64_t base = (n * C + c) * inner;
      if (contig) {
        const float *x = (const float *)in->data + base;
        for (int64_t i = 0; i < inner; i++) ss += (x[i] - mean) * (x[i] - mean);
      } else {
        for (int64_t i = 0; i < inner; i++) {
          double d = k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, base + i)) - mean;
          ss += d * d;
        }
      }
    }
    double invstd = 1.0 / sqrt(ss / cnt + eps);
    double alpha = invstd * (w ? k_get_d(w->data, w->dtype, c * w->strides[0]) : 1.0);
    double beta = (b ? k_get_d(b->data, b->dtype, c * b->strides[0]) : 0.0) - mean * alpha;
    for (int64_t n = 0; n < N; n++) {
      int64_t base = (n * C + c) * inner;
      if (contig) {
        const float *x = (const float *)in->data + base;
        float *y = (float *)out->data + base;
        for (int64_t i = 0; i < inner; i++) y[i] = (float)(x[i] * alpha + beta);
      } else {
        for (int64_t i = 0; i < inner; i++) {
          double x = k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, base + i));
          k_set_d(out->data, out->dtype, k_offset(out->dim, out->sizes, out->strides, base + i),
                  x * alpha + beta);
        }
      }
    }
    k_set_d(mean_t->data, mean_t->dtype, c * mean_t->strides[0], mean);
    k_set_d(invstd_t->data, invstd_t->dtype, c * invstd_t->strides[0], invstd);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(bn_legit_no_stats_out, "aten::_native_batch_norm_legit.no_stats_out")
