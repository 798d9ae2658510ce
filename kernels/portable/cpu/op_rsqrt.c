/* aten::rsqrt.out(Tensor self, *, Tensor(a!) out)
 *
 * Reciprocal square root, 1 / sqrt(x).
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(rsqrt_f32, float, float, 1.0f / sqrtf(a))
K_ROW_FN(rsqrt_f64, double, double, 1.0 / sqrt(a))
static const k_row_fns rsqrt_fns = {{rsqrt_f32, rsqrt_f64, NULL, NULL}};

static pte_status rsqrt_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &rsqrt_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(rsqrt_out, "aten::rsqrt.out")
