/* aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
 * out[i][j][k] = self[index[i][j][k]][j][k] (for dim 0); out has index's
 * shape; index values must be in [0, size) (no negative wrapping). */
#include "util/copy_util.h"

static pte_status gather_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *index, *out;
  int64_t dim_arg = 0;
  bool sparse = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &index));
  K_CHECK(k_bool(ctx, args, 3, &sparse));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, index, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, index, "index"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (index->dtype != PTE_INT64 && index->dtype != PTE_INT32)
    return K_FAIL("index must be int64, not %s", pte_dtype_name(index->dtype));
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  /* 0-dim tensors act as 1-D tensors of one element */
  int32_t rank = self->dim ? self->dim : 1;
  if ((index->dim ? index->dim : 1) != rank)
    return K_FAIL("index tensor must have the same number of dimensions as input tensor");
  int64_t ssz[PTE_MAX_DIM], sst[PTE_MAX_DIM], isz[PTE_MAX_DIM], ist[PTE_MAX_DIM];
  for (int32_t k = 0; k < rank; k++) {
    ssz[k] = self->dim ? self->sizes[k] : 1;
    sst[k] = self->dim ? self->strides[k] : 0;
    isz[k] = index->dim ? index->sizes[k] : 1;
    ist[k] = index->dim ? index->strides[k] : 0;
    if (k != dim && isz[k] > ssz[k])
      return K_FAIL("size does not match at dimension %d: index size %lld is larger than self size %lld",
                    (int)k, (long long)isz[k], (long long)ssz[k]);
  }
  K_CHECK(k_out(ctx, out, index->dim, index->sizes));
  int64_t n = pte_tensor_numel(index);
  if (n == 0) return PTE_OK;
  int64_t ost[PTE_MAX_DIM];
  for (int32_t k = 0; k < rank; k++) ost[k] = out->dim ? out->strides[k] : 0;
  size_t es = pte_dtype_size(self->dtype);
  const uint8_t *src = (const uint8_t *)self->data;
  uint8_t *dst = (uint8_t *)out->data;
  /* odometer over the index positions; the index is read in its own layout */
  int64_t pos[PTE_MAX_DIM] = {0};
  int64_t ioff = 0, ooff = 0, soff = 0; /* soff: self offset without dim */
  int64_t size = ssz[dim];
  for (int64_t e = 0; e < n; e++) {
    int64_t v = k_get_i(index->data, index->dtype, ioff);
    if (v < 0 || v >= size)
      return K_FAIL("index %lld is out of bounds for dimension %d with size %lld", (long long)v, (int)dim,
                    (long long)size);
    kc_copy_elem(dst + ooff * (int64_t)es, src + (soff + v * sst[dim]) * (int64_t)es, es);
    for (int32_t k = rank - 1; k >= 0; k--) {
      ioff += ist[k];
      ooff += ost[k];
      if (k != dim) soff += sst[k];
      if (++pos[k] < isz[k]) break;
      ioff -= ist[k] * isz[k];
      ooff -= ost[k] * isz[k];
      if (k != dim) soff -= sst[k] * isz[k];
      pos[k] = 0;
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(gather_out, "aten::gather.out")
