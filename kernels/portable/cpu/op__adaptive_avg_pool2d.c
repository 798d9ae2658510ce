/* aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
 * Output cell (i, j) averages input rows [floor(i*H/OH), ceil((i+1)*H/OH))
 * and the same for columns. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status adaptive_avg_pool2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *out;
  int64_t os[2] = {0, 0};
  int32_t n = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int_list(ctx, args, 1, os, 2, &n));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_has_data(ctx, in, "self"));
  if (n != 2) return K_FAIL("output_size must have 2 values");
  if (!k_is_float(in->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  if (in->dim != 3 && in->dim != 4) return K_FAIL("expected a 3-D or 4-D input, got rank %d", (int)in->dim);
  if (os[0] < 0 || os[1] < 0) return K_FAIL("output_size must be non-negative");
  int32_t b = in->dim - 3;
  int64_t H = in->sizes[b + 1], W = in->sizes[b + 2], OH = os[0], OW = os[1];
  for (int32_t i = b; i < in->dim; i++)
    if (in->sizes[i] == 0) return K_FAIL("expected non-empty channel and spatial dims");
  int64_t osz[4];
  for (int32_t i = 0; i <= b; i++) osz[i] = in->sizes[i];
  osz[b + 1] = OH;
  osz[b + 2] = OW;
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
  int64_t planes = k_numel(b + 1, in->sizes);
  bool f32 = in->dtype == PTE_FLOAT32;
  for (int64_t pl = 0; pl < planes; pl++) {
    int64_t ib = pl * H * W, ob = pl * OH * OW;
    const float *X = (const float *)in->data + ib;
    for (int64_t i = 0; i < OH; i++) {
      int64_t hs = (i * H) / OH, he = ((i + 1) * H + OH - 1) / OH;
      for (int64_t j = 0; j < OW; j++) {
        int64_t ws = (j * W) / OW, we = ((j + 1) * W + OW - 1) / OW;
        double s = 0;
        if (f32) {
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++) s += X[h * W + w];
        } else {
          for (int64_t h = hs; h < he; h++)
            for (int64_t w = ws; w < we; w++) s += k_get_d(in->data, in->dtype, ib + h * W + w);
        }
        k_set_d(out->data, out->dtype, ob + i * OW + j, s / (double)((he - hs) * (we - ws)));
      }
    }
  }
  kn_unpack(&v_out_, real_out_);
  return PTE_OK;
}

static size_t adaptive_avg_pool2d_out_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[2] = {0, 2};
  return kn_pack_scratch(args, nargs, idx, 2);
}

PTE_PORTABLE_KERNEL_EX(adaptive_avg_pool2d_out, "aten::_adaptive_avg_pool2d.out", 0,
                       adaptive_avg_pool2d_out_scratch)
