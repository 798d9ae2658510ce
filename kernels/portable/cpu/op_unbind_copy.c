/* aten::unbind_copy.int_out(Tensor self, int dim=0, *, Tensor(a!)[] out) -> () */
#include "util/copy_util.h"

static pte_status unbind_copy_int_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self;
  int64_t dim_arg = 0;
  pte_value *const *outs;
  int32_t nout = 0;
  if (nargs != 3 && nargs != 4) return K_FAIL("expected 4 arguments, got %d", (int)nargs);
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor_list(ctx, args, 2, &outs, &nout));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dim == 0)
    return K_FAIL("dimension specified as %lld but tensor has no dimensions", (long long)dim_arg);
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  if (self->sizes[dim] != nout)
    return K_FAIL("dim %d has size %lld but %d outputs were given", (int)dim, (long long)self->sizes[dim],
                  (int)nout);
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t n = 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (k == dim) continue;
    sizes[n] = self->sizes[k];
    strides[n++] = self->strides[k];
  }
  size_t es = pte_dtype_size(self->dtype);
  for (int32_t i = 0; i < nout; i++) {
    if (!outs[i] || outs[i]->tag != PTE_TAG_TENSOR) return K_FAIL("output %d is not a Tensor", (int)i);
    K_CHECK(kc_same_dtype(ctx, outs[i]->u.tensor, self));
    K_CHECK(kc_no_alias(ctx, outs[i]->u.tensor, self, NULL, NULL));
  }
  for (int32_t i = 0; i < nout; i++) {
    pte_tensor *out = outs[i]->u.tensor;
    K_CHECK(k_out(ctx, out, n, sizes));
    if (pte_tensor_numel(out) > 0)
      kc_copy(out->data, out->strides, (const uint8_t *)self->data + i * self->strides[dim] * (int64_t)es,
              strides, n, sizes, es);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(unbind_copy_int_out, "aten::unbind_copy.int_out")
