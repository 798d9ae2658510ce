/* aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status view_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  int64_t numel = pte_tensor_numel(self), known = 1;
  int32_t infer = -1;
  for (int32_t i = 0; i < n; i++) {
    if (sizes[i] == -1 && infer < 0) {
      infer = i;
      continue;
    }
    if (sizes[i] < 0) return K_FAIL("invalid size %lld", (long long)sizes[i]);
    if (__builtin_mul_overflow(known, sizes[i], &known)) return K_FAIL("the sizes' product overflows");
  }
  if (infer >= 0) {
    if (known == 0 || numel % known) return K_FAIL("cannot infer the size of dim %d", (int)infer);
    sizes[infer] = numel / known;
    known = numel;
  }
  if (known != numel) return K_FAIL("cannot view %lld elements as %lld", (long long)numel, (long long)known);
  K_CHECK(k_out(ctx, out, n, sizes));
  /* row-major element order; a memmove when both are contiguous (out may
   * share self's memory) */
  kc_copy_flat(out, self);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(view_copy_out, "aten::view_copy.out")
