/* aten::slice_scatter.out(Tensor self, Tensor src, int dim=0, SymInt? start=None,
 *                         SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
 * out = self with out[start:end:step] (along dim) = src; the slice is
 * clamped like slice_copy and src must have its shape. */
#include "util/copy_util.h"

static pte_status slice_scatter_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *src, *out;
  int64_t dim_arg = 0, start = 0, end = 0, step = 1;
  bool has_start = false, has_end = false;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &src));
  K_CHECK(k_int(ctx, args, 2, &dim_arg));
  K_CHECK(k_opt_int(ctx, args, 3, &start, &has_start));
  K_CHECK(k_opt_int(ctx, args, 4, &end, &has_end));
  K_CHECK(k_int(ctx, args, 5, &step));
  K_CHECK(k_tensor(ctx, args, 6, &out));
  K_CHECK(kc_no_alias(ctx, out, self, src, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, src, "src"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_supported(ctx, src->dtype, "src"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim == 0) return K_FAIL("slice() cannot be applied to a 0-dim tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0, len = 0;
  K_CHECK(kc_slice_range(ctx, self->sizes[dim], has_start, start, has_end, end, step, &first, &len));
  bool ok = src->dim == self->dim;
  for (int32_t k = 0; ok && k < self->dim; k++) ok = src->sizes[k] == (k == dim ? len : self->sizes[k]);
  if (!ok) {
    char a[160];
    return K_FAIL("src of shape %s does not match the slice of self",
                  pte_shape_str(src->dim, src->sizes, a, sizeof a));
  }
  K_CHECK(k_out_like(ctx, out, self));
  if (out->data != self->data) kc_copy_tensor(out, self);
  if (pte_tensor_numel(src) == 0) return PTE_OK;
  int64_t ost[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) ost[k] = out->strides[k];
  if (len > 1) ost[dim] *= step; /* step only matters with 2+ elements */
  uint8_t *d = (uint8_t *)out->data + first * out->strides[dim] * (int64_t)pte_dtype_size(out->dtype);
  kc_convert(d, out->dtype, ost, src->data, src->dtype, src->strides, src->dim, src->sizes);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(slice_scatter_out, "aten::slice_scatter.out")
