/* aten::rsub.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 *
 * out = other - alpha * self. Bool operands are rejected like ATen does
 * ("use logical_xor / ~ instead"). */
#include "util/elementwise_util.h"

K_ROW_FN(rsub_f32, float, float, a - (float)p->d[0] * b)
K_ROW_FN(rsub_f64, double, double, a - p->d[0] * b)
K_ROW_FN(rsub_i64, int64_t, int64_t, ew_subi(a, ew_muli(p->i[0], b)))

static const k_row_fns rsub_fns = {{rsub_f32, rsub_f64, rsub_i64, NULL}};

static pte_status rsub_common(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, other;
  k_scalar alpha;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, true, &other));
  K_CHECK(k_scalar_arg(ctx, args, 2, &alpha));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (self.t->dtype == PTE_BOOL && other.t->dtype == PTE_BOOL)
    return K_FAIL("subtraction with two bool tensors is not supported (use logical_xor)");
  if (self.t->dtype == PTE_BOOL || other.t->dtype == PTE_BOOL)
    return K_FAIL("subtraction with a bool tensor is not supported (use ~ or logical_not)");
  /* the row function computes a - alpha * b: a = other, b = self */
  ew_operand *ops[2] = {&other, &self};
  int32_t common = ew_result_type(ops, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  if (!k_is_float(common) && alpha.dtype == PTE_FLOAT64)
    return K_FAIL("alpha must not be a floating point number for %s inputs", pte_dtype_name(common));
  if (alpha.dtype == PTE_BOOL && common != PTE_BOOL)
    return K_FAIL("boolean alpha is only supported for boolean results");
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = alpha.d;
  p.i[0] = alpha.i;
  return ew_run(ctx, ops, 2, out, common, k_ctype_of(common), &rsub_fns, &p);
}

static pte_status rsub_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return rsub_common(ctx, args, nargs);
}

PTE_PORTABLE_KERNEL(rsub_scalar_out, "aten::rsub.Scalar_out")
