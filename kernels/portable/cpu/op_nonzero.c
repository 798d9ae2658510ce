/* aten::nonzero.out(Tensor self, *, Tensor(a!) out)
 * out: int64 [n, self.dim], the coordinates of the nonzero elements in
 * row-major order. n depends on the data, so out must have a dynamic bound
 * large enough. */
#include "util/copy_util.h"

static pte_status nonzero_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  if (out->dtype != PTE_INT64) return K_FAIL("the output must be int64, not %s", pte_dtype_name(out->dtype));
  int64_t numel = pte_tensor_numel(self), nnz = 0;
  for (int64_t i = 0; i < numel; i++)
    nnz += k_get_d(self->data, self->dtype, k_offset(self->dim, self->sizes, self->strides, i)) != 0;
  int64_t sizes[2] = {nnz, self->dim};
  K_CHECK(k_out(ctx, out, 2, sizes));
  int64_t *o = (int64_t *)out->data;
  int64_t row = 0;
  for (int64_t i = 0; i < numel && row < nnz; i++) {
    if (k_get_d(self->data, self->dtype, k_offset(self->dim, self->sizes, self->strides, i)) == 0) continue;
    int64_t rem = i;
    for (int32_t k = self->dim - 1; k >= 0; k--) {
      o[row * out->strides[0] + k * out->strides[1]] = rem % self->sizes[k];
      rem /= self->sizes[k];
    }
    row++;
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(nonzero_out, "aten::nonzero.out")
