/* quantized_decomposed::dequantize_per_channel.out(Tensor input,
 *     Tensor scales, Tensor? zero_points, int axis, int quant_min,
 *     int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None,
 *     Tensor(a!) out)
 *
 * dequantize_per_tensor with the scale and zero point (0 when there are
 * none) of each index along `axis`. */
#include "util/qutil.h"

static pte_status dequantize_per_channel_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_CHANNEL, true, 10};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(dequantize_per_channel_out, "quantized_decomposed::dequantize_per_channel.out")
