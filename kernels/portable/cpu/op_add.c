/* aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out)
 *
 * out = self + alpha * other in the common dtype (ATen's result_type). Like
 * ATen, alpha may be a float only for floating point results and a bool only
 * for bool results. */
#include "util/elementwise_util.h"

K_ROW_FN(add_f32, float, float, a + (float)p->d[0] * b)
K_ROW_FN(add_f64, double, double, a + p->d[0] * b)
K_ROW_FN(add_i64, int64_t, int64_t, ew_addi(a, ew_muli(p->i[0], b)))
K_ROW_FN(add_bool, uint8_t, uint8_t, a || (p->i[0] && b))

static const k_row_fns add_fns = {{add_f32, add_f64, add_i64, add_bool}};

static pte_status add_common(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool scalar) {
  ew_operand self, other;
  k_scalar alpha;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, scalar, &other));
  K_CHECK(k_scalar_arg(ctx, args, 2, &alpha));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  ew_operand *ops[2] = {&self, &other};
  int32_t common = ew_result_type(ops, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  if (alpha.dtype == PTE_BOOL && common != PTE_BOOL)
    return K_FAIL("boolean alpha is only supported for boolean results");
  if (!k_is_float(common) && alpha.dtype == PTE_FLOAT64)
    return K_FAIL("alpha must not be a floating point number for %s inputs", pte_dtype_name(common));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = alpha.d;
  p.i[0] = alpha.i;
  return ew_run(ctx, ops, 2, out, common, k_ctype_of(common), &add_fns, &p);
}

static pte_status add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return add_common(ctx, args, nargs, false);
}

static pte_status add_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return add_common(ctx, args, nargs, true);
}

PTE_PORTABLE_KERNEL(add_out, "aten::add.out")
PTE_PORTABLE_KERNEL(add_scalar_out, "aten::add.Scalar_out")
