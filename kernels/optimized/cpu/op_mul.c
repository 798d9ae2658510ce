/* aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool mul_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 4 || !o_f32_arg(args, nargs, 2)) return false;
  const pte_tensor *a = o_tensor_arg(args, nargs, 0), *b = o_tensor_arg(args, nargs, 1);
  bool a_f32 = o_is_f32(a), b_f32 = o_is_f32(b);
  if (!a_f32 && !b_f32) return false;
  return o_operand_ok(args, nargs, 0, b_f32 && b->dim > 0) && o_operand_ok(args, nargs, 1, a_f32 && a->dim > 0);
}

static pte_status mul_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  return o_binary(ctx, o_operand_get(args, 0), o_operand_get(args, 1), args[2]->u.tensor, O_MUL, 1.0f);
}

#define mul_scalar_out mul_out
PTE_OPT_KERNEL(mul_out, "aten::mul.out", mul_accepts, NULL)
PTE_OPT_KERNEL(mul_scalar_out, "aten::mul.Scalar_out", mul_accepts, NULL)
