/* aten::cos.out(Tensor self, *, Tensor(a!) out)
 *
 * Cosine.
 * Integral and bool inputs compute in float32 (ATen's int-to-float
 * promotion); float16/bfloat16 compute in float and round on store. */
#include "util/elementwise_util.h"

K_ROW_FN(cos_f32, float, float, cosf(a))
K_ROW_FN(cos_f64, double, double, cos(a))
static const k_row_fns cos_fns = {{cos_f32, cos_f64, NULL, NULL}};

static pte_status cos_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &cos_fns, EW_FLOAT, NULL);
}

PTE_PORTABLE_KERNEL(cos_out, "aten::cos.out")
