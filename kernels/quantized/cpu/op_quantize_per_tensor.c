/* quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale,
 *     int zero_point, int quant_min, int quant_max, ScalarType dtype, *,
 *     Tensor(a!) out)
 * quantized_decomposed::quantize_per_tensor.Tensor_out(...): the same with
 *     one-element scale and zero_point tensors.
 *
 * out = clamp(round_half_even(input * (1 / scale)) + zero_point, quant_min,
 * quant_max) in `dtype` (uint8, int8, int16, uint16, int32), from any float
 * dtype. */
#include "util/qutil.h"

static pte_status quantize_per_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TENSOR, false, 8};
  return q_affine_op(ctx, args, nargs, &spec);
}

static pte_status quantize_per_tensor_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TENSOR_T, false, 8};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(quantize_per_tensor_out, "quantized_decomposed::quantize_per_tensor.out")
PTE_QUANT_KERNEL(quantize_per_tensor_tensor_out, "quantized_decomposed::quantize_per_tensor.Tensor_out")
