/* aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
 *     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
 * Max over each window (NaN wins); indices (int64) are flat h * W + w
 * positions within the input plane, like ATen. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status max_pool2d_with_indices_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out, *ind;
  bool ceil_mode = false;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_bool(ctx, args, 5, &ceil_mode));
  K_CHECK(k_tensor(ctx, args, 6, &out));
  K_CHECK(k_tensor(ctx, args, 7, &ind));
  K_CHECK(k_has_data(ctx, in, "self"));
  if (!k_is_supported(in->dtype) || in->dtype == PTE_BOOL)
    return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype) return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                                             pte_dtype_name(in->dtype));
  if (ind->dtype != PTE_INT64) return K_FAIL("indices must be int64, got %s", pte_dtype_name(ind->dtype));
  kn_pool2d p;
  int64_t osz[4];
  K_CHECK(kn_pool2d_init(ctx, args, in, 1, 2, 3, 4, ceil_mode, &p, osz));
  K_CHECK(k_out(ctx, out, in->dim, osz));
  K_CHECK(k_out(ctx, ind, in->dim, osz));
  /* strided (channels-last) tensors are repacked into kernel scratch */
  kn_packer pk_;
  kn_packer_init(ctx, &pk_);
  pte_tensor v_in_;
  K_CHECK(kn_pack(ctx, &pk_, in, true, &v_in_));
  in = &v_in_;
  pte_tensor v_out_, *real_out_ = out;
  K_CHECK(kn_pack(ctx, &pk_, out, false, &v_out_));
  out = &v_out_;
  pte_tensor v_ind_, *real_ind_ = ind;
  K_CHECK(kn_pack(ctx, &pk_, ind, false, &v_ind_));
  ind = &v_ind_;
  int64_t planes = p.N * p.C, H = p.H, W = p.W, OH = p.OH, OW = p.OW;
  bool f32 = in->dtype == PTE_FLOAT32, is_f = k_is_float(in->dtype);
  int64_t *I = (int64_t *)ind->data;
  for (int64_t pl = 0; pl < planes; pl++) {
    int64_t ib = pl * H * W, ob = pl * OH * OW;
    const float *X = (const float *)in->data + ib;
    for (int64_t oh = 0; oh < OH; oh++) {
      int64_t hs = oh * p.sh - p.ph, he = hs + (p.kh - 1) * p.dh + 1;
      if (he > H) he = H;
      while (hs < 0) hs += p.dh;
      for (int64_t ow = 0; ow < OW; ow++) {
        int64_t ws = ow * p.sw - p.pw, we = ws + (p.kw - 1) * p.dw + 1;
        if (we > W) we = W;
        while (ws < 0) ws += p.dw;
        int64_t best_i = hs * W + ws;
        if (f32) {
          float best = -INFINITY;
          for (int64_t h = hs; h < he; h += p.dh)
            for (int64_t w = ws; w < we; w += p.dw) {
              float v = X[h * W + w];
              if (v > best || v != v) {
                best = v;
                best_i = h * W + w;
                if (v != v) goto f32_done;
              }
            }
        f32_done:
          ((float *)out->data)[ob + oh * OW + ow] = best;
        } else if (is_f) {
          double best = -INFINITY;
          for (int64_t h = hs; h < he; h += p.dh)
            for (int64_t w = ws; w < we; w += p.dw) {
              double v = k_get_d(in->data, in->dtype, ib + h * W + w);
              if (v > best || v != v) {
                best = v;
                best_i = h * W + w;
                if (v != v) goto f_done;
              }
            }
        f_done:
          k_set_d(out->data, out->dtype, ob + oh * OW + ow, best);
        } else {
          int64_t best = INT64_MIN;
          bool first = true;
          for (int64_t h = hs; h < he; h += p.dh)
            for (int64_t w = ws; w < we; w += p.dw) {
              int64_t v = k_get_i(in->data, in->dtype, ib + h * W + w);
              if (first || v > best) {
                best = v;
                best_i = h * W + w;
                first = false;
              }
            }
          k_set_i(out->data, out->dtype, ob + oh * OW + ow, best);
        }
        I[ob + oh * OW + ow] = best_i;
      }
    }
  }
  kn_unpack(&v_out_, real_out_);
  kn_unpack(&v_ind_, real_ind_);
  return PTE_OK;
}

static size_t max_pool2d_with_indices_out_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[3] = {0, 6, 7};
  return kn_pack_scratch(args, nargs, idx, 3);
}

PTE_PORTABLE_KERNEL_EX(max_pool2d_with_indices_out, "aten::max_pool2d_with_indices.out", 0, max_pool2d_with_indices_out_scratch)
