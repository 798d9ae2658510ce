/* aten::_conj_physical.out(Tensor self, *, Tensor(a!) out)
 * The complex conjugate, written out: (re, -im), complex dtypes only (as
 * ExecuTorch's portable kernel takes). */
#include "util/copy_util.h"

static pte_status conj_physical_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(kc_self_out(ctx, args, nargs, &self, &out));
  int32_t part = k_complex_part(self->dtype);
  if (part < 0) return K_FAIL("_conj_physical expects a complex tensor, got %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s is not %s", pte_dtype_name(out->dtype), pte_dtype_name(self->dtype));
  K_CHECK(k_out(ctx, out, self->dim, self->sizes));
  int64_t n = pte_tensor_numel(out);
  if (n == 0) return PTE_OK;
  kc_copy_tensor(out, self);
  /* every element's imaginary part negated, whatever the layout (out is dense) */
  if (part == PTE_FLOAT32)
    for (int64_t i = 0; i < n; i++) ((float *)out->data)[2 * i + 1] = -((float *)out->data)[2 * i + 1];
  else if (part == PTE_FLOAT64)
    for (int64_t i = 0; i < n; i++) ((double *)out->data)[2 * i + 1] = -((double *)out->data)[2 * i + 1];
  else /* float16: the sign bit */
    for (int64_t i = 0; i < n; i++) ((uint16_t *)out->data)[2 * i + 1] ^= 0x8000u;
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(conj_physical_out, "aten::_conj_physical.out")
