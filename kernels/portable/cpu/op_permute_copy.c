/* aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out) */
#include "util/kernel_util.h"

static pte_status permute_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t perm[PTE_MAX_DIM];
  int32_t n;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, perm, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (n != self->dim) return K_FAIL("%d dims given for a rank-%d tensor", (int)n, (int)self->dim);
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype), pte_dtype_name(self->dtype));
  int64_t sizes[PTE_MAX_DIM];
  int64_t strides[2][PTE_MAX_DIM];
  bool seen[PTE_MAX_DIM] = {false};
  for (int32_t i = 0; i < n; i++) {
    int32_t d;
    K_CHECK(k_dim(ctx, perm[i], self->dim, &d));
    if (seen[d]) return K_FAIL("dims is not a permutation");
    seen[d] = true;
    sizes[i] = self->sizes[d];
    strides[0][i] = self->strides[d];
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  for (int32_t i = 0; i < n; i++) strides[1][i] = out->strides[i];
  size_t es = pte_dtype_size(self->dtype);
  k_iter it;
  k_iter_init(&it, n, sizes, 2, strides);
  int64_t off[2], len, s0 = k_iter_stride(&it, 0), s1 = k_iter_stride(&it, 1);
  const uint8_t *src = (const uint8_t *)self->data;
  uint8_t *dst = (uint8_t *)out->data;
  while ((len = k_iter_row(&it, off)) > 0) {
    if (s0 == 1 && s1 == 1) {
      memcpy(dst + (size_t)off[1] * es, src + (size_t)off[0] * es, (size_t)len * es);
      continue;
    }
    for (int64_t j = 0; j < len; j++)
      memcpy(dst + (size_t)(off[1] + j * s1) * es, src + (size_t)(off[0] + j * s0) * es, es);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(permute_copy_out, "aten::permute_copy.out")
