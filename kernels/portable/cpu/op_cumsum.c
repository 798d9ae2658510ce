/* aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
 * Running sum along dim. Without dtype, integer and bool inputs give int64.
 * Floats accumulate in double like ATen's CPU kernel (acc_type). */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status cumsum_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim = 0;
  int32_t dtype = 0, d = 0;
  bool has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_opt_dtype(ctx, args, 2, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype) || !k_is_supported(out->dtype))
    return K_FAIL("unsupported dtype %s -> %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  int32_t want = has_dtype ? dtype : k_is_float(self->dtype) ? self->dtype : PTE_INT64;
  if (want != out->dtype)
    return K_FAIL("output dtype %s does not match the result dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(want));
  K_CHECK(k_dim(ctx, dim, self->dim, &d));
  K_CHECK(k_out(ctx, out, self->dim, self->sizes));
  int64_t len = self->dim ? self->sizes[d] : 1;
  int64_t numel = pte_tensor_numel(self);
  if (numel == 0) return PTE_OK;
  int64_t lines = numel / len;
  int64_t si = self->dim ? self->strides[d] : 0, so = out->dim ? out->strides[d] : 0;
  bool as_float = k_is_float(want) || k_is_float(self->dtype);
  for (int64_t l = 0; l < lines; l++) {
    int64_t a = kr_line_offset(self, d, l), b = kr_line_offset(out, d, l);
    if (as_float && self->dtype == PTE_FLOAT32 && out->dtype == PTE_FLOAT32) {
      const float *x = (const float *)self->data + a;
      float *y = (float *)out->data + b;
      double acc = 0;
      for (int64_t j = 0; j < len; j++) {
        acc += x[j * si];
        y[j * so] = (float)acc;
      }
    } else if (as_float) {
      double acc = 0;
      for (int64_t j = 0; j < len; j++) {
        acc += k_get_d(self->data, self->dtype, a + j * si);
        k_set_d(out->data, out->dtype, b + j * so, acc);
      }
    } else {
      uint64_t acc = 0;
      for (int64_t j = 0; j < len; j++) {
        acc += (uint64_t)k_get_i(self->data, self->dtype, a + j * si);
        k_set_i(out->data, out->dtype, b + j * so, (int64_t)acc);
      }
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(cumsum_out, "aten::cumsum.out")
