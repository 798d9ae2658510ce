/* aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None,
 *                    Tensor(a!) out)
 * aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out)
 * Product along dim (or of everything). Without dtype, integer and bool
 * inputs give int64 like ATen. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status prod_common(pte_kernel_ctx *ctx, pte_tensor *self, const int64_t *dims, int32_t ndims,
                              bool keepdim, bool has_dtype, int32_t dtype, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype) || !k_is_supported(out->dtype))
    return K_FAIL("unsupported dtype %s -> %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  int32_t want = has_dtype ? dtype : k_is_float(self->dtype) ? self->dtype : PTE_INT64;
  if (want != out->dtype)
    return K_FAIL("output dtype %s does not match the result dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(want));
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim));
  K_CHECK(k_out(ctx, out, p.r.out_dim, p.r.out_sizes));
  bool as_float = k_is_float(out->dtype) || k_is_float(self->dtype);
  _Alignas(16) uint8_t buf[KR_CHUNK * 8];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    kr_begin(&p, o, &w);
    int64_t dst = kr_offset(out, o), m;
    if (as_float) {
      const double *v = (const double *)buf;
      double acc = 1;
      while ((m = kr_next(&w, buf, K_F64)) > 0)
        for (int64_t j = 0; j < m; j++) acc *= v[j];
      k_set_d(out->data, out->dtype, dst, acc);
    } else {
      const int64_t *v = (const int64_t *)buf;
      uint64_t acc = 1; /* wraps like ATen's int64 product */
      while ((m = kr_next(&w, buf, K_I64)) > 0)
        for (int64_t j = 0; j < m; j++) acc *= (uint64_t)v[j];
      k_set_i(out->data, out->dtype, dst, (int64_t)acc);
    }
  }
  return PTE_OK;
}

static pte_status prod_int_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim = 0;
  int32_t dtype = 0;
  bool keepdim = false, has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_opt_dtype(ctx, args, 3, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  return prod_common(ctx, self, &dim, 1, keepdim, has_dtype, dtype, out);
}

static pte_status prod_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int32_t dtype = 0;
  bool has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_dtype(ctx, args, 1, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  return prod_common(ctx, self, NULL, -1, false, has_dtype, dtype, out);
}

PTE_PORTABLE_KERNEL(prod_int_out, "aten::prod.int_out")
PTE_PORTABLE_KERNEL(prod_out, "aten::prod.out")
