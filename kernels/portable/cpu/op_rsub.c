/* aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 *
 * out = other - alpha * self. Bool operands are rejected like ATen does
 * ("use logical_xor / ~ instead"). */
#include "util/elementwise_util.h"

K_ROW_FN(rsub_f32, float, float, a - (float)p->d[0] * b)
K_ROW_FN(rsub_f64, double, double, a - p->d[0] * b)
K_ROW_FN(rsub_i64, int64_t, int64_t, ew_subi(a, ew_muli(p->i[0], b)))

static const k_row_fns rsub_fns = {{rsub_f32, rsub_f64, rsub_i64, NULL}};

static pte_status rsub_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_alpha_binary(ctx, args, nargs, true, &rsub_fns, EW_SWAP | EW_SUBTRACT); /* other - alpha*self */
}

PTE_PORTABLE_KERNEL(rsub_scalar_out, "aten::rsub.Scalar_out")
