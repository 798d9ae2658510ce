/* aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
 * out = self, then the positions where the bool mask (broadcast to self's
 * shape) is true take consecutive elements of source (row-major order). */
#include "util/copy_util.h"

static pte_status masked_scatter_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *mask, *source, *out;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &mask));
  K_CHECK(k_tensor(ctx, args, 2, &source));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, mask, source));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, mask, "mask"));
  K_CHECK(k_has_data(ctx, source, "source"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (mask->dtype != PTE_BOOL)
    return K_FAIL("masked_scatter only supports boolean masks, got %s", pte_dtype_name(mask->dtype));
  if (source->dtype != self->dtype)
    return K_FAIL("masked_scatter: expected self and source to have same dtypes but got %s and %s",
                  pte_dtype_name(self->dtype), pte_dtype_name(source->dtype));
  /* the mask must expand to self's shape */
  bool ok = mask->dim <= self->dim;
  for (int32_t k = 0; ok && k < mask->dim; k++) {
    int64_t m = mask->sizes[k], s = self->sizes[self->dim - mask->dim + k];
    ok = m == s || m == 1;
  }
  if (!ok) {
    char a[160], b[160];
    return K_FAIL("mask of shape %s can't be broadcast to self's shape %s",
                  pte_shape_str(mask->dim, mask->sizes, a, sizeof a),
                  pte_shape_str(self->dim, self->sizes, b, sizeof b));
  }
  int64_t mst[PTE_MAX_DIM];
  k_broadcast_strides(mask, self->dim, self->sizes, mst);
  int64_t numel = pte_tensor_numel(self), n = 0, avail = pte_tensor_numel(source);
  const uint8_t *m = (const uint8_t *)mask->data;
  for (int64_t i = 0; i < numel; i++) n += m[k_offset(self->dim, self->sizes, mst, i)] != 0;
  if (n > avail)
    return K_FAIL("number of elements of source (%lld) < number of ones in mask (%lld)", (long long)avail,
                  (long long)n);
  K_CHECK(k_out_like(ctx, out, self));
  kc_copy_tensor(out, self);
  size_t es = pte_dtype_size(self->dtype);
  uint8_t *d = (uint8_t *)out->data;
  const uint8_t *s = (const uint8_t *)source->data;
  int64_t j = 0;
  for (int64_t i = 0; i < numel && j < n; i++) {
    if (!m[k_offset(self->dim, self->sizes, mst, i)]) continue;
    kc_copy_elem(d + k_offset(out->dim, out->sizes, out->strides, i) * (int64_t)es,
                 s + k_offset(source->dim, source->sizes, source->strides, j) * (int64_t)es, es);
    j++;
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(masked_scatter_out, "aten::masked_scatter.out")
