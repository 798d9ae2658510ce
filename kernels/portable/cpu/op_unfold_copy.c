/* aten::unfold_copy.out(Tensor self, int dimension, int size, int step, *, Tensor(a!) out)
 * Windows of `size` elements every `step` along dimension: that dim becomes
 * the window count and a new last dim of `size` holds each window. */
#include "util/copy_util.h"

static pte_status unfold_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim_arg = 0, size = 0, step = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_int(ctx, args, 2, &size));
  K_CHECK(k_int(ctx, args, 3, &step));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim >= PTE_MAX_DIM) return K_FAIL("the result would have more than %d dims", PTE_MAX_DIM);
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  int64_t dsize = self->dim ? self->sizes[dim] : 1, dstride = self->dim ? self->strides[dim] : 1;
  if (size < 0 || size > dsize)
    return K_FAIL("maximum size for tensor at dimension %d is %lld but size is %lld", (int)dim,
                  (long long)dsize, (long long)size);
  if (step <= 0) return K_FAIL("step is %lld but must be > 0", (long long)step);
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) {
    sizes[k] = self->sizes[k];
    strides[k] = self->strides[k];
  }
  int64_t count = (dsize - size) / step + 1;
  if (self->dim) {
    sizes[dim] = count;
    strides[dim] = count > 1 ? dstride * step : dstride;
  }
  sizes[self->dim] = size;
  strides[self->dim] = dstride;
  K_CHECK(k_out(ctx, out, self->dim + 1, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  kc_copy(out->data, out->strides, self->data, strides, self->dim + 1, sizes, pte_dtype_size(self->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(unfold_copy_out, "aten::unfold_copy.out")
