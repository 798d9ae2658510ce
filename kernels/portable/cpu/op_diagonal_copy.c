/* aten::diagonal_copy.out(Tensor self, int offset=0, int dim1=0, int dim2=1, *, Tensor(a!) out)
 * dim1 and dim2 are removed and the diagonal (shifted by offset: above the
 * main one for offset > 0) becomes the last dim. */
#include "util/copy_util.h"

static pte_status diagonal_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t offset = 0, a = 0, b = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &offset));
  K_CHECK(k_int(ctx, args, 2, &a));
  K_CHECK(k_int(ctx, args, 3, &b));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim < 2) return K_FAIL("diagonal expects a tensor with at least 2 dimensions");
  int32_t d1 = 0, d2 = 0;
  K_CHECK(k_dim(ctx, a, self->dim, &d1));
  K_CHECK(k_dim(ctx, b, self->dim, &d2));
  if (d1 == d2)
    return K_FAIL("diagonal dimensions cannot be identical %lld, %lld", (long long)a, (long long)b);
  int64_t s1 = self->sizes[d1], s2 = self->sizes[d2], len = 0, base = 0;
  if (offset >= 0) {
    len = offset >= s2 ? 0 : (s1 < s2 - offset ? s1 : s2 - offset);
    if (len > 0) base = offset * self->strides[d2];
  } else {
    len = offset <= -s1 ? 0 : (s1 + offset < s2 ? s1 + offset : s2);
    if (len > 0) base = -offset * self->strides[d1];
  }
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t n = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == d1 || k == d2) continue;
    sizes[n] = self->sizes[k];
    strides[n++] = self->strides[k];
  }
  sizes[n] = len;
  strides[n++] = self->strides[d1] + self->strides[d2];
  K_CHECK(k_out(ctx, out, n, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  kc_copy(out->data, out->strides, (const uint8_t *)self->data + base * (int64_t)es, strides, n, sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(diagonal_copy_out, "aten::diagonal_copy.out")
