/* aten::sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 * float32 with broadcasting (util/ew.c); a 0-dim tensor of another dtype
 * or a Scalar as the other operand computes in float32 like ATen. */
#include "util/ew.h"

static bool sub_accepts(pte_value *const *args, int32_t nargs) {
  double alpha;
  if (nargs != 5 || !o_f32_arg(args, nargs, 3) || !o_num(args, nargs, 2, &alpha)) return false;
  if (args[2]->tag == PTE_TAG_BOOL) return false;
  const pte_tensor *a = o_tensor_arg(args, nargs, 0), *b = o_tensor_arg(args, nargs, 1);
  bool a_f32 = o_is_f32(a), b_f32 = o_is_f32(b);
  if (!a_f32 && !b_f32) return false;
  return o_operand_ok(args, nargs, 0, b_f32 && b->dim > 0) && o_operand_ok(args, nargs, 1, a_f32 && a->dim > 0);
}

static pte_status sub_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  double alpha = 1.0;
  o_num(args, nargs, 2, &alpha);
  return o_binary(ctx, o_operand_get(args, 0), o_operand_get(args, 1), args[3]->u.tensor, O_SUB, (float)alpha);
}

PTE_OPT_KERNEL(sub_out, "aten::sub.out", sub_accepts, NULL)
#define sub_scalar_out sub_out
PTE_OPT_KERNEL(sub_scalar_out, "aten::sub.Scalar_out", sub_accepts, NULL)
