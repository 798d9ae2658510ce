/* aten::unsqueeze_copy.out(Tensor self, int dim, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status unsqueeze_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim >= PTE_MAX_DIM) return K_FAIL("the result would have more than %d dims", PTE_MAX_DIM);
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim + 1, &dim));
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t n = 0;
  for (int32_t k = 0; k <= self->dim; k++) {
    if (k == dim) {
      sizes[n] = 1;
      strides[n++] = 1;
    }
    if (k < self->dim) {
      sizes[n] = self->sizes[k];
      strides[n++] = self->strides[k];
    }
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_copy(out->data, out->strides, self->data, strides, n, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(unsqueeze_copy_out, "aten::unsqueeze_copy.out")
