/* What the quantized kernels share: the ranges of the quantized dtypes, the
 * checks of quantization parameters (a program's scales and zero points are
 * payload data, so a hostile one must fail with a message, never reach a
 * division or an index), element access for the float dtypes, and the
 * quantize/dequantize loops, run over the process pool for large tensors.
 *
 * Internal to kernels_quantized (hidden symbols, q_ prefix). */
#ifndef PTERUN_QUANT_UTIL_H
#define PTERUN_QUANT_UTIL_H

#include <pterun/runtime.h>

#include "klayer.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

/* Each op file ends with one or more of these; CMake collects them into the
 * library's kernel table (see kernels/quantized/CMakeLists.txt). */
#define PTE_QUANT_KERNEL(fn, opname) const pte_kernel pte_quantized_kernel_##fn = {opname, fn, 0, 0};

/* ---- dtypes ---- */

/* The integer range of a quantized dtype (uint8, int8, int16, uint16/bits16,
 * int32); false for any other dtype. */
bool q_dtype_range(int32_t dtype, int64_t *lo, int64_t *hi);
/* float32, float64, float16, bfloat16 */
static inline bool q_is_float(int32_t dt) {
  return dt == PTE_FLOAT32 || dt == PTE_FLOAT64 || dt == PTE_FLOAT16 || dt == PTE_BFLOAT16;
}
/* Element i of a float-dtype buffer, and stores into one (round to nearest
 * even for the 16-bit types). */
double q_load_d(const void *p, int32_t dt, int64_t i);
float q_load_f(const void *p, int32_t dt, int64_t i);
void q_store_f(void *p, int32_t dt, int64_t i, float v);
/* Element i of an integer buffer (uint8 ... int64) as int64, and stores. */
int64_t q_load_i(const void *p, int32_t dt, int64_t i);
void q_store_i(void *p, int32_t dt, int64_t i, int64_t v);

/* ---- parameter checks (each fails the kernel with a message) ---- */

/* A ScalarType argument (an Int holding a dtype code). */
pte_status q_dtype_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t *dtype);

/* quant_min <= quant_max, both inside `dtype`'s range (which must be a
 * quantized dtype). */
pte_status q_check_qrange(pte_kernel_ctx *ctx, int32_t dtype, int64_t qmin, int64_t qmax);
/* A scale that quantization can divide by: finite, > 0, and with a finite
 * float32 reciprocal. `index` < 0 for a per-tensor scale. */
pte_status q_check_scale(pte_kernel_ctx *ctx, double scale, int64_t index);
/* A zero point inside [qmin, qmax]. */
pte_status q_check_zero_point(pte_kernel_ctx *ctx, int64_t zp, int64_t qmin, int64_t qmax, int64_t index);

/* Per-channel parameters: `scales` (float32/float64) and `zps` (int32/int64,
 * NULL means all zero) of n elements each, every one checked, read into the
 * caller's arrays (or, when n is larger than `cap`, checked only: read them
 * again with q_param_*). */
pte_status q_check_channel_params(pte_kernel_ctx *ctx, const pte_tensor *scales, const pte_tensor *zps,
                                  int64_t n, int64_t qmin, int64_t qmax);
static inline double q_param_scale(const pte_tensor *s, int64_t i) {
  return s->dtype == PTE_FLOAT64 ? ((const double *)s->data)[i] : (double)((const float *)s->data)[i];
}
static inline int64_t q_param_zp(const pte_tensor *z, int64_t i) {
  if (!z) return 0;
  return z->dtype == PTE_INT64 ? ((const int64_t *)z->data)[i] : (int64_t)((const int32_t *)z->data)[i];
}
/* A one-element scale (float32/float64) and zero point (int32/int64) tensor
 * (the .Tensor overloads). */
pte_status q_scalar_params(pte_kernel_ctx *ctx, const pte_tensor *scale, const pte_tensor *zp, double *s,
                           int64_t *z);

