/* aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *,
 *                       ScalarType? dtype=None, Tensor(a!) out) */
#include "util/kernel_util.h"

static pte_status sum_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims, dtype;
  bool keepdim, has_dtype;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &keepdim));
  K_CHECK(k_opt_dtype(ctx, args, 3, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype) || !k_is_supported(out->dtype))
    return K_FAIL("unsupported dtype %s -> %s", pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  if (has_dtype && dtype != out->dtype)
    return K_FAIL("dtype argument %s does not match the output dtype %s", pte_dtype_name(dtype),
                  pte_dtype_name(out->dtype));
  k_reduce r;
  K_CHECK(k_reduce_init(ctx, &r, self, dims, ndims, keepdim)); /* None or [] reduces everything */
  K_CHECK(k_out(ctx, out, r.out_dim, r.out_sizes));
  bool as_float = k_is_float(out->dtype) || k_is_float(self->dtype);
  for (int64_t o = 0; o < r.outer_numel; o++) {
    int64_t base = k_reduce_outer(&r, o);
    int64_t dst = k_offset(out->dim, out->sizes, out->strides, o);
    if (as_float) {
      double acc = 0;
      for (int64_t k = 0; k < r.inner_numel; k++) acc += k_get_d(self->data, self->dtype, base + k_reduce_inner(&r, k));
      k_set_d(out->data, out->dtype, dst, acc);
    } else {
      uint64_t acc = 0;
      for (int64_t k = 0; k < r.inner_numel; k++)
        acc += (uint64_t)k_get_i(self->data, self->dtype, base + k_reduce_inner(&r, k));
      k_set_i(out->data, out->dtype, dst, (int64_t)acc);
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(sum_out, "aten::sum.IntList_out")
