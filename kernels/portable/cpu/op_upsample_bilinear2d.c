/* aten::upsample_bilinear2d.out(Tensor self, SymInt[2] output_size, bool align_corners,
 *                               float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)
 * aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
 *                                   float[]? scale_factors, *, Tensor(a!) out)
 * Bilinear interpolation with ATen's source index and weight rules
 * (computed in float for float inputs, like ATen's opmath). */
#include "util/kernel_util.h"

typedef struct lin_idx {
  int64_t i0, i1;
  float l0, l1;
} lin_idx;

static float lin_scale(int64_t in, int64_t out, bool align, bool has_scale, double scale) {
  if (align) return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
  return has_scale && scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;
}

static lin_idx lin_index(int64_t dst, int64_t in, int64_t out, bool align, float scale) {
  lin_idx r;
  if (in == out) {
    r.i0 = r.i1 = dst;
    r.l0 = 1;
    r.l1 = 0;
    return r;
  }
  float src = align ? scale * (float)dst : scale * ((float)dst + 0.5f) - 0.5f;
  if (!align && src < 0) src = 0;
  int64_t i0 = (int64_t)floorf(src);
  if (i0 > in - 1) i0 = in - 1;
  float l = src - (float)i0;
  l = l < 0 ? 0 : l > 1 ? 1 : l;
  r.i0 = i0;
  r.i1 = i0 + (i0 < in - 1 ? 1 : 0);
  r.l1 = l;
  r.l0 = 1.0f - l;
  return r;
}

static pte_status bilinear_common(pte_kernel_ctx *ctx, pte_tensor *in, int64_t OH, int64_t OW, bool align,
                                  bool hs, double sh, bool ws, double sw, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, in, "input"));
  if (in->dim != 4) return K_FAIL("expected a 4-D input, got rank %d", (int)in->dim);
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3];
  if (OH <= 0 || OW <= 0)
    return K_FAIL("output size must be positive, got %lldx%lld", (long long)OH, (long long)OW);
  if (H <= 0 || W <= 0) return K_FAIL("input spatial size must be positive");
  int64_t osz[4] = {N, C, OH, OW};
  K_CHECK(k_out(ctx, out, 4, osz));
  float sch = lin_scale(H, OH, align, hs, sh), scw = lin_scale(W, OW, align, ws, sw);
  bool f32 = in->dtype == PTE_FLOAT32;
  const int64_t *is = in->strides, *os = out->strides;
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++) {
      int64_t ib = n * is[0] + c * is[1], ob = n * os[0] + c * os[1];
      for (int64_t oh = 0; oh < OH; oh++) {
        lin_idx h = lin_index(oh, H, OH, align, sch);
        int64_t r0 = ib + h.i0 * is[2], r1 = ib + h.i1 * is[2];
        for (int64_t ow = 0; ow < OW; ow++) {
          lin_idx w = lin_index(ow, W, OW, align, scw);
          int64_t a = w.i0 * is[3], b = w.i1 * is[3], o = ob + oh * os[2] + ow * os[3];
          if (f32) {
            const float *X = (const float *)in->data;
            float v =
                h.l0 * (w.l0 * X[r0 + a] + w.l1 * X[r0 + b]) + h.l1 * (w.l0 * X[r1 + a] + w.l1 * X[r1 + b]);
            ((float *)out->data)[o] = v;
          } else {
            double x00 = k_get_d(in->data, in->dtype, r0 + a), x01 = k_get_d(in->data, in->dtype, r0 + b);
            double x10 = k_get_d(in->data, in->dtype, r1 + a), x11 = k_get_d(in->data, in->dtype, r1 + b);
            double v = h.l0 * (w.l0 * x00 + w.l1 * x01) + h.l1 * (w.l0 * x10 + w.l1 * x11);
            k_set_d(out->data, out->dtype, o, v);
          }
        }
      }
    }
  return PTE_OK;
}

static pte_status upsample_bilinear2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t os[2] = {0, 0};
  int32_t n = 0;
  double sh = 0, sw = 0;
  bool align = false, hs = false, ws = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int_list(ctx, args, 1, os, 2, &n));
  K_CHECK(k_bool(ctx, args, 2, &align));
  K_CHECK(k_opt_double(ctx, args, 3, &sh, &hs));
  K_CHECK(k_opt_double(ctx, args, 4, &sw, &ws));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  if (n != 2) return K_FAIL("output_size must have 2 values");
  return bilinear_common(ctx, in, os[0], os[1], align, hs, sh, ws, sw, out);
}

static pte_status upsample_bilinear2d_vec_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t os[2] = {0, 0};
  int32_t n = -1;
  bool align = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_opt_int_list(ctx, args, 1, os, 2, &n));
  K_CHECK(k_bool(ctx, args, 2, &align));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  if (in->dim != 4) return K_FAIL("expected a 4-D input, got rank %d", (int)in->dim);
  pte_value *sf = args[3];
  if (n >= 0) {
    if (sf->tag != PTE_TAG_NONE) return K_FAIL("must specify exactly one of output_size and scale_factors");
    if (n != 2) return K_FAIL("output_size must have 2 values");
    return bilinear_common(ctx, in, os[0], os[1], align, false, 0, false, 0, out);
  }
  if (sf->tag != PTE_TAG_DOUBLE_LIST || sf->len != 2)
    return K_FAIL("scale_factors must be a list of 2 floats when output_size is None");
  double s0 = sf->u.doubles[0], s1 = sf->u.doubles[1];
  if (!(s0 > 0) || !(s1 > 0) || s0 > 1e9 || s1 > 1e9) return K_FAIL("invalid scale factors");
  double dh = (double)in->sizes[2] * s0, dw = (double)in->sizes[3] * s1;
  if (dh > 4e18 || dw > 4e18) return K_FAIL("scaled output size is too large");
  int64_t OH = (int64_t)dh, OW = (int64_t)dw;
  return bilinear_common(ctx, in, OH, OW, align, true, s0, true, s1, out);
}

PTE_PORTABLE_KERNEL(upsample_bilinear2d_out, "aten::upsample_bilinear2d.out")
PTE_PORTABLE_KERNEL(upsample_bilinear2d_vec_out, "aten::upsample_bilinear2d.vec_out")
