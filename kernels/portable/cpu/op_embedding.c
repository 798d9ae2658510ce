/* aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1,
 *                     bool scale_grad_by_freq=False, bool sparse=False, *, Tensor(a!) out)
 * out[..., :] = weight[indices[...], :]; out has shape indices.shape + [D].
 * Indices (int32/int64) outside [0, V) fail; padding_idx only matters for
 * gradients. */
#include "util/kernel_util.h"

static pte_status embedding_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *weight, *idx, *out;
  int64_t padding_idx = 0;
  bool scale = false, sparse = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &weight));
  K_CHECK(k_tensor(ctx, args, 1, &idx));
  K_CHECK(k_int(ctx, args, 2, &padding_idx));
  K_CHECK(k_bool(ctx, args, 3, &scale));
  K_CHECK(k_bool(ctx, args, 4, &sparse));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  (void)padding_idx;
  if (weight->dim != 2) return K_FAIL("weight must be 2-D, got rank %d", (int)weight->dim);
  if (idx->dtype != PTE_INT64 && idx->dtype != PTE_INT32)
    return K_FAIL("indices must be int32 or int64, got %s", pte_dtype_name(idx->dtype));
  if (out->dtype != weight->dtype)
    return K_FAIL("output dtype %s differs from weight dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(weight->dtype));
  if (idx->dim + 1 > PTE_MAX_DIM) return K_FAIL("indices have too many dims");
  if (pte_dtype_size(weight->dtype) == 0) return K_FAIL("invalid weight dtype");
  K_CHECK(k_has_data(ctx, weight, "weight"));
  K_CHECK(k_has_data(ctx, idx, "indices"));
  int64_t V = weight->sizes[0], D = weight->sizes[1];
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t i = 0; i < idx->dim; i++) sizes[i] = idx->sizes[i];
  sizes[idx->dim] = D;
  int64_t n = pte_tensor_numel(idx);
  /* validate every index before writing anything */
  for (int64_t i = 0; i < n; i++) {
    int64_t v = k_get_i(idx->data, idx->dtype, k_offset(idx->dim, idx->sizes, idx->strides, i));
    if (v < 0 || v >= V)
      return K_FAIL("index %lld is out of range for an embedding of %lld rows", (long long)v, (long long)V);
  }
  K_CHECK(k_out(ctx, out, idx->dim + 1, sizes));
  K_CHECK(k_contiguous(ctx, out, "out"));
  size_t es = pte_dtype_size(weight->dtype);
  const uint8_t *src = (const uint8_t *)weight->data;
  uint8_t *dst = (uint8_t *)out->data;
  for (int64_t i = 0; i < n; i++) {
    int64_t v = k_get_i(idx->data, idx->dtype, k_offset(idx->dim, idx->sizes, idx->strides, i));
    const uint8_t *row = src + (size_t)(v * weight->strides[0]) * es;
    uint8_t *orow = dst + (size_t)(i * D) * es;
    if (weight->strides[1] == 1) {
      memcpy(orow, row, (size_t)D * es);
    } else {
      for (int64_t j = 0; j < D; j++)
        memcpy(orow + (size_t)j * es, row + (size_t)(j * weight->strides[1]) * es, es);
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(embedding_out, "aten::embedding.out")
