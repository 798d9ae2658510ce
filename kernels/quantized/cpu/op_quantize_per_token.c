/* quantized_decomposed::quantize_per_token.out(Tensor input, Tensor scales,
 *     Tensor zero_points, int quant_min, int quant_max, ScalarType dtype, *,
 *     Tensor(a!) out)
 *
 * quantize_per_tensor with one scale and zero point per token: per row of
 * the last dim (scales and zero points hold one per row, any shape). */
#include "util/qutil.h"

static pte_status quantize_per_token_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TOKEN, false, 8};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(quantize_per_token_out, "quantized_decomposed::quantize_per_token.out")
