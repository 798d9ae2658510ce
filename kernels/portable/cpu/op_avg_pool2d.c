/* aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
 *     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
 *     Tensor(a!) out)
 * Window mean; the divisor is divisor_override, else the window size
 * clipped to the padded input (count_include_pad) or to the input. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status avg_pool2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  bool ceil_mode = false, include_pad = true, has_div = false;
  int64_t divisor = 0;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_bool(ctx, args, 4, &ceil_mode));
  K_CHECK(k_bool(ctx, args, 5, &include_pad));
  K_CHECK(k_opt_int(ctx, args, 6, &divisor, &has_div));
  K_CHECK(k_tensor(ctx, args, 7, &out));
  K_CHECK(k_has_data(ctx, in, "self"));
  if (has_div && divisor == 0) return K_FAIL("divisor must be not zero");
  if (!k_is_supported(in->dtype) || in->dtype == PTE_BOOL)
    return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype) return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                                             pte_dtype_name(in->dtype));
  kn_pool2d p;
  int64_t osz[4];
  K_CHECK(kn_pool2d_init(ctx, args, in, 1, 2, 3, -1, ceil_mode, &p, osz));
  K_CHECK(k_out(ctx, out, in->dim, osz));
  /* strided (channels-last) tensors are repacked into kernel scratch */
  kn_packer pk_;
  kn_packer_init(ctx, &pk_);
  pte_tensor v_in_;
  K_CHECK(kn_pack(ctx, &pk_, in, true, &v_in_));
  in = &v_in_;
  pte_tensor v_out_, *real_out_ = out;
  K_CHECK(kn_pack(ctx, &pk_, out, false, &v_out_));
  out = &v_out_;
  int64_t planes = p.N * p.C, H = p.H, W = p.W, OH = p.OH, OW = p.OW;
  bool f32 = in->dtype == PTE_FLOAT32, is_f = k_is_float(in->dtype);
  for (int64_t pl = 0; pl < planes; pl++) {
    int64_t ib = pl * H * W, ob = pl * OH * OW;
    const float *X = (const float *)in->data + ib;
    for (int64_t oh = 0; oh < OH; oh++) {
      for (int64_t ow = 0; ow < OW; ow++) {
        int64_t hs = oh * p.sh - p.ph, ws = ow * p.sw - p.pw;
        int64_t he = hs + p.kh < H + p.ph ? hs + p.kh : H + p.ph;
        int64_t we = ws + p.kw < W + p.pw ? ws + p.kw : W + p.pw;
        int64_t pool = (he - hs) * (we - ws);
        if (hs < 0) hs = 0;
        if (ws < 0) ws = 0;
        if (he > H) he = H;
        if (we > W) we = W;
        int64_t o = ob + oh * OW + ow;
        if (hs >= he || ws >= we) {
          k_set_d(out->data, out->dtype, o, 0);
          continue;
        }
        int64_t div = has_div ? divisor : include_pad ? pool : (he - hs) * (we - ws);
        if (f32) {
          double s = 0;
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++) s += X[h * W + w];
          ((float *)out->data)[o] = (float)(s / (double)div);
        } else if (is_f) {
          double s = 0;
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++) s += k_get_d(in->data, in->dtype, ib + h * W + w);
          k_set_d(out->data, out->dtype, o, s / (double)div);
        } else {
          /* integers: ATen sums in int64 and divides with truncation */
          int64_t s = 0;
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++) s += k_get_i(in->data, in->dtype, ib + h * W + w);
          k_set_i(out->data, out->dtype, o, s / div);
        }
      }
    }
  }
  kn_unpack(&v_out_, real_out_);
  return PTE_OK;
}

static size_t avg_pool2d_out_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[2] = {0, 7};
  return kn_pack_scratch(args, nargs, idx, 2);
}

PTE_PORTABLE_KERNEL_EX(avg_pool2d_out, "aten::avg_pool2d.out", 0, avg_pool2d_out_scratch)
