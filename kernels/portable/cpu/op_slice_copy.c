/* aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None,
 *                             SymInt step=1, *, Tensor(a!) out)
 * start/end may be negative (counted from the end) and are clamped to the
 * dim like Python slicing; step must be positive. */
#include "util/copy_util.h"

static pte_status slice_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0, start = 0, end = 0, step = 1;
  bool has_start = false, has_end = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_opt_int(ctx, args, 2, &start, &has_start));
  K_CHECK(k_opt_int(ctx, args, 3, &end, &has_end));
  K_CHECK(k_int(ctx, args, 4, &step));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim == 0) return K_FAIL("slice() cannot be applied to a 0-dim tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t first = 0, len = 0;
  K_CHECK(kc_slice_range(ctx, self->sizes[dim], has_start, start, has_end, end, step, &first, &len));
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = self->sizes[k];
    strides[k] = self->strides[k];
  }
  sizes[dim] = len;
  strides[dim] =
      len > 1 ? self->strides[dim] * step : self->strides[dim]; /* step only matters with 2+ elements */
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  const uint8_t *src = (const uint8_t *)self->data + first * self->strides[dim] * (int64_t)es;
  kc_copy(out->data, out->strides, src, strides, self->dim, sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(slice_copy_out, "aten::slice_copy.Tensor_out")
