/* aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 *
 * out = self - alpha * other. Bool operands are rejected like ATen does
 * ("use logical_xor / ~ instead"). */
#include "util/elementwise_util.h"

/* a is the minuend, b the subtrahend (the driver passes operands in order). */
K_ROW_FN(sub_f32, float, float, a - (float)p->d[0] * b)
K_ROW_FN(sub_f64, double, double, a - p->d[0] * b)
K_ROW_FN(sub_i64, int64_t, int64_t, ew_subi(a, ew_muli(p->i[0], b)))

static const k_row_fns sub_fns = {{sub_f32, sub_f64, sub_i64, NULL}};

static pte_status sub_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_alpha_binary(ctx, args, nargs, false, &sub_fns, EW_SUBTRACT);
}

static pte_status sub_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_alpha_binary(ctx, args, nargs, true, &sub_fns, EW_SUBTRACT);
}

PTE_PORTABLE_KERNEL(sub_out, "aten::sub.out")
PTE_PORTABLE_KERNEL(sub_scalar_out, "aten::sub.Scalar_out")
