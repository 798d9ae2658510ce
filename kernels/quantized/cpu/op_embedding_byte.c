/* quantized_decomposed::embedding_byte.out(Tensor weight, Tensor weight_scales,
 *     Tensor? weight_zero_points, int weight_quant_min, int weight_quant_max,
 *     Tensor indices, *, Tensor(a!) out)
 * quantized_decomposed::embedding_byte.dtype_out(..., ScalarType? dtype=None,
 *     Tensor(a!) out): the same with the scales in any float dtype.
 *
 * out[..., j] = (w[index, j] - zero_point) * scale, with a 8-bit table and
 * one scale (and zero point) per row or per group of a row (see
 * util/embedding.c). */
#include "util/qutil.h"

static pte_status embedding_byte_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return q_embedding(ctx, args, nargs, 8, false);
}

static pte_status embedding_byte_dtype_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return q_embedding(ctx, args, nargs, 8, true);
}

PTE_QUANT_KERNEL(embedding_byte_out, "quantized_decomposed::embedding_byte.out")
PTE_QUANT_KERNEL(embedding_byte_dtype_out, "quantized_decomposed::embedding_byte.dtype_out")
