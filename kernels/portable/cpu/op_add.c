/* aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
 * aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) */
#include "util/kernel_util.h"

K_ROW_FN(add_f32, float, float, a + (float)p->d[0] * b)
K_ROW_FN(add_f64, double, double, a + p->d[0] * b)
K_ROW_FN(add_i64, int64_t, int64_t, (int64_t)((uint64_t)a + (uint64_t)p->i[0] * (uint64_t)b))
K_ROW_FN(add_bool, uint8_t, uint8_t, a || (p->i[0] && b))

static const k_row_fns add_fns = {{add_f32, add_f64, add_i64, add_bool}};

static pte_status add_common(pte_kernel_ctx *ctx, pte_value **args, const pte_tensor *self,
                             const pte_tensor *other, k_operand other_op) {
  pte_tensor *out;
  k_scalar alpha;
  K_CHECK(k_scalar_arg(ctx, args, 2, &alpha));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  k_operand ops[2] = {k_tensor_operand(self), other_op};
  int32_t common = k_result_type(ops, 2);
  if (!k_is_float(common) && alpha.dtype == PTE_FLOAT64)
    return K_FAIL("alpha must not be a floating point number for %s inputs", pte_dtype_name(common));
  if (common == PTE_BOOL && alpha.dtype != PTE_BOOL && alpha.i != 1 && alpha.i != 0)
    return K_FAIL("alpha must be a boolean for bool inputs");
  k_params p = {{alpha.d}, {alpha.i}};
  const pte_tensor *ins[2] = {self, other};
  return k_elementwise(ctx, ins, 2, out, common, k_ctype_of(common), &add_fns, &p);
}

static pte_status add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *other;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &other));
  return add_common(ctx, args, self, other, k_tensor_operand(other));
}

static pte_status add_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, other;
  k_scalar s;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_scalar_arg(ctx, args, 1, &s));
  k_scalar_tensor(&s, &other);
  return add_common(ctx, args, self, &other, k_scalar_operand(&s));
}

PTE_PORTABLE_KERNEL(add_out, "aten::add.out")
PTE_PORTABLE_KERNEL(add_scalar_out, "aten::add.Scalar_out")
