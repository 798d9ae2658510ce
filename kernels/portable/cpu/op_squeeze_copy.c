/* aten::squeeze_copy.out(Tensor self, *, Tensor(a!) out)
 * aten::squeeze_copy.dim_out(Tensor self, int dim, *, Tensor(a!) out)
 * aten::squeeze_copy.dims_out(Tensor self, int[] dim, *, Tensor(a!) out)
 * Dims that are not of size 1 are kept (not an error), as in ATen. */
#include "util/copy_util.h"

static pte_status squeeze_common(pte_kernel_ctx *ctx, const pte_tensor *self, pte_tensor *out,
                                 const bool *drop) {
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t n = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (drop[k] && self->sizes[k] == 1) continue;
    sizes[n] = self->sizes[k];
    strides[n++] = self->strides[k];
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_copy(out->data, out->strides, self->data, strides, n, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

static pte_status squeeze_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  bool drop[PTE_MAX_DIM];
  for (int32_t k = 0; k < PTE_MAX_DIM; k++) drop[k] = true;
  return squeeze_common(ctx, self, out, drop);
}

static pte_status squeeze_copy_dim_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  bool drop[PTE_MAX_DIM] = {false};
  drop[dim] = self->dim > 0;
  return squeeze_common(ctx, self, out, drop);
}

static pte_status squeeze_copy_dims_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  bool drop[PTE_MAX_DIM] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, dims[i], self->dim, &d));
    if (self->dim == 0) continue;
    if (drop[d]) return K_FAIL("dim %d appears multiple times in the list of dims", (int)d);
    drop[d] = true;
  }
  return squeeze_common(ctx, self, out, drop);
}

PTE_PORTABLE_KERNEL(squeeze_copy_out, "aten::squeeze_copy.out")
PTE_PORTABLE_KERNEL(squeeze_copy_dim_out, "aten::squeeze_copy.dim_out")
PTE_PORTABLE_KERNEL(squeeze_copy_dims_out, "aten::squeeze_copy.dims_out")
