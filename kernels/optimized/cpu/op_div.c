/* aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool div_accepts(pte_value *const *args, int32_t nargs) { return o_arith_accepts(args, nargs, O_DIV); }

static pte_status div_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_arith(ctx, args, nargs, O_DIV);
}

PTE_OPT_KERNEL(div_out, "aten::div.out", div_accepts, NULL)
#define div_scalar_out div_out
PTE_OPT_KERNEL(div_scalar_out, "aten::div.Scalar_out", div_accepts, NULL)
