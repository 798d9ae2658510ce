/* aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool add_accepts(pte_value *const *args, int32_t nargs) { return o_arith_accepts(args, nargs, O_ADD); }

static pte_status add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_arith(ctx, args, nargs, O_ADD);
}

PTE_OPT_KERNEL(add_out, "aten::add.out", add_accepts, NULL)
#define add_scalar_out add_out
PTE_OPT_KERNEL(add_scalar_out, "aten::add.Scalar_out", add_accepts, NULL)
