/* aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *,
 *                     Tensor(a!) out)
 * aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False)
 *   (in place; args: self, indices, values, accumulate, return slot)
 * out = self with out[indices] = values (values broadcast to the shape of
 * self[indices]); with accumulate, values are added (repeated indices add
 * up). Without it, the last write to a repeated index wins. Index rules as
 * in aten::index.Tensor; values must have self's dtype. */
#include "util/copy_util.h"

static pte_status index_put_common(pte_kernel_ctx *ctx, pte_tensor *self, pte_value *const *items, int32_t n,
                                   pte_tensor *values, bool accumulate, pte_tensor *out) {
  /* out may be self (in place); it must not be one of the other inputs */
  K_CHECK(kc_no_alias(ctx, out, values, NULL, NULL));
  K_CHECK(kc_no_alias_list(ctx, out, items, n));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, values, "values"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (values->dtype != self->dtype)
    return K_FAIL(
        "index_put requires the source and destination dtypes match, got %s for the destination and %s for "
        "the source",
        pte_dtype_name(self->dtype), pte_dtype_name(values->dtype));
  kc_index_plan p;
  K_CHECK(kc_index_plan_init(ctx, &p, self, items, n));
  /* values must broadcast to the indexing result's shape */
  bool ok = values->dim <= p.out_dim;
  for (int32_t k = 0; ok && k < values->dim; k++) {
    int64_t v = values->sizes[k], r = p.out_sizes[p.out_dim - values->dim + k];
    ok = v == r || v == 1;
  }
  if (!ok) {
    char a[160], b[160];
    return K_FAIL(
        "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s",
        pte_shape_str(values->dim, values->sizes, a, sizeof a),
        pte_shape_str(p.out_dim, p.out_sizes, b, sizeof b));
  }
  int64_t bnumel = k_numel(p.bdim, p.bsizes);
  int64_t bpos[PTE_MAX_DIM] = {0};
  int64_t off = 0;
  for (int64_t b = 0; b < bnumel; b++) { /* validate every index first */
    K_CHECK(kc_index_offset(ctx, &p, self, self->strides, bpos, &off));
    for (int32_t k = p.bdim - 1; k >= 0; k--) {
      if (++bpos[k] < p.bsizes[k]) break;
      bpos[k] = 0;
    }
  }
  K_CHECK(k_out_like(ctx, out, self));
  if (out->data != self->data) kc_copy_tensor(out, self);
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  int64_t vst[PTE_MAX_DIM];
  k_broadcast_strides(values, p.out_dim, p.out_sizes, vst);
  size_t es = pte_dtype_size(self->dtype);
  int64_t ssz[PTE_MAX_DIM], dst_st[PTE_MAX_DIM], src_st[PTE_MAX_DIM];
  for (int32_t k = 0; k < p.nslice; k++) {
    ssz[k] = self->sizes[p.slice_self[k]];
    dst_st[k] = out->strides[p.slice_self[k]];
    src_st[k] = vst[p.slice_out[k]];
  }
  int64_t block = k_numel(p.nslice, ssz);
  if (block == 0) return PTE_OK;
  for (int32_t k = 0; k < p.bdim; k++) bpos[k] = 0;
  for (int64_t b = 0; b < bnumel; b++) {
    int64_t doff = 0, soff = 0;
    K_CHECK(kc_index_offset(ctx, &p, self, out->strides, bpos, &doff));
    for (int32_t k = 0; k < p.bdim; k++) soff += bpos[k] * vst[p.bstart + k];
    uint8_t *d = (uint8_t *)out->data + doff * (int64_t)es;
    const uint8_t *s = (const uint8_t *)values->data + soff * (int64_t)es;
    if (accumulate) kc_accumulate(d, dst_st, s, src_st, p.nslice, ssz, self->dtype);
    else if (block == 1) kc_copy_elem(d, s, es);
    else kc_copy(d, dst_st, s, src_st, p.nslice, ssz, es);
    for (int32_t k = p.bdim - 1; k >= 0; k--) {
      if (++bpos[k] < p.bsizes[k]) break;
      bpos[k] = 0;
    }
  }
  return PTE_OK;
}

static pte_status index_put_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values, *out;
  pte_value *const *items;
  int32_t n = 0;
  bool accumulate = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_tensor_list(ctx, args, 1, &items, &n));
  K_CHECK(k_tensor(ctx, args, 2, &values));
  K_CHECK(k_bool(ctx, args, 3, &accumulate));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  return index_put_common(ctx, self, items, n, values, accumulate, out);
}

static pte_status index_put_(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values;
  pte_value *const *items;
  int32_t n = 0;
  bool accumulate = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_tensor_list(ctx, args, 1, &items, &n));
  K_CHECK(k_tensor(ctx, args, 2, &values));
  K_CHECK(k_bool(ctx, args, 3, &accumulate));
  return index_put_common(ctx, self, items, n, values, accumulate, self);
}

PTE_PORTABLE_KERNEL(index_put_out, "aten::index_put.out")
PTE_PORTABLE_KERNEL(index_put_, "aten::index_put_")
