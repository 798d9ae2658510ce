/* aten::view_as_complex_copy.out(Tensor self, *, Tensor(a!) out)
 * (re, im) pairs in a last dim of 2 as one complex tensor of the parts'
 * dtype (view_as_real_copy's inverse; pure data movement). */
#include "util/copy_util.h"

static int32_t complex_of(int32_t part) {
  return part == PTE_FLOAT16   ? PTE_COMPLEX32
         : part == PTE_FLOAT32 ? PTE_COMPLEX64
         : part == PTE_FLOAT64 ? PTE_COMPLEX128
                               : -1;
}

static pte_status view_as_complex_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(kc_self_out(ctx, args, nargs, &self, &out));
  int32_t cdt = complex_of(self->dtype);
  if (cdt < 0)
    return K_FAIL("view_as_complex expects float16, float32 or float64, got %s", pte_dtype_name(self->dtype));
  if (self->dim < 1 || self->sizes[self->dim - 1] != 2)
    return K_FAIL("view_as_complex expects a last dim of size 2 (re, im)");
  if (out->dtype != cdt)
    return K_FAIL("output dtype %s is not %s", pte_dtype_name(out->dtype), pte_dtype_name(cdt));
  K_CHECK(k_out(ctx, out, self->dim - 1, self->sizes));
  int64_t ds[PTE_MAX_DIM];
  for (int32_t i = 0; i + 1 < self->dim; i++) ds[i] = out->strides[i] * 2; /* in parts */
  ds[self->dim - 1] = 1;
  if (pte_tensor_numel(out) > 0)
    kc_copy(out->data, ds, self->data, self->strides, self->dim, self->sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(view_as_complex_copy_out, "aten::view_as_complex_copy.out")
