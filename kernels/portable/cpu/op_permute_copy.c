/* aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status permute_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t perm[PTE_MAX_DIM];
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, perm, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (n != self->dim) return K_FAIL("%d dims given for a rank-%d tensor", (int)n, (int)self->dim);
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  int64_t sizes[PTE_MAX_DIM];
  int64_t strides[PTE_MAX_DIM];
  bool seen[PTE_MAX_DIM] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, perm[i], self->dim, &d));
    if (seen[d]) return K_FAIL("dims is not a permutation");
    seen[d] = true;
    sizes[i] = self->sizes[d];
    strides[i] = self->strides[d];
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_copy(out->data, out->strides, self->data, strides, n, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(permute_copy_out, "aten::permute_copy.out")
