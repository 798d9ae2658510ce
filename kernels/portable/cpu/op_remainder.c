/* aten::remainder.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::remainder.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 * aten::remainder.Scalar_Tensor_out(Scalar self, Tensor other, *, Tensor(a!) out)
 *
 * Python-style modulus: the result has the sign of the divisor. Integer
 * remainder by zero is an error; float remainder by zero is NaN. */
#include "util/elementwise_util.h"

K_ROW_FN(remainder_f32, float, float, ew_rem_f(a, b))
K_ROW_FN(remainder_f64, double, double, ew_rem_d(a, b))
K_ROW_FN(remainder_i64, int64_t, int64_t, ew_rem_i(a, b, p))
static const k_row_fns remainder_fns = {{remainder_f32, remainder_f64, remainder_i64, NULL}};

static pte_status remainder_run(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool self_scalar,
                                bool other_scalar) {
  k_params p;
  memset(&p, 0, sizeof p);
  return ew_binary(ctx, args, nargs, self_scalar, other_scalar, &remainder_fns, EW_NO_BOOL, &p);
}

static pte_status remainder_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return remainder_run(ctx, args, nargs, false, false);
}

static pte_status remainder_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return remainder_run(ctx, args, nargs, false, true);
}

static pte_status remainder_scalar_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return remainder_run(ctx, args, nargs, true, false);
}

PTE_PORTABLE_KERNEL(remainder_tensor_out, "aten::remainder.Tensor_out")
PTE_PORTABLE_KERNEL(remainder_scalar_out, "aten::remainder.Scalar_out")
PTE_PORTABLE_KERNEL(remainder_scalar_tensor_out, "aten::remainder.Scalar_Tensor_out")
