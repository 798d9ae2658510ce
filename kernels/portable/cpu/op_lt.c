/* aten::lt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::lt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self < other, compared in the common dtype (ATen's result_type); the
 * output is usually bool but any dtype receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(lt_f32, float, uint8_t, a < b)
K_ROW_FN(lt_f64, double, uint8_t, a < b)
K_ROW_FN(lt_i64, int64_t, uint8_t, a < b)
K_ROW_FN(lt_bool, uint8_t, uint8_t, a < b)
static const k_row_fns lt_fns = {{lt_f32, lt_f64, lt_i64, lt_bool}};

static pte_status lt_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &lt_fns, EW_PRED, NULL);
}

static pte_status lt_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &lt_fns, EW_PRED, NULL);
}

PTE_PORTABLE_KERNEL(lt_tensor_out, "aten::lt.Tensor_out")
PTE_PORTABLE_KERNEL(lt_scalar_out, "aten::lt.Scalar_out")
