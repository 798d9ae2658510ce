/* aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None,
 *                Tensor(a!) out)
 * aten::mean.dtype_out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
 * The mean over the given dims (None or [] = all). Floating point only: the
 * input (or the dtype argument when given) must be a float type. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status mean_common(pte_kernel_ctx *ctx, pte_tensor *self, const int64_t *dims, int32_t ndims,
                              bool keepdim, bool has_dtype, int32_t dtype, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype) || !k_is_supported(out->dtype))
    return K_FAIL("unsupported dtype %s -> %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  int32_t in_dt = has_dtype ? dtype : self->dtype;
  if (!k_is_float(in_dt))
    return K_FAIL("could not infer output dtype: %s dtype must be a floating point type, got %s",
                  has_dtype ? "the dtype argument" : "the input", pte_dtype_name(in_dt));
  if (has_dtype && dtype != out->dtype)
    return K_FAIL("dtype argument %s does not match the output dtype %s", pte_dtype_name(dtype),
                  pte_dtype_name(out->dtype));
  if (!k_is_float(out->dtype))
    return K_FAIL("output dtype %s is not a floating point type", pte_dtype_name(out->dtype));
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim));
  K_CHECK(k_out(ctx, out, p.r.out_dim, p.r.out_sizes));
  double count = (double)p.r.inner_numel; /* 0 gives NaN, like ATen */
  _Alignas(16) double buf[KR_CHUNK];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    kr_begin(&p, o, &w);
    double acc = 0;
    int64_t m;
    while ((m = kr_next(&w, buf, K_F64)) > 0)
      for (int64_t j = 0; j < m; j++) acc += buf[j];
    k_set_d(out->data, out->dtype, kr_offset(out, o), acc / count);
  }
  return PTE_OK;
}

static pte_status mean_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0, dtype = 0;
  bool keepdim = false, has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_opt_dtype(ctx, args, 3, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  return mean_common(ctx, self, dims, ndims, keepdim, has_dtype, dtype, out);
}

static pte_status mean_dtype_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int32_t dtype = 0;
  bool has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_dtype(ctx, args, 1, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  return mean_common(ctx, self, NULL, -1, false, has_dtype, dtype, out);
}

PTE_PORTABLE_KERNEL(mean_out, "aten::mean.out")
PTE_PORTABLE_KERNEL(mean_dtype_out, "aten::mean.dtype_out")
