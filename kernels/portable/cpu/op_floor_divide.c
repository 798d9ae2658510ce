/* aten::floor_divide.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::floor_divide.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * Same as div(rounding_mode='floor'): Python floor division in the common
 * dtype; integer division by zero is an error. For float16/bfloat16 a
 * one-element divisor keeps its own precision, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(floor_divide_f32, float, float, ew_div_floor_f(a, b))
K_ROW_FN(floor_divide_f64, double, double, ew_div_floor_d(a, b))
K_ROW_FN(floor_divide_i64, int64_t, int64_t, ew_div_floor_i(a, b, p))
static const k_row_fns floor_divide_fns = {{floor_divide_f32, floor_divide_f64, floor_divide_i64, NULL}};

static pte_status floor_divide_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_params p;
  memset(&p, 0, sizeof p);
  return ew_binary(ctx, args, nargs, false, false, &floor_divide_fns, EW_NO_BOOL | EW_KEEP_SCALAR, &p);
}

static pte_status floor_divide_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_params p;
  memset(&p, 0, sizeof p);
  return ew_binary(ctx, args, nargs, false, true, &floor_divide_fns, EW_NO_BOOL | EW_KEEP_SCALAR, &p);
}

PTE_PORTABLE_KERNEL(floor_divide_out, "aten::floor_divide.out")
PTE_PORTABLE_KERNEL(floor_divide_scalar_out, "aten::floor_divide.Scalar_out")
