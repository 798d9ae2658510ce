/* quantized_decomposed::dequantize_per_channel.out(Tensor input,
 *     Tensor scales, Tensor? zero_points, int axis, int quant_min,
 *     int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
 *     Tensor(a!) out)
 *
 * dequantize_per_tensor with the scale and zero point (0 when there are
 * none) of each index along `axis`. */
#include "util/qutil.h"

static pte_status dequantize_per_channel_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *scales, *zps, *out;
  int64_t axis;
  int32_t dtype;
  int32_t d, out_dtype;
  bool has_out_dtype;
  q_affine a = {0};
  K_CHECK(k_nargs(ctx, nargs, 10));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_tensor(ctx, args, 1, &scales));
  K_CHECK(k_opt_tensor(ctx, args, 2, &zps));
  K_CHECK(k_int(ctx, args, 3, &axis));
  K_CHECK(k_int(ctx, args, 4, &a.qmin));
  K_CHECK(k_int(ctx, args, 5, &a.qmax));
  K_CHECK(q_dtype_arg(ctx, args, 6, &dtype));
  K_CHECK(k_opt_dtype(ctx, args, 7, &out_dtype, &has_out_dtype));
  K_CHECK(k_tensor(ctx, args, 8, &out));
  if (in->dim < 1) return K_FAIL("input must have at least one dim");
  K_CHECK(k_dim(ctx, axis, in->dim, &d));
  K_CHECK(q_check_qrange(ctx, dtype, a.qmin, a.qmax));
  K_CHECK(q_check_channel_params(ctx, scales, zps, in->sizes[d], a.qmin, a.qmax));
  a.scales = scales;
  a.zps = zps;
  a.channels = in->sizes[d];
  a.inner = q_span(in, d + 1, in->dim);
  K_CHECK(q_dequantize_into(ctx, in, out, dtype, has_out_dtype ? out_dtype : -1, &a));
  q_dequantize_run(&a);
  return PTE_OK;
}

PTE_QUANT_KERNEL(dequantize_per_channel_out, "quantized_decomposed::dequantize_per_channel.out")
