/* aten::narrow_copy.out(Tensor self, int dim, SymInt start, SymInt length, *, Tensor(a!) out)
 * start may be negative (counted from the end); unlike slicing nothing is
 * clamped: start + length must fit in the dim. */
#include "util/copy_util.h"

static pte_status narrow_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0, start = 0, length = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_int(ctx, args, 2, &start));
  K_CHECK(k_int(ctx, args, 3, &length));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim == 0) return K_FAIL("narrow() cannot be applied to a 0-dim tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  if (start < -size || start > size)
    return K_FAIL("start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                  (long long)-size, (long long)size, (long long)start);
  if (start < 0) start += size;
  if (length < 0 || length > size - start)
    return K_FAIL("start (%lld) + length (%lld) exceeds dimension size (%lld)", (long long)start,
                  (long long)length, (long long)size);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) sizes[k] = k == dim ? length : self->sizes[k];
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  const uint8_t *src = (const uint8_t *)self->data + start * self->strides[dim] * (int64_t)es;
  kc_copy(out->data, out->strides, src, self->strides, self->dim, sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(narrow_copy_out, "aten::narrow_copy.out")
