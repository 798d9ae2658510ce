/* aten::split_copy.Tensor_out(Tensor self, SymInt split_size, int dim=0, *, Tensor(a!)[] out) -> ()
 * Chunks of split_size along dim, the last one possibly smaller. */
#include "util/copy_util.h"

static pte_status split_copy_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self;
  int64_t split = 0, dim_arg = 0;
  pte_value *const *outs;
  int32_t nout = 0;
  if (nargs != 4 && nargs != 5) return K_FAIL("expected 5 arguments, got %d", (int)nargs);
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &split));
  K_CHECK(k_int(ctx, args, 2, &dim_arg));
  K_CHECK(k_tensor_list(ctx, args, 3, &outs, &nout));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dim == 0) return K_FAIL("split expects at least a 1-dimensional tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t size = self->sizes[dim];
  if (split < 0) return K_FAIL("split_size must be non-negative, got %lld", (long long)split);
  if (split == 0 && size != 0) return K_FAIL("split_size can only be 0 if dimension size is 0");
  int64_t chunks = (split == 0 || size == 0) ? 1 : (size - 1) / split + 1;
  if (chunks != nout)
    return K_FAIL("split gives %lld chunks but %d outputs were given", (long long)chunks, (int)nout);
  size_t es = pte_dtype_size(self->dtype);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) sizes[k] = self->sizes[k];
  for (int32_t i = 0; i < nout; i++) {
    if (!outs[i] || outs[i]->tag != PTE_TAG_TENSOR) return K_FAIL("output %d is not a Tensor", (int)i);
    K_CHECK(kc_same_dtype(ctx, outs[i]->u.tensor, self));
    K_CHECK(kc_no_alias(ctx, outs[i]->u.tensor, self, NULL, NULL));
  }
  int64_t at = 0;
  for (int32_t i = 0; i < nout; i++) {
    pte_tensor *out = outs[i]->u.tensor;
    sizes[dim] = size - at < split ? size - at : split;
    K_CHECK(k_out(ctx, out, self->dim, sizes));
    if (pte_tensor_numel(out) > 0)
      kc_copy(out->data, out->strides, (const uint8_t *)self->data + at * self->strides[dim] * (int64_t)es,
              self->strides, self->dim, sizes, es);
    at += sizes[dim];
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(split_copy_tensor_out, "aten::split_copy.Tensor_out")
