/* aten::pixel_shuffle.out(Tensor self, int upscale_factor, *, Tensor(a!) out)
 * [*, C*r*r, H, W] → [*, C, H*r, W*r]: out[c, h*r+i, w*r+j] = self[c*r*r + i*r + j, h, w]. */
#include "util/copy_util.h"

static pte_status pixel_shuffle_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t r = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &r));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim < 3)
    return K_FAIL("pixel_shuffle expects input to have at least 3 dimensions, but got %d", (int)self->dim);
  if (self->dim > PTE_MAX_DIM - 2)
    return K_FAIL("pixel_shuffle supports at most %d dimensions", PTE_MAX_DIM - 2);
  if (r <= 0 || r > 65536) return K_FAIL("upscale_factor must be positive, got %lld", (long long)r);
  int32_t nb = self->dim - 3;
  int64_t c = self->sizes[nb], h = self->sizes[nb + 1], w = self->sizes[nb + 2];
  if (c % (r * r))
    return K_FAIL("channels (%lld) must be divisible by the square of upscale_factor (%lld)", (long long)c,
                  (long long)r);
  if (h > INT64_MAX / r || w > INT64_MAX / r) return K_FAIL("the output size overflows");
  int64_t oc = c / (r * r);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < nb; k++) sizes[k] = self->sizes[k];
  sizes[nb] = oc;
  sizes[nb + 1] = h * r;
  sizes[nb + 2] = w * r;
  K_CHECK(k_out(ctx, out, self->dim, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  /* iterate (batch..., c, h, i, w, j) */
  const int64_t *o = out->strides + nb, *s = self->strides + nb;
  int64_t sz5[5] = {oc, h, r, w, r};
  int64_t d5[5] = {o[0], r * o[1], o[1], r * o[2], o[2]};
  int64_t s5[5] = {r * r * s[0], s[1], r * s[0], s[2], s[0]};
  kc_copy_batched_view(out, self, nb, 5, sz5, d5, s5);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(pixel_shuffle_out, "aten::pixel_shuffle.out")