/* ---- arithmetic ---- */

/* One value quantized: round(x / scale) + zero_point as ExecuTorch computes
 * it (x times the float32 reciprocal of the scale, rounded half to even,
 * the zero point added in float32), clamped to [qmin, qmax]. NaN gives
 * qmin (what ExecuTorch's conversion yields on x86-64); infinities and
 * values beyond int64 saturate. */
static inline int64_t q_quantize_val(float xs, float zp_f, int64_t qmin, int64_t qmax) {
  float v = zp_f + nearbyintf(xs);
  if (isnan(v)) return qmin;
  if (v <= (float)qmin) return qmin;
  if (v >= (float)qmax) return qmax;
  return (int64_t)v;
}

/* The quantize/dequantize loops over contiguous tensors: `n` elements in
 * blocks of `inner`, block b using parameters (scale, zero point) number
 * b % channels (per tensor: channels 1). Split over the pool when large. */
typedef struct q_affine {
  const void *in;
  int32_t in_dtype;
  void *out;
  int32_t out_dtype;
  int64_t n, inner, channels;
  const pte_tensor *scales, *zps; /* per channel; NULL scales: use scale/zp */
  double scale;
  int64_t zp;
  int64_t qmin, qmax;
} q_affine;
void q_quantize_run(const q_affine *a);
void q_dequantize_run(const q_affine *a);

/* The checks and the run of a quantize (dequantize) from `in` into `out`
 * (resized like in): dtypes (float in, `dtype` out; the reverse for
 * dequantize, where out_dtype >= 0 must be out's dtype), the quant range,
 * contiguity, and a's parameters, which the caller has checked. Fills
 * a's buffers and dtypes. */
pte_status q_quantize_into(pte_kernel_ctx *ctx, const pte_tensor *in, pte_tensor *out, int32_t dtype,
                           q_affine *a);
pte_status q_dequantize_into(pte_kernel_ctx *ctx, const pte_tensor *in, pte_tensor *out, int32_t dtype,
                             int32_t out_dtype, q_affine *a);

/* The whole of a quantize_per_* or dequantize_per_* operator: arguments
 * read in their order, every check, the run. The operators differ in how
 * the parameters come (two scalars, two one-element tensors, per index of
 * an axis, per row of the last dim) and in dequantize's output dtype. */
typedef enum q_affine_kind { Q_PER_TENSOR, Q_PER_TENSOR_T, Q_PER_CHANNEL, Q_PER_TOKEN } q_affine_kind;
typedef struct q_affine_spec {
  q_affine_kind kind;
  bool dequantize;
  int32_t nargs;
} q_affine_spec;
pte_status q_affine_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const q_affine_spec *s);

/* choose_qparams: the input float32 and contiguous, qmin < qmax (int32),
 * the outputs float64 (scale) and int64 (zero point), contiguous, writable. */
pte_status q_check_choose(pte_kernel_ctx *ctx, const pte_tensor *in, int64_t qmin, int64_t qmax,
                          const pte_tensor *scale, const pte_tensor *zp);
/* For each of `rows` rows of `len` elements of in: the scale and zero point
 * of its range (min and max, widened to include 0; NaN is skipped),
 * written to scale[r] and zp[r]. */
void q_choose_rows(const pte_tensor *in, int64_t rows, int64_t len, int32_t qmin, int32_t qmax,
                   pte_tensor *scale, pte_tensor *zp);

/* Number of elements from dims [from, to) of t. */
int64_t q_span(const pte_tensor *t, int32_t from, int32_t to);

/* ---- the embedding lookups (embedding_byte, _2bit, _4bit) ---- */

/* nbit 8, 4 or 2: args are (weight, weight_scales, weight_zero_points?,
 * quant_min, quant_max, indices, [dtype?,] out, out) with the dtype argument
 * present when `with_dtype`. */
pte_status q_embedding(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int nbit, bool with_dtype);

#endif
