/* aten::transpose_copy.int_out(Tensor self, int dim0, int dim1, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status transpose_copy_int_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t a = 0, b = 0;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &a));
  K_CHECK(k_int(ctx, args, 2, &b));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  int32_t d0 = 0, d1 = 0;
  K_CHECK(k_dim(ctx, a, self->dim, &d0));
  K_CHECK(k_dim(ctx, b, self->dim, &d1));
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) {
    int32_t s = k == d0 ? d1 : k == d1 ? d0 : k;
    sizes[k] = self->sizes[s];
    strides[k] = self->strides[s];
  }
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  kc_copy(out->data, out->strides, self->data, strides, self->dim, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(transpose_copy_int_out, "aten::transpose_copy.int_out")
