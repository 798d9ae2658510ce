/* aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out)
 * self and the bool mask broadcast together; out is 1-D and holds the
 * elements where the mask is true, in row-major order. Its length depends
 * on the data, so out needs a large enough dynamic bound. */
#include "util/copy_util.h"

static pte_status masked_select_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *mask, *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &mask));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, mask, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, mask, "mask"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (mask->dtype != PTE_BOOL)
    return K_FAIL("masked_select: expected a bool mask, got %s", pte_dtype_name(mask->dtype));
  const pte_tensor *ts[2] = {self, mask};
  int32_t dim = 0;
  int64_t sizes[PTE_MAX_DIM], st[2][PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ts, 2, &dim, sizes));
  k_broadcast_strides(self, dim, sizes, st[0]);
  k_broadcast_strides(mask, dim, sizes, st[1]);
  int64_t numel = k_numel(dim, sizes), n = 0;
  const uint8_t *m = (const uint8_t *)mask->data;
  for (int64_t i = 0; i < numel; i++) n += m[k_offset(dim, sizes, st[1], i)] != 0;
  K_CHECK(k_out(ctx, out, 1, &n));
  size_t es = pte_dtype_size(self->dtype);
  uint8_t *d = (uint8_t *)out->data;
  const uint8_t *s = (const uint8_t *)self->data;
  int64_t j = 0;
  for (int64_t i = 0; i < numel && j < n; i++) {
    if (!m[k_offset(dim, sizes, st[1], i)]) continue;
    kc_copy_elem(d + j * out->strides[0] * (int64_t)es, s + k_offset(dim, sizes, st[0], i) * (int64_t)es, es);
    j++;
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(masked_select_out, "aten::masked_select.out")
