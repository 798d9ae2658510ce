/* quantized_decomposed::quantize_per_channel.out(Tensor input, Tensor scales,
 *     Tensor zero_points, int axis, int quant_min, int quant_max,
 *     ScalarType dtype, *, Tensor(a!) out)
 *
 * quantize_per_tensor with the scale and zero point of each index along
 * `axis` (one of each per input.size(axis)). */
#include "util/qutil.h"

static pte_status quantize_per_channel_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_CHANNEL, false, 9};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(quantize_per_channel_out, "quantized_decomposed::quantize_per_channel.out")
