/* quantized_decomposed::dequantize_per_token.out(Tensor input, Tensor scales,
 *     Tensor zero_points, int quant_min, int quant_max, ScalarType dtype,
 *     ScalarType output_dtype, *, Tensor(a!) out)
 *
 * dequantize_per_tensor with one scale and zero point per row of the last
 * dim; out must be output_dtype. */
#include "util/qutil.h"

static pte_status dequantize_per_token_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *in, *scales, *zps, *out;
  int32_t dtype, out_dtype;
  q_affine a = {0};
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_tensor(ctx, args, 1, &scales));
  K_CHECK(k_tensor(ctx, args, 2, &zps));
  K_CHECK(k_int(ctx, args, 3, &a.qmin));
  K_CHECK(k_int(ctx, args, 4, &a.qmax));
  K_CHECK(q_dtype_arg(ctx, args, 5, &dtype));
  K_CHECK(q_dtype_arg(ctx, args, 6, &out_dtype));
  K_CHECK(k_tensor(ctx, args, 7, &out));
  if (in->dim < 1) return K_FAIL("input must have at least one dim");
  K_CHECK(q_check_qrange(ctx, dtype, a.qmin, a.qmax));
  a.channels = q_span(in, 0, in->dim - 1);
  a.inner = in->sizes[in->dim - 1];
  K_CHECK(q_check_channel_params(ctx, scales, zps, a.channels, a.qmin, a.qmax));
  a.scales = scales;
  a.zps = zps;
  K_CHECK(q_dequantize_into(ctx, in, out, dtype, out_dtype, &a));
  q_dequantize_run(&a);
  return PTE_OK;
}

PTE_QUANT_KERNEL(dequantize_per_token_out, "quantized_decomposed::dequantize_per_token.out")
