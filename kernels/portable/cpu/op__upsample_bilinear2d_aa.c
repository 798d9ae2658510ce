/* aten::_upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners,
 *                                   float? scales_h=None, float? scales_w=None, *, Tensor(a!) out)
 * Antialiased bilinear resize of [N, C, H, W] (F.interpolate(...,
 * mode="bilinear", antialias=True)): when shrinking, the triangle filter
 * widens by the scale so every input pixel contributes. Per output pixel
 * and axis: the source centre is scale * (i + 0.5), the taps are the
 * pixels within `support` of it, weighted by the filter and normalized.
 * Floating point only, computed in double. */
#include "util/kernel_util.h"

/* The taps of one output index along one axis (at most AA_TAPS). */
#define AA_TAPS 64
typedef struct aa_taps {
  int64_t first, count;
  double w[AA_TAPS];
} aa_taps;

static double aa_scale(int64_t in, int64_t out, bool align, bool has, double s) {
  if (align) return out > 1 ? (double)(in - 1) / (double)(out - 1) : 0;
  return has && s > 0 ? 1.0 / s : (double)in / (double)out;
}

static void aa_compute(int64_t i, int64_t in, double scale, aa_taps *t) {
  double support = scale >= 1 ? scale : 1, inv = scale >= 1 ? 1 / scale : 1;
  double centre = scale * ((double)i + 0.5);
  int64_t lo = (int64_t)(centre - support + 0.5), hi = (int64_t)(centre + support + 0.5);
  if (lo < 0) lo = 0;
  if (hi > in) hi = in;
  if (hi - lo > AA_TAPS) hi = lo + AA_TAPS;
  t->first = lo;
  t->count = hi > lo ? hi - lo : 0;
  double total = 0;
  for (int64_t j = 0; j < t->count; j++) {
    double x = fabs(((double)(j + lo) - centre + 0.5) * inv);
    t->w[j] = x < 1 ? 1 - x : 0;
    total += t->w[j];
  }
  if (total != 0)
    for (int64_t j = 0; j < t->count; j++) t->w[j] /= total;
}

static pte_status upsample_bilinear2d_aa_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t osz2[2] = {0, 0};
  int32_t n = 0;
  double sh = 0, sw = 0;
  bool align = false, hs = false, ws = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int_list(ctx, args, 1, osz2, 2, &n));
  K_CHECK(k_bool(ctx, args, 2, &align));
  K_CHECK(k_opt_double(ctx, args, 3, &sh, &hs));
  K_CHECK(k_opt_double(ctx, args, 4, &sw, &ws));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  K_CHECK(k_has_data(ctx, in, "input"));
  if (n != 2) return K_FAIL("output_size must have 2 values");
  if (in->dim != 4) return K_FAIL("expected a 4-D input, got rank %d", (int)in->dim);
  if (!k_is_float(in->dtype) || out->dtype != in->dtype)
    return K_FAIL("_upsample_bilinear2d_aa needs one floating point dtype (input %s, out %s)",
                  pte_dtype_name(in->dtype), pte_dtype_name(out->dtype));
  int64_t N = in->sizes[0], C = in->sizes[1], H = in->sizes[2], W = in->sizes[3], OH = osz2[0], OW = osz2[1];
  if (OH <= 0 || OW <= 0 || H <= 0 || W <= 0) return K_FAIL("input and output sizes must be positive");
  double sch = aa_scale(H, OH, align, hs, sh), scw = aa_scale(W, OW, align, ws, sw);
  /* a filter wider than AA_TAPS pixels would need a shrink by more than 31 */
  if (sch * 2 + 2 > AA_TAPS || scw * 2 + 2 > AA_TAPS)
    return K_FAIL("downscaling by more than %d is not supported", AA_TAPS / 2 - 1);
  int64_t osz[4] = {N, C, OH, OW};
  K_CHECK(k_out(ctx, out, 4, osz));
  const int64_t *is = in->strides, *os = out->strides;
  aa_taps th, tw;
  for (int64_t oh = 0; oh < OH; oh++) {
    aa_compute(oh, H, sch, &th);
    for (int64_t ow = 0; ow < OW; ow++) {
      aa_compute(ow, W, scw, &tw);
      for (int64_t b = 0; b < N * C; b++) {
        int64_t base = (b / C) * is[0] + (b % C) * is[1];
        double v = 0;
        for (int64_t y = 0; y < th.count; y++) {
          double row = 0;
          for (int64_t x = 0; x < tw.count; x++)
            row += tw.w[x] *
                   k_get_d(in->data, in->dtype, base + (th.first + y) * is[2] + (tw.first + x) * is[3]);
          v += th.w[y] * row;
        }
        k_set_d(out->data, out->dtype, (b / C) * os[0] + (b % C) * os[1] + oh * os[2] + ow * os[3], v);
      }
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(upsample_bilinear2d_aa_out, "aten::_upsample_bilinear2d_aa.out")
