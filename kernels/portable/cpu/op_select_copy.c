/* aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status select_copy_int_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0, index = 0;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_int(ctx, args, 2, &index));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim == 0) return K_FAIL("select() cannot be applied to a 0-dim tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  if (index < -size || index >= size)
    return K_FAIL("index %lld out of range for tensor of size %lld at dimension %d", (long long)index,
                  (long long)size, (int)dim);
  if (index < 0) index += size;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t n = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == dim) continue;
    sizes[n] = self->sizes[k];
    strides[n++] = self->strides[k];
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  const uint8_t *src = (const uint8_t *)self->data + index * self->strides[dim] * (int64_t)es;
  kc_copy(out->data, out->strides, src, strides, n, sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(select_copy_int_out, "aten::select_copy.int_out")
