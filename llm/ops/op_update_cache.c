/* llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos,
 *     *, Tensor(b!) out)
 *   cache[:, start_pos : start_pos + S] = value, value [B, S, Hkv, D] and
 *   cache [B, L, Hkv, D] of the same dtype (any: the caches of quantized
 *   programs are int8).
 * llama::update_cache_with_indices.out(Tensor value, Tensor(a!) cache,
 *     SymInt start_pos, Tensor indices, *, Tensor(b!) out)
 *   cache[b, indices[b, s]] = value[b, s] (indices int64 [B, S]; start_pos
 *   unused, as in ExecuTorch), rows in order, so a repeated index keeps the
 *   last.
 * `out` is the exporter's placeholder ([1]): zeroed, as eager returns it. */
#include "llm_ops.h"

static bool cache_accepts(pte_value *const *args, int32_t nargs) {
  const pte_tensor *value = k_arg_tensor(args, nargs, 0), *cache = k_arg_tensor(args, nargs, 1);
  return value && cache && value->dtype == cache->dtype && k_default_order(value) && k_default_order(cache) &&
         (nargs == 5 || nargs == 6) && k_arg_tensor(args, nargs, nargs - 2);
}

static pte_status check_shapes(pte_kernel_ctx *ctx, const pte_tensor *value, const pte_tensor *cache) {
  if (value->dim != 4 || cache->dim != 4) return K_FAIL("value and cache must be 4-D [B, S, H, D]");
  if (value->dtype != cache->dtype) return K_FAIL("value and cache differ in dtype");
  if (value->sizes[0] != cache->sizes[0] || value->sizes[2] != cache->sizes[2] ||
      value->sizes[3] != cache->sizes[3])
    return K_FAIL("value and cache differ in batch, heads or head dim");
  if (cache->flags & PTE_TENSOR_READONLY) return K_FAIL("the cache is read-only (a constant)");
  K_CHECK(k_contiguous(ctx, value, "value"));
  K_CHECK(k_contiguous(ctx, cache, "cache"));
  return k_disjoint(ctx, cache, value, "value");
}

/* Shared with sdpa_with_kv_cache. */
pte_status llm_write_cache(pte_kernel_ctx *ctx, const pte_tensor *value, pte_tensor *cache,
                           int64_t start_pos);
pte_status llm_write_cache(pte_kernel_ctx *ctx, const pte_tensor *value, pte_tensor *cache,
                           int64_t start_pos) {
  K_CHECK(check_shapes(ctx, value, cache));
  const int64_t S = value->sizes[1], L = cache->sizes[1];
  if (start_pos < 0 || S > L || start_pos > L - S)
    return K_FAIL("start_pos %lld + length %lld is outside the cache length %lld", (long long)start_pos,
                  (long long)S, (long long)L);
  if (pte_tensor_numel(value) == 0) return PTE_OK;
  const size_t es = pte_tensor_nbytes(value) / (size_t)pte_tensor_numel(value);
  const size_t row = (size_t)(value->sizes[2] * value->sizes[3]) * es;
  for (int64_t b = 0; b < value->sizes[0]; b++)
    memcpy((char *)cache->data + ((size_t)(b * L + start_pos)) * row,
           (const char *)value->data + (size_t)(b * S) * row, (size_t)S * row);
  return PTE_OK;
}

static void zero_out(pte_tensor *out) {
  if (out->data && pte_tensor_numel(out) > 0) memset(out->data, 0, pte_tensor_nbytes(out));
}

static pte_status update_cache_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_args_have_data(ctx, args, nargs));
  pte_tensor *value, *cache, *out;
  int64_t start_pos;
  K_CHECK(k_tensor(ctx, args, 0, &value));
  K_CHECK(k_tensor(ctx, args, 1, &cache));
  K_CHECK(k_int(ctx, args, 2, &start_pos));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (out->flags & PTE_TENSOR_READONLY) return K_FAIL("the output tensor is read-only (a constant)");
  K_CHECK(k_disjoint(ctx, out, cache, "cache"));
  K_CHECK(llm_write_cache(ctx, value, cache, start_pos));
  zero_out(out);
  return PTE_OK;
}

static pte_status update_cache_with_indices_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_args_have_data(ctx, args, nargs));
  pte_tensor *value, *cache, *indices, *out;
  int64_t start_pos;
  K_CHECK(k_tensor(ctx, args, 0, &value));
  K_CHECK(k_tensor(ctx, args, 1, &cache));
  K_CHECK(k_int(ctx, args, 2, &start_pos));
  K_CHECK(k_tensor(ctx, args, 3, &indices));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  if (out->flags & PTE_TENSOR_READONLY) return K_FAIL("the output tensor is read-only (a constant)");
  K_CHECK(check_shapes(ctx, value, cache));
  K_CHECK(k_disjoint(ctx, out, cache, "cache"));
  const int64_t B = value->sizes[0], S = value->sizes[1], L = cache->sizes[1];
  if (indices->dtype != PTE_INT64 || indices->dim != 2 || indices->sizes[0] != B || indices->sizes[1] != S)
    return K_FAIL("indices must be int64 [%lld, %lld]", (long long)B, (long long)S);
  K_CHECK(k_contiguous(ctx, indices, "indices"));
  const int64_t *idx = indices->data;
  for (int64_t i = 0; i < B * S; i++)
    if (idx[i] < 0 || idx[i] >= L)
      return K_FAIL("index %lld is outside the cache length %lld", (long long)idx[i], (long long)L);
  if (pte_tensor_numel(value) > 0) {
    const size_t es = pte_tensor_nbytes(value) / (size_t)pte_tensor_numel(value);
    const size_t row = (size_t)(value->sizes[2] * value->sizes[3]) * es;
    for (int64_t b = 0; b < B; b++)
      for (int64_t s = 0; s < S; s++)
        memcpy((char *)cache->data + (size_t)(b * L + idx[b * S + s]) * row,
               (const char *)value->data + (size_t)(b * S + s) * row, row);
  }
  zero_out(out);
  return PTE_OK;
}

PTE_LLM_KERNEL(update_cache_out, "llama::update_cache.out", cache_accepts, NULL)
PTE_LLM_KERNEL(update_cache_with_indices_out, "llama::update_cache_with_indices.out", cache_accepts, NULL)
