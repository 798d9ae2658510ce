/* aten::as_strided_copy.out(Tensor self, SymInt[] size, SymInt[] stride,
 *                           SymInt? storage_offset=None, *, Tensor(a!) out)
 * Reads self's memory (as a contiguous storage of its elements) through the
 * given sizes/strides. Every element read must lie inside self's storage;
 * self must be contiguous so its storage is well defined. */
#include "util/copy_util.h"

static pte_status as_strided_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM], offset = 0;
  int32_t n = 0, ns = 0;
  bool has_offset = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_int_list(ctx, args, 2, strides, PTE_MAX_DIM, &ns));
  K_CHECK(k_opt_int(ctx, args, 3, &offset, &has_offset));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_contiguous(ctx, self, "self"));
  if (n != ns) return K_FAIL("mismatch in length of strides and shape");
  if (!has_offset) offset = 0;
  if (offset < 0) return K_FAIL("negative storage offset %lld", (long long)offset);
  int64_t storage = pte_tensor_numel(self), numel = 1, hi = offset;
  for (int32_t k = 0; k < n; k++) {
    if (sizes[k] < 0) return K_FAIL("negative size %lld", (long long)sizes[k]);
    if (strides[k] < 0) return K_FAIL("negative stride %lld", (long long)strides[k]);
    numel = sizes[k] == 0 ? 0 : numel;
  }
  if (numel != 0) {
    for (int32_t k = 0; k < n; k++) {
      /* hi += (size - 1) * stride, refusing anything past the storage */
      if (sizes[k] > 1 && strides[k] > (storage - hi) / (sizes[k] - 1))
        return K_FAIL("the strided view reaches outside the %lld elements of self", (long long)storage);
      hi += (sizes[k] - 1) * strides[k];
    }
    if (hi >= storage)
      return K_FAIL("the strided view reaches outside the %lld elements of self", (long long)storage);
  }
  K_CHECK(k_out(ctx, out, n, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  kc_copy(out->data, out->strides, (const uint8_t *)self->data + offset * (int64_t)es, strides, n, sizes, es);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(as_strided_copy_out, "aten::as_strided_copy.out")
