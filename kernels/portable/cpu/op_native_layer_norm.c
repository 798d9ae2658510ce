/* aten::native_layer_norm.out(Tensor input, SymInt[] normalized_shape, Tensor? weight,
 *     Tensor? bias, float eps, *, Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2)
 * Normalizes over the trailing normalized_shape dims: out0 = (x - mean) * rstd
 * * weight + bias with population variance and rstd = 1 / sqrt(var + eps);
 * out1 = mean and out2 = rstd, shaped like the input with the normalized dims
 * set to 1. Statistics in double. */
#include "util/kernel_util.h"

/* Contiguous float32 rows. */
static void layer_norm_f32(const float *x, float *y, const float *w, const float *b, int64_t M, int64_t N,
                           double eps, pte_tensor *mean_t, pte_tensor *rstd_t) {
  for (int64_t i = 0; i < M; i++) {
    const float *xr = x + i * N;
    float *yr = y + i * N;
    double s = 0;
    for (int64_t j = 0; j < N; j++) s += xr[j];
    double mean = s / (double)N, ss = 0;
    for (int64_t j = 0; j < N; j++) ss += ((double)xr[j] - mean) * ((double)xr[j] - mean);
    double rstd = 1.0 / sqrt(ss / (double)N + eps);
    if (w && b)
      for (int64_t j = 0; j < N; j++) yr[j] = (float)(((double)xr[j] - mean) * rstd * w[j] + b[j]);
    else
      for (int64_t j = 0; j < N; j++) {
        double v = ((double)xr[j] - mean) * rstd;
        if (w) v *= w[j];
        if (b) v += b[j];
        yr[j] = (float)v;
      }
    k_set_d(mean_t->data, mean_t->dtype, k_offset(mean_t->dim, mean_t->sizes, mean_t->strides, i), mean);
    k_set_d(rstd_t->data, rstd_t->dtype, k_offset(rstd_t->dim, rstd_t->sizes, rstd_t->strides, i), rstd);
  }
}

static pte_status native_layer_norm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *w, *b, *out, *mean_t, *rstd_t;
  int64_t shape[PTE_MAX_DIM];
  int32_t k = 0;
  double eps = 0;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int_list(ctx, args, 1, shape, PTE_MAX_DIM, &k));
  K_CHECK(k_opt_tensor(ctx, args, 2, &w));
  K_CHECK(k_opt_tensor(ctx, args, 3, &b));
  K_CHECK(k_double(ctx, args, 4, &eps));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  K_CHECK(k_tensor(ctx, args, 6, &mean_t));
  K_CHECK(k_tensor(ctx, args, 7, &rstd_t));
  K_CHECK(k_has_data(ctx, in, "input"));
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype || !k_is_float(mean_t->dtype) || !k_is_float(rstd_t->dtype))
    return K_FAIL("output dtypes %s/%s/%s do not fit input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(mean_t->dtype), pte_dtype_name(rstd_t->dtype), pte_dtype_name(in->dtype));
  if (k < 1 || k > in->dim)
    return K_FAIL("normalized_shape of %d dims for a rank-%d input", (int)k, (int)in->dim);
  int32_t axis = in->dim - k;
  int64_t N = 1;
  for (int32_t i = 0; i < k; i++) {
    if (shape[i] != in->sizes[axis + i])
      return K_FAIL("normalized_shape does not match the trailing dims of the input");
    N *= shape[i];
  }
  pte_tensor *wb[2] = {w, b};
  for (int i = 0; i < 2; i++) {
    if (!wb[i]) continue;
    if (wb[i]->dtype != in->dtype)
      return K_FAIL("weight/bias dtype %s differs from input %s", pte_dtype_name(wb[i]->dtype),
                    pte_dtype_name(in->dtype));
    if (pte_tensor_numel(wb[i]) != N) return K_FAIL("weight/bias must have %lld elements", (long long)N);
    K_CHECK(k_has_data(ctx, wb[i], "weight/bias"));
  }
  int64_t stat_sizes[PTE_MAX_DIM];
  for (int32_t i = 0; i < in->dim; i++) stat_sizes[i] = i < axis ? in->sizes[i] : 1;
  K_CHECK(k_out(ctx, out, in->dim, in->sizes));
  K_CHECK(k_out(ctx, mean_t, in->dim, stat_sizes));
  K_CHECK(k_out(ctx, rstd_t, in->dim, stat_sizes));
  int64_t M = k_numel(axis, in->sizes);
  if (M == 0) return PTE_OK;
  bool contig = pte_tensor_is_contiguous(in) && pte_tensor_is_contiguous(out) &&
                (!w || pte_tensor_is_contiguous(w)) && (!b || pte_tensor_is_contiguous(b));
  if (contig && in->dtype == PTE_FLOAT32) {
    layer_norm_f32((const float *)in->data, (float *)out->data, w ? (const float *)w->data : NULL,
                   b ? (const float *)b->data : NULL, M, N, eps, mean_t, rstd_t);
    return PTE_OK;
  }
  /* Any float dtype and strides: element offsets from the row-major index. */
  for (int64_t i = 0; i < M; i++) {
    double s = 0, ss = 0;
    for (int64_t j = 0; j < N; j++)
      s += k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, i * N + j));
    double mean = s / (double)N;
    for (int64_t j = 0; j < N; j++) {
      double d = k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, i * N + j)) - mean;
      ss += d * d;
    }
    double rstd = 1.0 / sqrt(ss / (double)N + eps);
    for (int64_t j = 0; j < N; j++) {
      double v =
          (k_get_d(in->data, in->dtype, k_offset(in->dim, in->sizes, in->strides, i * N + j)) - mean) * rstd;
      if (w) v *= k_get_d(w->data, w->dtype, k_offset(w->dim, w->sizes, w->strides, j));
      if (b) v += k_get_d(b->data, b->dtype, k_offset(b->dim, b->sizes, b->strides, j));
      k_set_d(out->data, out->dtype, k_offset(out->dim, out->sizes, out->strides, i * N + j), v);
    }
    k_set_d(mean_t->data, mean_t->dtype, k_offset(mean_t->dim, mean_t->sizes, mean_t->strides, i), mean);
    k_set_d(rstd_t->data, rstd_t->dtype, k_offset(rstd_t->dim, rstd_t->sizes, rstd_t->strides, i), rstd);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(native_layer_norm_out, "aten::native_layer_norm.out")
