/*
 * pterun quantized kernels (libpterun_kernels_quantized): the
 * quantized_decomposed:: operators that programs quantized with PT2E (and
 * ExecuTorch's LLM exports) run outside a delegate: quantize and dequantize
 * per tensor, per channel and per token, choose_qparams, the 8/4/2-bit
 * embedding lookups, mixed-precision matrix products and the quantized add,
 * with ExecuTorch's rounding (half to even), clamping and dtypes (uint8,
 * int8, int16, uint16, int32 codes; float32, float64, float16, bfloat16
 * values).
 *
 * Quantization parameters are program data: a scale that is zero, negative
 * or not finite, a zero point outside the quant range, a range that does not
 * fit the dtype, groups that do not divide a row, or packed sizes that do
 * not match fail the operator with a message.
 *
 * Linking the shared library registers it; a static build calls
 * pte_kernels_quantized_register() once.
 */
#ifndef PTERUN_KERNELS_QUANTIZED_H
#define PTERUN_KERNELS_QUANTIZED_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register every quantized kernel (priority PTE_PRIORITY_PORTABLE). Idempotent. */
PTE_API pte_status pte_kernels_quantized_register(void);

/* Number of operators this library provides. */
PTE_API int32_t pte_kernels_quantized_count(void);

#ifdef __cplusplus
}
#endif

#endif
