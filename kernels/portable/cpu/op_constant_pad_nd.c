/* aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
 * pad = (last_before, last_after, second_last_before, ...); negative pads
 * crop. Padded elements are `value` cast to the dtype. */
#include "util/kernel_util.h"

static pte_status constant_pad_nd_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t pad[2 * PTE_MAX_DIM];
  int32_t np = 0;
  k_scalar value;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, pad, 2 * PTE_MAX_DIM, &np));
  K_CHECK(k_scalar_arg(ctx, args, 2, &value));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype)) return K_FAIL("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  if (np % 2) return K_FAIL("padding length must be divisible by 2, got %d", (int)np);
  if (np / 2 > self->dim)
    return K_FAIL("padding length %d is too large for a rank-%d input", (int)np, (int)self->dim);
  for (int32_t i = 0; i < np; i++)
    if (pad[i] > ((int64_t)1 << 48) || pad[i] < -((int64_t)1 << 48))
      return K_FAIL("pad %lld is out of range", (long long)pad[i]);
  int32_t dim = self->dim;
  int64_t before[PTE_MAX_DIM] = {0}, sizes[PTE_MAX_DIM];
  for (int32_t d = 0; d < dim; d++) {
    int32_t j = dim - 1 - d; /* pad pair index for dim d */
    int64_t lo = 0, hi = 0;
    if (j < np / 2) {
      lo = pad[2 * j];
      hi = pad[2 * j + 1];
    }
    int64_t s = self->sizes[d] + lo + hi;
    if (s < 0)
      return K_FAIL("the padded size of dim %d would be %lld: it must be at least 0", (int)d, (long long)s);
    before[d] = lo;
    sizes[d] = s;
  }
  K_CHECK(k_out(ctx, out, dim, sizes));
  size_t es = pte_dtype_size(self->dtype);
  uint8_t fill[8] = {0};
  if (value.dtype == PTE_FLOAT64) k_set_d(fill, self->dtype, 0, value.d);
  else k_set_i(fill, self->dtype, 0, value.i);
  int64_t numel = pte_tensor_numel(out);
  if (numel == 0) return PTE_OK;
  int64_t W = dim ? sizes[dim - 1] : 1, rows = numel / W;
  int64_t iw = dim ? self->sizes[dim - 1] : 1, lo = dim ? before[dim - 1] : 0;
  int64_t sx = dim ? self->strides[dim - 1] : 1, sy = dim ? out->strides[dim - 1] : 1;
  /* valid output columns [c0, c1) map to input column c - lo */
  int64_t c0 = lo > 0 ? lo : 0, c1 = lo + iw < W ? lo + iw : W;
  if (c1 < c0) c1 = c0;
  const uint8_t *src = (const uint8_t *)self->data;
  uint8_t *dst = (uint8_t *)out->data;
  for (int64_t r = 0; r < rows; r++) {
    /* coordinates of this row over the leading dims */
    int64_t rem = r, ioff = 0, ooff = 0;
    bool inside = true;
    for (int32_t d = dim - 2; d >= 0; d--) {
      int64_t c = rem % sizes[d];
      rem /= sizes[d];
      int64_t ic = c - before[d];
      if (ic < 0 || ic >= self->sizes[d]) inside = false;
      ioff += ic * self->strides[d];
      ooff += c * out->strides[d];
    }
    for (int64_t c = 0; c < W; c++) {
      uint8_t *o = dst + (size_t)(ooff + c * sy) * es;
      if (inside && c >= c0 && c < c1) {
        if (sx == 1 && sy == 1) {
          memcpy(o, src + (size_t)(ioff + (c - lo)) * es, (size_t)(c1 - c0) * es);
          c = c1 - 1;
          continue;
        }
        memcpy(o, src + (size_t)(ioff + (c - lo) * sx) * es, es);
      } else {
        memcpy(o, fill, es);
      }
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(constant_pad_nd_out, "aten::constant_pad_nd.out")
