/* quantized_decomposed::dequantize_per_token.out(Tensor input, Tensor scales,
 *     Tensor zero_points, int quant_min, int quant_max, ScalarType dtype,
 *     ScalarType output_dtype, *, Tensor(a!) out)
 *
 * dequantize_per_tensor with one scale and zero point per row of the last
 * dim; out must be output_dtype. */
#include "util/qutil.h"

static pte_status dequantize_per_token_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TOKEN, true, 9};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(dequantize_per_token_out, "quantized_decomposed::dequantize_per_token.out")
