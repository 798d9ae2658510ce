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

static pte_status add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_alpha_binary(ctx, args, nargs, false, &add_fns, 0);
}

static pte_status add_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_alpha_binary(ctx, args, nargs, true, &add_fns, 0);
}

PTE_PORTABLE_KERNEL(add_out, "aten::add.out")
PTE_PORTABLE_KERNEL(add_scalar_out, "aten::add.Scalar_out")
