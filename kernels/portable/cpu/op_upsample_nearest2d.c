/* aten::upsample_nearest2d.out(Tensor self, SymInt[2] output_size, float? scales_h=None,
 *                              float? scales_w=None, *, Tensor(a!) out)
 * aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size,
 *                                  float[]? scale_factors, *, Tensor(a!) out)
 * out[.., h, w] = in[.., src(h), src(w)] with ATen's nearest_idx:
 * src = min(floor(dst * scale), in - 1), scale = 1/scale_factor when given,
 * else in/out (computed in float like ATen). */
#include "util/kernel_util.h"

static int64_t nearest_idx(int64_t dst, int64_t in, int64_t out, bool has_scale, double scale) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  float s = has_scale && scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
  int64_t src = (int64_t)floorf((float)dst * s);
  return src < in - 1 ? src : in - 1;
}

static pte_status nearest_common(pte_kernel_ctx *ctx, pte_tensor *in, int64_t OH, int64_t OW, bool hs,
                                 double sh, bool ws, double sw, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, in, "input"));
  if (in->dim != 4) return K_FAIL("expected a 4-D input, got rank %d", (int)in->dim);
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  if (pte_dtype_size(in->dtype) == 0) return K_FAIL("invalid dtype");
  int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3];
  if (OH <= 0 || OW <= 0)
    return K_FAIL("output size must be positive, got %lldx%lld", (long long)OH, (long long)OW);
  if (H <= 0 || W <= 0) return K_FAIL("input spatial size must be positive");
  int64_t osz[4] = {N, C, OH, OW};
  K_CHECK(k_out(ctx, out, 4, osz));
  size_t es = pte_dtype_size(in->dtype);
  const uint8_t *src = (const uint8_t *)in->data;
  uint8_t *dst = (uint8_t *)out->data;
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++) {
      int64_t ib = n * in->strides[0] + c * in->strides[1], ob = n * out->strides[0] + c * out->strides[1];
      for (int64_t oh = 0; oh < OH; oh++) {
        int64_t ih = nearest_idx(oh, H, OH, hs, sh);
        const uint8_t *irow = src + (size_t)(ib + ih * in->strides[2]) * es;
        uint8_t *orow = dst + (size_t)(ob + oh * out->strides[2]) * es;
        for (int64_t ow = 0; ow < OW; ow++) {
          int64_t iw = nearest_idx(ow, W, OW, ws, sw);
          memcpy(orow + (size_t)(ow * out->strides[3]) * es, irow + (size_t)(iw * in->strides[3]) * es, es);
        }
      }
    }
  return PTE_OK;
}

static pte_status upsample_nearest2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t os[2] = {0, 0};
  int32_t n = 0;
  double sh = 0, sw = 0;
  bool hs = false, ws = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int_list(ctx, args, 1, os, 2, &n));
  K_CHECK(k_opt_double(ctx, args, 2, &sh, &hs));
  K_CHECK(k_opt_double(ctx, args, 3, &sw, &ws));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  if (n != 2) return K_FAIL("output_size must have 2 values");
  return nearest_common(ctx, in, os[0], os[1], hs, sh, ws, sw, out);
}

static pte_status upsample_nearest2d_vec_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t os[2] = {0, 0};
  int32_t n = -1;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_opt_int_list(ctx, args, 1, os, 2, &n));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (in->dim != 4) return K_FAIL("expected a 4-D input, got rank %d", (int)in->dim);
  pte_value *sf = args[2];
  if (n >= 0) {
    if (sf->tag != PTE_TAG_NONE) return K_FAIL("must specify exactly one of output_size and scale_factors");
    if (n != 2) return K_FAIL("output_size must have 2 values");
    return nearest_common(ctx, in, os[0], os[1], false, 0, false, 0, out);
  }
  if (sf->tag != PTE_TAG_DOUBLE_LIST || sf->len != 2)
    return K_FAIL("scale_factors must be a list of 2 floats when output_size is None");
  double s0 = sf->u.doubles[0], s1 = sf->u.doubles[1];
  if (!(s0 > 0) || !(s1 > 0) || s0 > 1e9 || s1 > 1e9) return K_FAIL("invalid scale factors");
  double dh = (double)in->sizes[2] * s0, dw = (double)in->sizes[3] * s1;
  if (dh > 4e18 || dw > 4e18) return K_FAIL("scaled output size is too large");
  int64_t OH = (int64_t)dh, OW = (int64_t)dw;
  return nearest_common(ctx, in, OH, OW, true, s0, true, s1, out);
}

PTE_PORTABLE_KERNEL(upsample_nearest2d_out, "aten::upsample_nearest2d.out")
PTE_PORTABLE_KERNEL(upsample_nearest2d_vec_out, "aten::upsample_nearest2d.vec_out")
