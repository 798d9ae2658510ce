/* quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale,
 *     int zero_point, int quant_min, int quant_max, ScalarType dtype, *,
 *     ScalarType? out_dtype=None, Tensor(a!) out)
 * quantized_decomposed::dequantize_per_tensor.Tensor_out(...): the same with
 *     one-element scale and zero_point tensors.
 *
 * out = (input - zero_point) * scale, computed in float32 and stored in out's
 * float dtype (out_dtype, when given, must be it). `dtype` must be input's. */
#include "util/qutil.h"

static pte_status dequantize_per_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TENSOR, true, 9};
  return q_affine_op(ctx, args, nargs, &spec);
}

static pte_status dequantize_per_tensor_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  static const q_affine_spec spec = {Q_PER_TENSOR_T, true, 9};
  return q_affine_op(ctx, args, nargs, &spec);
}

PTE_QUANT_KERNEL(dequantize_per_tensor_out, "quantized_decomposed::dequantize_per_tensor.out")
PTE_QUANT_KERNEL(dequantize_per_tensor_tensor_out, "quantized_decomposed::dequantize_per_tensor.Tensor_out")
