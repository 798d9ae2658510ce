/* quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale,
 *     int zero_point, int quant_min, int quant_max, ScalarType dtype, *,
 *     Tensor(a!) out)
 * quantized_decomposed::quantize_per_tensor.Tensor_out(...): the same with
 *     one-element scale and zero_point tensors.
 *
 * out = clamp(round_half_even(input * (1 / scale)) + zero_point, quant_min,
 * quant_max) in `dtype` (uint8, int8, int16, uint16, int32), from any float
 * dtype. */
#include "util/qutil.h"

static pte_status quantize(pte_kernel_ctx *ctx, pte_value **args, double scale, int64_t zp) {
  pte_tensor *in, *out;
  int32_t dtype;
  q_affine a = {0};
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_int(ctx, args, 3, &a.qmin));
  K_CHECK(k_int(ctx, args, 4, &a.qmax));
  K_CHECK(q_dtype_arg(ctx, args, 5, &dtype));
  K_CHECK(k_tensor(ctx, args, 6, &out));
  K_CHECK(q_check_qrange(ctx, dtype, a.qmin, a.qmax));
  K_CHECK(q_check_scale(ctx, scale, -1));
  K_CHECK(q_check_zero_point(ctx, zp, a.qmin, a.qmax, -1));
  a.scale = scale;
  a.zp = zp;
  a.channels = 1;
  K_CHECK(q_quantize_into(ctx, in, out, dtype, &a));
  a.inner = a.n;
  q_quantize_run(&a);
  return PTE_OK;
}

static pte_status quantize_per_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  double scale;
  int64_t zp;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_double(ctx, args, 1, &scale));
  K_CHECK(k_int(ctx, args, 2, &zp));
  return quantize(ctx, args, scale, zp);
}

static pte_status quantize_per_tensor_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *s, *z;
  double scale;
  int64_t zp;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_tensor(ctx, args, 1, &s));
  K_CHECK(k_tensor(ctx, args, 2, &z));
  K_CHECK(q_scalar_params(ctx, s, z, &scale, &zp));
  return quantize(ctx, args, scale, zp);
}

PTE_QUANT_KERNEL(quantize_per_tensor_out, "quantized_decomposed::quantize_per_tensor.out")
PTE_QUANT_KERNEL(quantize_per_tensor_tensor_out, "quantized_decomposed::quantize_per_tensor.Tensor_out")
