/* aten::t_copy.out(Tensor self, *, Tensor(a!) out)
 * Transposes a 2-D tensor; 0-D and 1-D tensors are copied as they are. */
#include "util/copy_util.h"

static pte_status t_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(kc_self_out(ctx, args, nargs, &self, &out));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim > 2)
    return K_FAIL("t() expects a tensor with <= 2 dimensions, but self is %dD", (int)self->dim);
  int64_t sizes[2] = {0, 0}, strides[2] = {0, 0};
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = self->sizes[self->dim - 1 - k];
    strides[k] = self->strides[self->dim - 1 - k];
  }
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  kc_copy(out->data, out->strides, self->data, strides, self->dim, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(t_copy_out, "aten::t_copy.out")
