/* quantized_decomposed::choose_qparams.Tensor_out(Tensor input,
 *     int quant_min, int quant_max, float eps, ScalarType dtype, *,
 *     Tensor(a!) scale_out, Tensor(b!) zero_point_out)
 *
 * The asymmetric scale (float64) and zero point (int64) that map the range
 * of a float32 input, widened to include 0, onto [quant_min, quant_max]
 * (see q_choose_qparams). eps is ignored, as ExecuTorch does. */
#include "util/qutil.h"

static pte_status choose_qparams_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *scale, *zp;
  int64_t qmin, qmax;
  double eps;
  int32_t dtype;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int(ctx, args, 1, &qmin));
  K_CHECK(k_int(ctx, args, 2, &qmax));
  K_CHECK(k_double(ctx, args, 3, &eps));
  K_CHECK(q_dtype_arg(ctx, args, 4, &dtype));
  K_CHECK(k_tensor(ctx, args, 5, &scale));
  K_CHECK(k_tensor(ctx, args, 6, &zp));
  K_CHECK(q_check_choose(ctx, in, qmin, qmax, scale, zp));
  if (pte_tensor_numel(scale) != 1 || pte_tensor_numel(zp) != 1)
    return K_FAIL("scale_out and zero_point_out must have one element");
  q_choose_rows(in, 1, pte_tensor_numel(in), (int32_t)qmin, (int32_t)qmax, scale, zp);
  return PTE_OK;
}

PTE_QUANT_KERNEL(choose_qparams_tensor_out, "quantized_decomposed::choose_qparams.Tensor_out")
