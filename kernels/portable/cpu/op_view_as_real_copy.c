/* aten::view_as_real_copy.out(Tensor self, *, Tensor(a!) out)
 * A complex tensor as its (re, im) pairs: a last dim of 2, of the parts' float dtype. */
#include "util/copy_util.h"

static pte_status view_as_real_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(kc_self_out(ctx, args, nargs, &self, &out));
  int32_t part = k_complex_part(self->dtype);
  if (part < 0) return K_FAIL("view_as_real expects a complex tensor, got %s", pte_dtype_name(self->dtype));
  if (out->dtype != part)
    return K_FAIL("output dtype %s is not %s, the parts of %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(part), pte_dtype_name(self->dtype));
  if (self->dim >= PTE_MAX_DIM)
    return K_FAIL("self has %d dims: no room for the (re, im) dim", (int)self->dim);
  int64_t sizes[PTE_MAX_DIM], ss[PTE_MAX_DIM];
  for (int32_t i = 0; i < self->dim; i++) {
    sizes[i] = self->sizes[i];
    ss[i] = self->strides[i] * 2; /* strides in parts, not in complex elements */
  }
  sizes[self->dim] = 2;
  ss[self->dim] = 1;
  K_CHECK(k_out(ctx, out, self->dim + 1, sizes));
  if (pte_tensor_numel(out) > 0)
    kc_copy(out->data, out->strides, self->data, ss, self->dim + 1, sizes, pte_dtype_size(part));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(view_as_real_copy_out, "aten::view_as_real_copy.out")
