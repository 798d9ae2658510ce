/* aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status expand_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  bool implicit = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_bool(ctx, args, 2, &implicit));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (n < self->dim)
    return K_FAIL("the number of sizes (%d) must be at least the rank of the tensor (%d)", (int)n,
                  (int)self->dim);
  int64_t strides[PTE_MAX_DIM];
  int32_t lead = n - self->dim; /* new leading dims */
  for (int32_t k = 0; k < n; k++) {
    int32_t s = k - lead;
    if (s < 0) {
      if (sizes[k] < 0)
        return K_FAIL("the expanded size %lld is not allowed in a leading, non-existing dimension %d",
                      (long long)sizes[k], (int)k);
      strides[k] = 0;
      continue;
    }
    if (sizes[k] == -1) sizes[k] = self->sizes[s];
    if (sizes[k] < 0) return K_FAIL("invalid size %lld", (long long)sizes[k]);
    if (self->sizes[s] == sizes[k]) {
      strides[k] = self->strides[s];
    } else if (self->sizes[s] == 1) {
      strides[k] = 0;
    } else {
      return K_FAIL("the expanded size %lld must match the existing size %lld at non-singleton dimension %d",
                    (long long)sizes[k], (long long)self->sizes[s], (int)k);
    }
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_copy(out->data, out->strides, self->data, strides, n, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(expand_copy_out, "aten::expand_copy.out")
