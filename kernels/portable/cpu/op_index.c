/* aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
 *
 * Advanced indexing: int64/int32 index tensors (negative values count from
 * the end) and bool/uint8 masks (a k-dim mask indexes k dims with its true
 * positions); the index tensors broadcast together. Their broadcast shape
 * replaces the indexed dims in place when those are adjacent, otherwise it
 * goes first (NumPy rules). Out-of-range indices fail. */
#include "util/copy_util.h"

static pte_status index_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  pte_value *const *items;
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_tensor_list(ctx, args, 1, &items, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(kc_no_alias_list(ctx, out, items, n));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  kc_index_plan p;
  K_CHECK(kc_index_plan_init(ctx, &p, self, items, n));
  int64_t bnumel = k_numel(p.bdim, p.bsizes);
  /* check every index before touching out */
  int64_t bpos[PTE_MAX_DIM] = {0};
  int64_t off = 0;
  for (int64_t b = 0; b < bnumel; b++) {
    K_CHECK(kc_index_offset(ctx, &p, self, self->strides, bpos, &off));
    for (int32_t k = p.bdim - 1; k >= 0; k--) {
      if (++bpos[k] < p.bsizes[k]) break;
      bpos[k] = 0;
    }
  }
  K_CHECK(k_out(ctx, out, p.out_dim, p.out_sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  int64_t ssz[PTE_MAX_DIM], sst[PTE_MAX_DIM], dst_st[PTE_MAX_DIM];
  for (int32_t k = 0; k < p.nslice; k++) {
    ssz[k] = self->sizes[p.slice_self[k]];
    sst[k] = self->strides[p.slice_self[k]];
    dst_st[k] = out->strides[p.slice_out[k]];
  }
  int64_t block = k_numel(p.nslice, ssz);
  for (int32_t k = 0; k < p.bdim; k++) bpos[k] = 0;
  for (int64_t b = 0; b < bnumel; b++) {
    int64_t soff = 0, doff = 0;
    K_CHECK(kc_index_offset(ctx, &p, self, self->strides, bpos, &soff));
    for (int32_t k = 0; k < p.bdim; k++) doff += bpos[k] * out->strides[p.bstart + k];
    uint8_t *d = (uint8_t *)out->data + doff * (int64_t)es;
    const uint8_t *s = (const uint8_t *)self->data + soff * (int64_t)es;
    if (block == 1) kc_copy_elem(d, s, es);
    else kc_copy(d, dst_st, s, sst, p.nslice, ssz, es);
    for (int32_t k = p.bdim - 1; k >= 0; k--) {
      if (++bpos[k] < p.bsizes[k]) break;
      bpos[k] = 0;
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(index_tensor_out, "aten::index.Tensor_out")
