/* The six quantize/dequantize operators' one body (see qutil.h): they
 * differ only in where their arguments sit and how the parameters come. */
#include "qutil.h"

pte_status q_affine_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const q_affine_spec *s) {
  pte_tensor *in, *out, *scales = NULL, *zps = NULL;
  double scale = 0;
  int64_t zp = 0, axis = 0;
  int32_t dtype, out_dtype = -1, d = 0;
  q_affine a = {0};
  const bool tensor = s->kind == Q_PER_TENSOR || s->kind == Q_PER_TENSOR_T;
  K_CHECK(k_nargs(ctx, nargs, s->nargs));
  if (s->kind == Q_PER_TENSOR) {
    K_CHECK(k_double(ctx, args, 1, &scale));
    K_CHECK(k_int(ctx, args, 2, &zp));
  } else if (s->kind == Q_PER_TENSOR_T) {
    pte_tensor *st, *zt;
    K_CHECK(k_tensor(ctx, args, 1, &st));
    K_CHECK(k_tensor(ctx, args, 2, &zt));
    K_CHECK(q_scalar_params(ctx, st, zt, &scale, &zp));
  }
  K_CHECK(k_tensor(ctx, args, 0, &in));
  if (!tensor) {
    K_CHECK(k_tensor(ctx, args, 1, &scales));
    /* dequantize_per_channel alone takes Tensor? zero_points */
    if (s->dequantize && s->kind == Q_PER_CHANNEL) K_CHECK(k_opt_tensor(ctx, args, 2, &zps));
    else K_CHECK(k_tensor(ctx, args, 2, &zps));
  }
  int32_t i = 3;
  if (s->kind == Q_PER_CHANNEL) K_CHECK(k_int(ctx, args, i++, &axis));
  K_CHECK(k_int(ctx, args, i++, &a.qmin));
  K_CHECK(k_int(ctx, args, i++, &a.qmax));
  K_CHECK(q_dtype_arg(ctx, args, i++, &dtype));
  if (s->dequantize) {
    /* per token the output dtype is required, elsewhere optional */
    if (s->kind == Q_PER_TOKEN) {
      K_CHECK(q_dtype_arg(ctx, args, i++, &out_dtype));
    } else {
      bool has;
      K_CHECK(k_opt_dtype(ctx, args, i++, &out_dtype, &has));
      if (!has) out_dtype = -1;
    }
  }
  K_CHECK(k_tensor(ctx, args, i, &out));
  if (!tensor && in->dim < 1) return K_FAIL("input must have at least one dim");
  if (s->kind == Q_PER_CHANNEL) K_CHECK(k_dim(ctx, axis, in->dim, &d));
  K_CHECK(q_check_qrange(ctx, dtype, a.qmin, a.qmax));
  if (tensor) {
    K_CHECK(q_check_scale(ctx, scale, -1));
    K_CHECK(q_check_zero_point(ctx, zp, a.qmin, a.qmax, -1));
    a.scale = scale;
    a.zp = zp;
    a.channels = 1;
  } else {
    if (s->kind == Q_PER_CHANNEL) {
      a.channels = in->sizes[d];
      a.inner = q_span(in, d + 1, in->dim);
    } else {
      a.channels = q_span(in, 0, in->dim - 1);
      a.inner = in->sizes[in->dim - 1];
    }
    K_CHECK(q_check_channel_params(ctx, scales, zps, a.channels, a.qmin, a.qmax));
    a.scales = scales;
    a.zps = zps;
  }
  if (s->dequantize) K_CHECK(q_dequantize_into(ctx, in, out, dtype, out_dtype, &a));
  else K_CHECK(q_quantize_into(ctx, in, out, dtype, &a));
  if (tensor) a.inner = a.n;
  if (s->dequantize) q_dequantize_run(&a);
  else q_quantize_run(&a);
  return PTE_OK;
}
