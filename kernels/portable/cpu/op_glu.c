/* aten::glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
 * Gated linear unit: self split in halves a, b along dim (of even size),
 * out = a * sigmoid(b). Floating point dtypes only, computed in double. */
#include "util/kernel_util.h"

static pte_status glu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dim = -1;
  int32_t d = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dim == 0) return K_FAIL("glu does not support 0-D tensors");
  K_CHECK(k_dim(ctx, dim, self->dim, &d));
  if (!k_is_float(self->dtype)) return K_FAIL("glu is not implemented for %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  if (self->sizes[d] % 2)
    return K_FAIL("halving dimension must be even, but dimension %d is size %lld", (int)d,
                  (long long)self->sizes[d]);
  int64_t sizes[PTE_MAX_DIM];
  memcpy(sizes, self->sizes, sizeof sizes);
  sizes[d] /= 2;
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  int64_t numel = pte_tensor_numel(out), half = sizes[d] * self->strides[d];
  for (int64_t e = 0; e < numel; e++) {
    int64_t ia = k_offset(self->dim, sizes, self->strides, e);
    double a = k_get_d(self->data, self->dtype, ia), b = k_get_d(self->data, self->dtype, ia + half);
    k_set_d(out->data, out->dtype, k_offset(out->dim, sizes, out->strides, e), a / (1.0 + exp(-b)));
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(glu_out, "aten::glu.out")
