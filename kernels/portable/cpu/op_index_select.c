/* aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
 * index: int64 or int32, 0-D or 1-D; values must be in [0, size) (no
 * negative wrapping, as in ATen). */
#include "util/copy_util.h"

static pte_status index_select_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *index, *out;
  int64_t dim_arg = 0;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &index));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, index, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, index, "index"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (index->dtype != PTE_INT64 && index->dtype != PTE_INT32)
    return K_FAIL("index must be int64 or int32, not %s", pte_dtype_name(index->dtype));
  if (index->dim > 1) return K_FAIL("index is supposed to be a vector");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t n = pte_tensor_numel(index);
  int64_t istride = index->dim ? index->strides[0] : 0;
  int64_t size = self->dim ? self->sizes[dim] : 1;
  if (self->dim == 0 && n != 1)
    return K_FAIL("index to a scalar can have only 1 value, got %lld", (long long)n);
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t nd = 0; /* the block copied for one index: self without dim */
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == dim) continue;
    sizes[nd] = self->sizes[k];
    strides[nd++] = self->strides[k];
  }
  int64_t osizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) osizes[k] = k == dim ? n : self->sizes[k];
  for (int64_t i = 0; i < n; i++) { /* validate before writing anything */
    int64_t v = k_get_i(index->data, index->dtype, i * istride);
    if (v < 0 || v >= size)
      return K_FAIL("index %lld is out of bounds for dimension %d with size %lld", (long long)v, (int)dim,
                    (long long)size);
  }
  K_CHECK(k_out(ctx, out, self->dim, osizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  int64_t ostrides[PTE_MAX_DIM];
  nd = 0;
  for (int32_t k = 0; k < self->dim; k++)
    if (k != dim) ostrides[nd++] = out->strides[k];
  int64_t sstep = self->dim ? self->strides[dim] : 0, ostep = self->dim ? out->strides[dim] : 0;
  int64_t block = k_numel(nd, sizes);
  for (int64_t i = 0; i < n; i++) {
    int64_t v = k_get_i(index->data, index->dtype, i * istride);
    uint8_t *d = (uint8_t *)out->data + i * ostep * (int64_t)es;
    const uint8_t *s = (const uint8_t *)self->data + v * sstep * (int64_t)es;
    if (block == 1) kc_copy_elem(d, s, es);
    else kc_copy(d, ostrides, s, strides, nd, sizes, es);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(index_select_out, "aten::index_select.out")
