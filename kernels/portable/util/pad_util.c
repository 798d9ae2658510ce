/* Reflection / replication padding: every output element copies one input
 * element, found per padded dim by mirroring (without repeating the edge)
 * or clamping the coordinate. Bytes are copied, so every dtype works. */
#include "pad_util.h"

static int64_t kp_source(int64_t o, int64_t before, int64_t n, kp_mode mode) {
  int64_t i = o - before;
  if (mode == KP_REPLICATE) return i < 0 ? 0 : i >= n ? n - 1 : i;
  if (i < 0) i = -i;
  if (i >= n) i = 2 * (n - 1) - i;
  return i;
}

pte_status kp_pad_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp, kp_mode mode) {
  const char *name = mode == KP_REFLECT ? "reflection" : "replication";
  pte_tensor *self, *out;
  int64_t pad[6];
  int32_t np = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int_list(ctx, args, 1, pad, 6, &np));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (np != 2 * nsp) return K_FAIL("padding must have %d values, got %d", (int)(2 * nsp), (int)np);
  if (self->dim != nsp + 1 && self->dim != nsp + 2)
    return K_FAIL("%s_pad%dd expects a %dD or %dD input, got rank %d", name, (int)nsp, (int)(nsp + 1),
                  (int)(nsp + 2), (int)self->dim);
  if (!k_is_supported(self->dtype) && !k_is_complex(self->dtype))
    return K_FAIL("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  int32_t dim = self->dim, lead = dim - nsp;
  int64_t before[PTE_MAX_DIM] = {0}, sizes[PTE_MAX_DIM];
  for (int32_t d = 0; d < dim; d++) sizes[d] = self->sizes[d];
  for (int32_t j = 0; j < nsp; j++) {
    int32_t d = dim - 1 - j;
    int64_t lo = pad[2 * j], hi = pad[2 * j + 1], n = self->sizes[d];
    if (lo > ((int64_t)1 << 40) || hi > ((int64_t)1 << 40) || lo < -n || hi < -n)
      return K_FAIL("padding (%lld, %lld) is out of range for dim %d of size %lld", (long long)lo,
                    (long long)hi, (int)d, (long long)n);
    /* mirroring reaches at most n - 1 elements past the edge */
    if (mode == KP_REFLECT && (lo >= n || hi >= n))
      return K_FAIL("padding (%lld, %lld) must be less than the size %lld of dim %d", (long long)lo,
                    (long long)hi, (long long)n, (int)d);
    if (n == 0 && (lo > 0 || hi > 0)) return K_FAIL("cannot pad dim %d of size 0", (int)d);
    before[d] = lo;
    sizes[d] = n + lo + hi;
    if (sizes[d] <= 0)
      return K_FAIL("the padded size of dim %d would be %lld: it must be positive", (int)d,
                    (long long)sizes[d]);
  }
  K_CHECK(k_out(ctx, out, dim, sizes));
  K_CHECK(k_disjoint(ctx, out, self, "self"));
  int64_t numel = pte_tensor_numel(out);
  size_t es = pte_dtype_size(self->dtype);
  const uint8_t *src = (const uint8_t *)self->data;
  uint8_t *dst = (uint8_t *)out->data;
  for (int64_t e = 0; e < numel; e++) {
    int64_t rem = e, ioff = 0, ooff = 0;
    for (int32_t d = dim - 1; d >= 0; d--) {
      int64_t c = rem % sizes[d];
      rem /= sizes[d];
      ooff += c * out->strides[d];
      ioff += (d >= lead ? kp_source(c, before[d], self->sizes[d], mode) : c) * self->strides[d];
    }
    memcpy(dst + (size_t)ooff * es, src + (size_t)ioff * es, es);
  }
  return PTE_OK;
}
