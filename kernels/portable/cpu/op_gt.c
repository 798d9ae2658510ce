/* aten::gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self > other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(gt_f32, float, uint8_t, a > b)
K_ROW_FN(gt_f64, double, uint8_t, a > b)
K_ROW_FN(gt_i64, int64_t, uint8_t, a > b)
K_ROW_FN(gt_bool, uint8_t, uint8_t, a > b)
static const k_row_fns gt_fns = {{gt_f32, gt_f64, gt_i64, gt_bool}};

static pte_status gt_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &gt_fns, EW_PRED, NULL);
}

static pte_status gt_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &gt_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(gt_tensor_out, "aten::gt.Tensor_out")
PTE_PORTABLE_KERNEL(gt_scalar_out, "aten::gt.Scalar_out")
