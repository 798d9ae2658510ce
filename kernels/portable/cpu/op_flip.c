/* aten::flip.out(Tensor self, int[] dims, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status flip_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  bool flip[PTE_MAX_DIM] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, dims[i], self->dim, &d));
    if (self->dim == 0) continue;
    if (flip[d]) return K_FAIL("dim %d appears multiple times in the list of dims", (int)d);
    flip[d] = true;
  }
  K_CHECK(k_out_like(ctx, out, self));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  /* read self backwards along the flipped dims: negative strides from the
   * last element of each */
  size_t es = pte_dtype_size(self->dtype);
  int64_t strides[PTE_MAX_DIM], base = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    strides[k] = self->strides[k];
    if (flip[k]) {
      base += (self->sizes[k] - 1) * self->strides[k];
      strides[k] = -strides[k];
    }
  }
  kc_copy(out->data, out->strides, (const uint8_t *)self->data + base * (int64_t)es, strides, self->dim,
          self->sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(flip_out, "aten::flip.out")
