/* aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool sub_accepts(pte_value *const *args, int32_t nargs) { return o_arith_accepts(args, nargs, O_SUB); }

static pte_status sub_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_arith(ctx, args, nargs, O_SUB);
}

PTE_OPT_KERNEL(sub_out, "aten::sub.out", sub_accepts, NULL)
#define sub_scalar_out sub_out
PTE_OPT_KERNEL(sub_scalar_out, "aten::sub.Scalar_out", sub_accepts, NULL)
