/* aten::native_group_norm.out(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
 *     SymInt HxW, int group, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 * Normalizes each of `group` channel groups of every sample with population
 * variance; out1 = mean and out2 = rstd of shape [N, group]. Statistics in
 * double. Strided (channels-last) tensors are repacked into kernel scratch. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status native_group_norm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *w, *b, *out, *mean_t, *rstd_t;
  int64_t N = 0, C = 0, HxW = 0, G = 0;
  double eps = 0;
  K_CHECK(k_nargs(ctx, nargs, 12));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_opt_tensor(ctx, args, 1, &w));
  K_CHECK(k_opt_tensor(ctx, args, 2, &b));
  K_CHECK(k_int(ctx, args, 3, &N));
  K_CHECK(k_int(ctx, args, 4, &C));
  K_CHECK(k_int(ctx, args, 5, &HxW));
  K_CHECK(k_int(ctx, args, 6, &G));
  K_CHECK(k_double(ctx, args, 7, &eps));
  K_CHECK(k_tensor(ctx, args, 8, &out));
  K_CHECK(k_tensor(ctx, args, 9, &mean_t));
  K_CHECK(k_tensor(ctx, args, 10, &rstd_t));
  K_CHECK(k_has_data(ctx, in, "input"));
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype || !k_is_float(mean_t->dtype) || !k_is_float(rstd_t->dtype))
    return K_FAIL("output dtypes do not fit input %s", pte_dtype_name(in->dtype));
  if (in->dim < 2 || N != in->sizes[0] || C != in->sizes[1] || HxW < 0 ||
      (N * C > 0 && HxW != pte_tensor_numel(in) / (N * C)))
    return K_FAIL("N=%lld, C=%lld, HxW=%lld do not match the input", (long long)N, (long long)C,
                  (long long)HxW);
  if (G <= 0 || C % G) return K_FAIL("C=%lld is not divisible into %lld groups", (long long)C, (long long)G);
  pte_tensor *wb[2] = {w, b};
  for (int i = 0; i < 2; i++) {
    if (!wb[i]) continue;
    if (!k_is_float(wb[i]->dtype) || pte_tensor_numel(wb[i]) != C || wb[i]->dim != 1)
      return K_FAIL("weight and bias must be float tensors of shape [%lld]", (long long)C);
    K_CHECK(k_has_data(ctx, wb[i], "weight/bias"));
  }
  int64_t stat[2] = {N, G};
  K_CHECK(k_out(ctx, out, in->dim, in->sizes));
  K_CHECK(k_out(ctx, mean_t, 2, stat));
  K_CHECK(k_out(ctx, rstd_t, 2, stat));
  /* strided (channels-last) tensors are repacked into kernel scratch */
  kn_packer pk_;
  kn_packer_init(ctx, &pk_);
  pte_tensor v_in_;
  K_CHECK(kn_pack(ctx, &pk_, in, true, &v_in_));
  in = &v_in_;
  pte_tensor v_out_, *real_out_ = out;
  K_CHECK(kn_pack(ctx, &pk_, out, false, &v_out_));
  out = &v_out_;
  int64_t cg = C / G, len = cg * HxW;
  bool f32 = in->dtype == PTE_FLOAT32;
  for (int64_t n = 0; n < N; n++) {
    for (int64_t g = 0; g < G; g++) {
      int64_t base = (n * C + g * cg) * HxW;
      double s = 0, ss = 0;
      if (f32) {
        const float *x = (const float *)in->data + base;
        for (int64_t i = 0; i < len; i++) s += x[i];
      } else {
        for (int64_t i = 0; i < len; i++) s += k_get_d(in->data, in->dtype, base + i);
      }
      double mean = len ? s / (double)len : NAN;
      if (f32) {
        const float *x = (const float *)in->data + base;
        for (int64_t i = 0; i < len; i++) ss += ((double)x[i] - mean) * ((double)x[i] - mean);
      } else {
        for (int64_t i = 0; i < len; i++) {
          double d = k_get_d(in->data, in->dtype, base + i) - mean;
          ss += d * d;
        }
      }
      double rstd = 1.0 / sqrt(ss / (double)len + eps);
      for (int64_t c = 0; c < cg; c++) {
        int64_t ch = g * cg + c;
        double alpha = rstd * (w ? k_get_d(w->data, w->dtype, ch * w->strides[0]) : 1.0);
        double beta = (b ? k_get_d(b->data, b->dtype, ch * b->strides[0]) : 0.0) - mean * alpha;
        int64_t cb = base + c * HxW;
        if (f32) {
          const float *x = (const float *)in->data + cb;
          float *y = (float *)out->data + cb;
          for (int64_t i = 0; i < HxW; i++) y[i] = (float)(x[i] * alpha + beta);
        } else {
          for (int64_t i = 0; i < HxW; i++)
            k_set_d(out->data, out->dtype, cb + i, k_get_d(in->data, in->dtype, cb + i) * alpha + beta);
        }
      }
      k_set_d(mean_t->data, mean_t->dtype, k_offset(2, mean_t->sizes, mean_t->strides, n * G + g), mean);
      k_set_d(rstd_t->data, rstd_t->dtype, k_offset(2, rstd_t->sizes, rstd_t->strides, n * G + g), rstd);
    }
  }
  kn_unpack(&v_out_, real_out_);
  return PTE_OK;
}

static size_t native_group_norm_out_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[2] = {0, 8};
  return kn_pack_scratch(args, nargs, idx, 2);
}

PTE_PORTABLE_KERNEL_EX(native_group_norm_out, "aten::native_group_norm.out", 0, native_group_norm_out_scratch)
