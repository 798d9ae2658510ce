/* aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool mul_accepts(pte_value *const *args, int32_t nargs) { return o_arith_accepts(args, nargs, O_MUL); }

static pte_status mul_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_arith(ctx, args, nargs, O_MUL);
}

PTE_OPT_KERNEL(mul_out, "aten::mul.out", mul_accepts, NULL)
#define mul_scalar_out mul_out
PTE_OPT_KERNEL(mul_scalar_out, "aten::mul.Scalar_out", mul_accepts, NULL)
