/* aten::repeat.out(Tensor self, SymInt[] repeats, *, Tensor(a!) out)
 * len(repeats) >= self.dim; self is treated as having leading size-1 dims. */
#include "util/copy_util.h"

static pte_status repeat_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t rep[PTE_MAX_DIM];
  int32_t r = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, rep, PTE_MAX_DIM, &r));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (r < self->dim)
    return K_FAIL(
        "number of dimensions of repeat dims (%d) can not be smaller than number of dimensions of tensor "
        "(%d)",
        (int)r, (int)self->dim);
  int64_t ps[PTE_MAX_DIM], pst[PTE_MAX_DIM], sizes[PTE_MAX_DIM];
  int32_t lead = r - self->dim;
  for (int32_t k = 0; k < r; k++) {
    ps[k] = k < lead ? 1 : self->sizes[k - lead];
    pst[k] = k < lead ? 0 : self->strides[k - lead];
    if (rep[k] < 0) return K_FAIL("repeats can not be negative, got %lld", (long long)rep[k]);
    if (ps[k] != 0 && rep[k] > INT64_MAX / ps[k]) return K_FAIL("repeated size overflows");
    sizes[k] = ps[k] * rep[k];
  }
  K_CHECK(k_out(ctx, out, r, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  /* view out as [rep0, ps0, rep1, ps1, ...]: the repeat dims read self with
   * stride 0; size-1 dims are dropped */
  int32_t n = 0;
  int64_t vs[2 * PTE_MAX_DIM], vd[2 * PTE_MAX_DIM], vsrc[2 * PTE_MAX_DIM];
  for (int32_t k = 0; k < r; k++) {
    if (rep[k] != 1) {
      vs[n] = rep[k];
      vd[n] = ps[k] * out->strides[k];
      vsrc[n++] = 0;
    }
    if (ps[k] != 1) {
      vs[n] = ps[k];
      vd[n] = out->strides[k];
      vsrc[n++] = pst[k];
    }
  }
  size_t es = pte_dtype_size(self->dtype);
  /* dims beyond what one kc_copy takes are walked here */
  int32_t outer = n > PTE_MAX_DIM ? n - PTE_MAX_DIM : 0;
  int64_t outer_n = k_numel(outer, vs);
  int64_t pos[PTE_MAX_DIM] = {0};
  for (int64_t t = 0; t < outer_n; t++) {
    int64_t doff = 0, soff = 0;
    for (int32_t k = 0; k < outer; k++) {
      doff += pos[k] * vd[k];
      soff += pos[k] * vsrc[k];
    }
    kc_copy((uint8_t *)out->data + doff * (int64_t)es, vd + outer,
            (const uint8_t *)self->data + soff * (int64_t)es, vsrc + outer, n - outer, vs + outer, es);
    for (int32_t k = outer - 1; k >= 0; k--) {
      if (++pos[k] < vs[k]) break;
      pos[k] = 0;
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(repeat_out, "aten::repeat.out")
