/* quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales,
 *     Tensor zero_points, int axis, int quant_min, int quant_max,
 *     ScalarType dtype, *, Tensor(a!) out)
 *
 * quantize_per_tensor with the scale and zero point of each index along
 * `axis` (one of each per input.size(axis)). */
#include "util/qutil.h"

static pte_status quantize_per_channel_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *scales, *zps, *out;
  int64_t axis;
  int32_t dtype;
  int32_t d;
  q_affine a = {0};
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_tensor(ctx, args, 1, &scales));
  K_CHECK(k_tensor(ctx, args, 2, &zps));
  K_CHECK(k_int(ctx, args, 3, &axis));
  K_CHECK(k_int(ctx, args, 4, &a.qmin));
  K_CHECK(k_int(ctx, args, 5, &a.qmax));
  K_CHECK(q_dtype_arg(ctx, args, 6, &dtype));
  K_CHECK(k_tensor(ctx, args, 7, &out));
  if (in->dim < 1) return K_FAIL("input must have at least one dim");
  K_CHECK(k_dim(ctx, axis, in->dim, &d));
  K_CHECK(q_check_qrange(ctx, dtype, a.qmin, a.qmax));
  K_CHECK(q_check_channel_params(ctx, scales, zps, in->sizes[d], a.qmin, a.qmax));
  a.scales = scales;
  a.zps = zps;
  a.channels = in->sizes[d];
  a.inner = q_span(in, d + 1, in->dim);
  K_CHECK(q_quantize_into(ctx, in, out, dtype, &a));
  q_quantize_run(&a);
  return PTE_OK;
}

PTE_QUANT_KERNEL(quantize_per_channel_out, "quantized_decomposed::quantize_per_channel.out")
