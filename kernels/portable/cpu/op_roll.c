/* aten::roll.out(Tensor self, SymInt[1] shifts, int[1] dims=[], *, Tensor(a!) out)
 * With dims, element j of each dim comes from (j - shift) mod size (several
 * shifts of one dim add up); without, the flattened tensor is rolled. */
#include "util/copy_util.h"

static pte_status roll_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t shifts[PTE_MAX_DIM], dims[PTE_MAX_DIM];
  int32_t ns = 0, nd = 0;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, shifts, PTE_MAX_DIM, &ns));
  K_CHECK(k_int_list(ctx, args, 2, dims, PTE_MAX_DIM, &nd));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (ns == 0) return K_FAIL("shifts must be non-empty");
  if (nd == 0 && ns != 1) return K_FAIL("shifts and dimensions must align. shifts: %d, dims: 0", (int)ns);
  if (nd != 0 && nd != ns)
    return K_FAIL("shifts and dimensions must align. shifts: %d, dims: %d", (int)ns, (int)nd);
  K_CHECK(k_out_like(ctx, out, self));
  int64_t numel = pte_tensor_numel(self);
  if (numel == 0) return PTE_OK;
  size_t es = pte_dtype_size(self->dtype);
  uint8_t *dst = (uint8_t *)out->data;
  const uint8_t *src = (const uint8_t *)self->data;
  if (nd == 0) {
    int64_t s = shifts[0] % numel;
    if (s < 0) s += numel;
    for (int64_t i = 0; i < numel; i++) {
      int64_t j = i + s < numel ? i + s : i + s - numel;
      kc_copy_elem(dst + k_offset(out->dim, out->sizes, out->strides, j) * (int64_t)es,
                   src + k_offset(self->dim, self->sizes, self->strides, i) * (int64_t)es, es);
    }
    return PTE_OK;
  }
  int64_t shift[PTE_MAX_DIM] = {0};
  for (int32_t i = 0; i < nd; i++) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, dims[i], self->dim, &d));
    if (self->dim == 0) continue;
    int64_t size = self->sizes[d];
    int64_t s = shifts[i] % size;
    shift[d] = ((shift[d] + s) % size + size) % size;
  }
  /* each rolled dim splits into two blocks: out[s:] = in[:size-s] and
   * out[:s] = in[size-s:]; walk all 2^k combinations */
  int32_t rolled[PTE_MAX_DIM], nr = 0;
  for (int32_t k = 0; k < self->dim; k++)
    if (shift[k]) rolled[nr++] = k;
  for (uint32_t combo = 0; combo < (1u << nr); combo++) {
    int64_t sizes[PTE_MAX_DIM], doff = 0, soff = 0;
    for (int32_t k = 0; k < self->dim; k++) sizes[k] = self->sizes[k];
    for (int32_t r = 0; r < nr; r++) {
      int32_t k = rolled[r];
      int64_t s = shift[k], size = self->sizes[k];
      if (combo & (1u << r)) { /* out[:s] = in[size-s:] */
        sizes[k] = s;
        soff += (size - s) * self->strides[k];
      } else { /* out[s:] = in[:size-s] */
        sizes[k] = size - s;
        doff += s * out->strides[k];
      }
    }
    kc_copy(dst + doff * (int64_t)es, out->strides, src + soff * (int64_t)es, self->strides, self->dim, sizes,
            es);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(roll_out, "aten::roll.out")
