/* aten::select_scatter.out(Tensor self, Tensor src, int dim, SymInt index, *, Tensor(a!) out)
 * out = self with out.select(dim, index) = src (src has self's shape without
 * dim; it is converted to self's dtype like copy_). */
#include "util/copy_util.h"

static pte_status select_scatter_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *src, *out;
  int64_t dim_arg = 0, index = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &src));
  K_CHECK(k_int(ctx, args, 2, &dim_arg));
  K_CHECK(k_int(ctx, args, 3, &index));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, src, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, src, "src"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_supported(ctx, src->dtype, "src"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim == 0) return K_FAIL("select() cannot be applied to a 0-dim tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  if (index < -size || index >= size)
    return K_FAIL("index %lld out of range for tensor of size %lld at dimension %d", (long long)index,
                  (long long)size, (int)dim);
  if (index < 0) index += size;
  bool ok = src->dim == self->dim - 1;
  for (int32_t k = 0, j = 0; ok && k < self->dim; k++)
    if (k != dim) ok = src->sizes[j++] == self->sizes[k];
  if (!ok) {
    char a[160];
    return K_FAIL("src of shape %s does not match the selected slice of self",
                  pte_shape_str(src->dim, src->sizes, a, sizeof a));
  }
  K_CHECK(k_out_like(ctx, out, self));
  if (out->data != self->data) kc_copy_tensor(out, self);
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  int64_t ost[PTE_MAX_DIM];
  for (int32_t k = 0, j = 0; k < self->dim; k++)
    if (k != dim) ost[j++] = out->strides[k];
  uint8_t *d = (uint8_t *)out->data + index * out->strides[dim] * (int64_t)pte_dtype_size(out->dtype);
  kc_convert(d, out->dtype, ost, src->data, src->dtype, src->strides, src->dim, src->sizes);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(select_scatter_out, "aten::select_scatter.out")
