/* Shared machinery of the quantized kernels (see qutil.h). */
#include "qutil.h"

#include <string.h>

bool q_dtype_range(int32_t dtype, int64_t *lo, int64_t *hi) {
  switch (dtype) {
    case PTE_UINT8: *lo = 0, *hi = UINT8_MAX; return true;
    case PTE_INT8: *lo = INT8_MIN, *hi = INT8_MAX; return true;
    case PTE_INT16: *lo = INT16_MIN, *hi = INT16_MAX; return true;
    case PTE_UINT16:
    case PTE_BITS16: *lo = 0, *hi = UINT16_MAX; return true;
    case PTE_INT32: *lo = INT32_MIN, *hi = INT32_MAX; return true;
    default: return false;
  }
}

double q_load_d(const void *p, int32_t dt, int64_t i) {
  switch (dt) {
    case PTE_FLOAT64: return ((const double *)p)[i];
    case PTE_FLOAT16: return k_half_to_float(((const uint16_t *)p)[i]);
    case PTE_BFLOAT16: return k_bf16_to_float(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
  }
}

float q_load_f(const void *p, int32_t dt, int64_t i) { return (float)q_load_d(p, dt, i); }

void q_store_f(void *p, int32_t dt, int64_t i, float v) {
  switch (dt) {
    case PTE_FLOAT64: ((double *)p)[i] = v; break;
    case PTE_FLOAT16: ((uint16_t *)p)[i] = k_float_to_half(v); break;
    case PTE_BFLOAT16: ((uint16_t *)p)[i] = k_float_to_bf16(v); break;
    default: ((float *)p)[i] = v; break;
  }
}

int64_t q_load_i(const void *p, int32_t dt, int64_t i) {
  switch (dt) {
    case PTE_UINT8: return ((const uint8_t *)p)[i];
    case PTE_INT8: return ((const int8_t *)p)[i];
    case PTE_INT16: return ((const int16_t *)p)[i];
    case PTE_UINT16:
    case PTE_BITS16: return ((const uint16_t *)p)[i];
    case PTE_INT32: return ((const int32_t *)p)[i];
    default: return ((const int64_t *)p)[i];
  }
}

void q_store_i(void *p, int32_t dt, int64_t i, int64_t v) {
  switch (dt) {
    case PTE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case PTE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case PTE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case PTE_UINT16:
    case PTE_BITS16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case PTE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    default: ((int64_t *)p)[i] = v; break;
  }
}

/* ---- parameter checks ---- */

pte_status q_dtype_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t *dtype) {
  int64_t v;
  K_CHECK(k_int(ctx, args, i, &v));
  if (v < 0 || v >= PTE_DTYPE_COUNT || !pte_dtype_size((int32_t)v))
    return K_FAIL("argument %d (%lld) is not a dtype", (int)i, (long long)v);
  *dtype = (int32_t)v;
  return PTE_OK;
}

pte_status q_check_qrange(pte_kernel_ctx *ctx, int32_t dtype, int64_t qmin, int64_t qmax) {
  int64_t lo, hi;
  if (!q_dtype_range(dtype, &lo, &hi)) return K_FAIL("%s is not a quantized dtype", pte_dtype_name(dtype));
  if (qmin > qmax)
    return K_FAIL("quant_min %lld is greater than quant_max %lld", (long long)qmin, (long long)qmax);
  if (qmin < lo || qmax > hi)
    return K_FAIL("quant range [%lld, %lld] does not fit %s [%lld, %lld]", (long long)qmin, (long long)qmax,
                  pte_dtype_name(dtype), (long long)lo, (long long)hi);
  return PTE_OK;
}

pte_status q_check_scale(pte_kernel_ctx *ctx, double scale, int64_t index) {
  float inv = 1.0f / (float)scale;
  if (isfinite(scale) && scale > 0 && (float)scale > 0 && isfinite(inv)) return PTE_OK;
  if (index < 0) return K_FAIL("scale %g is not a positive finite number", scale);
  return K_FAIL("scale %g (channel %lld) is not a positive finite number", scale, (long long)index);
}

pte_status q_check_zero_point(pte_kernel_ctx *ctx, int64_t zp, int64_t qmin, int64_t qmax, int64_t index) {
  if (zp >= qmin && zp <= qmax) return PTE_OK;
  if (index < 0)
    return K_FAIL("zero point %lld is outside the quant range [%lld, %lld]", (long long)zp, (long long)qmin,
                  (long long)qmax);
  return K_FAIL("zero point %lld (channel %lld) is outside the quant range [%lld, %lld]", (long long)zp,
                (long long)index, (long long)qmin, (long long)qmax);
}

pte_status q_check_channel_params(pte_kernel_ctx *ctx, const pte_tensor *scales, const pte_tensor *zps,
                                  int64_t n, int64_t qmin, int64_t qmax) {
  if (scales->dtype != PTE_FLOAT32 && scales->dtype != PTE_FLOAT64)
    return K_FAIL("scales are %s, expected float32 or float64", pte_dtype_name(scales->dtype));
  if (pte_tensor_numel(scales) != n)
    return K_FAIL("%lld scales for %lld channels", (long long)pte_tensor_numel(scales), (long long)n);
  K_CHECK(k_contiguous(ctx, scales, "scales"));
  K_CHECK(k_has_data(ctx, scales, "scales"));
  if (zps) {
    if (zps->dtype != PTE_INT32 && zps->dtype != PTE_INT64)
      return K_FAIL("zero points are %s, expected int32 or int64", pte_dtype_name(zps->dtype));
    if (pte_tensor_numel(zps) != n)
      return K_FAIL("%lld zero points for %lld channels", (long long)pte_tensor_numel(zps), (long long)n);
    K_CHECK(k_contiguous(ctx, zps, "zero points"));
    K_CHECK(k_has_data(ctx, zps, "zero points"));
  }
  for (int64_t i = 0; i < n; i++) {
    K_CHECK(q_check_scale(ctx, q_param_scale(scales, i), i));
    K_CHECK(q_check_zero_point(ctx, q_param_zp(zps, i), qmin, qmax, i));
  }
  return PTE_OK;
}

pte_status q_scalar_params(pte_kernel_ctx *ctx, const pte_tensor *scale, const pte_tensor *zp, double *s,
                           int64_t *z) {
  if (scale->dtype != PTE_FLOAT32 && scale->dtype != PTE_FLOAT64)
    return K_FAIL("scale is %s, expected float32 or float64", pte_dtype_name(scale->dtype));
  if (zp->dtype != PTE_INT32 && zp->dtype != PTE_INT64)
    return K_FAIL("zero_point is %s, expected int32 or int64", pte_dtype_name(zp->dtype));
  if (pte_tensor_numel(scale) != 1 || pte_tensor_numel(zp) != 1)
    return K_FAIL("scale and zero_point must have one element (have %lld and %lld)",
                  (long long)pte_tensor_numel(scale), (long long)pte_tensor_numel(zp));
  K_CHECK(k_has_data(ctx, scale, "scale"));
  K_CHECK(k_has_data(ctx, zp, "zero_point"));
  *s = q_param_scale(scale, 0);
  *z = q_param_zp(zp, 0);
  return PTE_OK;
}

int64_t q_span(const pte_tensor *t, int32_t from, int32_t to) {
  int64_t n = 1;
  for (int32_t d = from; d < to; d++) n *= t->sizes[d];
  return n;
}

/* ---- the affine loops ---- */

static void params_of(const q_affine *a, int64_t block, double *scale, int64_t *zp) {
  if (!a->scales) {
    *scale = a->scale;
    *zp = a->zp;
    return;
  }
  int64_t c = block % a->channels;
  *scale = q_param_scale(a->scales, c);
  *zp = q_param_zp(a->zps, c);
}

static void quantize_range(void *user, size_t begin, size_t end) {
  const q_affine *a = (const q_affine *)user;
  int64_t i = (int64_t)begin;
  while (i < (int64_t)end) {
    int64_t block = i / a->inner, stop = (block + 1) * a->inner;
    if (stop > (int64_t)end) stop = (int64_t)end;
    double scale;
    int64_t zp;
    params_of(a, block, &scale, &zp);
    const float inv = 1.0f / (float)scale, zp_f = (float)(int32_t)zp;
    if (a->in_dtype == PTE_FLOAT32 && a->out_dtype == PTE_INT8) {
      const float *x = (const float *)a->in;
      int8_t *q = (int8_t *)a->out;
      for (; i < stop; i++) q[i] = (int8_t)q_quantize_val(inv * x[i], zp_f, a->qmin, a->qmax);
    } else if (a->in_dtype == PTE_FLOAT32 && a->out_dtype == PTE_UINT8) {
      const float *x = (const float *)a->in;
      uint8_t *q = (uint8_t *)a->out;
      for (; i < stop; i++) q[i] = (uint8_t)q_quantize_val(inv * x[i], zp_f, a->qmin, a->qmax);
    } else if (a->in_dtype == PTE_FLOAT64) {
      /* float * double is a double product, rounded to float before rounding */
      const double *x = (const double *)a->in;
      for (; i < stop; i++)
        q_store_i(a->out, a->out_dtype, i,
                  q_quantize_val((float)((double)inv * x[i]), zp_f, a->qmin, a->qmax));
    } else {
      for (; i < stop; i++)
        q_store_i(a->out, a->out_dtype, i,
                  q_quantize_val(inv * q_load_f(a->in, a->in_dtype, i), zp_f, a->qmin, a->qmax));
    }
  }
}

static void dequantize_range(void *user, size_t begin, size_t end) {
  const q_affine *a = (const q_affine *)user;
  int64_t i = (int64_t)begin;
  while (i < (int64_t)end) {
    int64_t block = i / a->inner, stop = (block + 1) * a->inner;
    if (stop > (int64_t)end) stop = (int64_t)end;
    double scale;
    int64_t zp;
    params_of(a, block, &scale, &zp);
    /* (q - zero point) times the float32 scale, in float32 */
    const float s = (float)scale;
    if (a->in_dtype == PTE_INT8 && a->out_dtype == PTE_FLOAT32) {
      const int8_t *q = (const int8_t *)a->in;
      float *y = (float *)a->out;
      for (; i < stop; i++) y[i] = (float)((int64_t)q[i] - zp) * s;
    } else if (a->in_dtype == PTE_UINT8 && a->out_dtype == PTE_FLOAT32) {
      const uint8_t *q = (const uint8_t *)a->in;
      float *y = (float *)a->out;
      for (; i < stop; i++) y[i] = (float)((int64_t)q[i] - zp) * s;
    } else {
      for (; i < stop; i++)
        q_store_f(a->out, a->out_dtype, i, (float)(q_load_i(a->in, a->in_dtype, i) - zp) * s);
    }
  }
}

void q_quantize_run(const q_affine *a) {
  if (a->n > 0) k_parallel_for((size_t)a->n, 4.0 * (double)a->n, quantize_range, (void *)a);
}

void q_dequantize_run(const q_affine *a) {
  if (a->n > 0) k_parallel_for((size_t)a->n, 2.0 * (double)a->n, dequantize_range, (void *)a);
}

static pte_status common_into(pte_kernel_ctx *ctx, const pte_tensor *in, pte_tensor *out, q_affine *a) {
  K_CHECK(k_contiguous(ctx, in, "input"));
  K_CHECK(k_has_data(ctx, in, "input"));
  K_CHECK(k_out_like(ctx, out, in));
  K_CHECK(k_contiguous(ctx, out, "out"));
  if (pte_dtype_size(in->dtype) == pte_dtype_size(out->dtype) ? in->data != out->data && k_overlap(in, out)
                                                              : k_overlap(in, out))
    return K_FAIL("out must not share memory with the input");
  a->in = in->data;
  a->in_dtype = in->dtype;
  a->out = out->data;
  a->out_dtype = out->dtype;
  a->n = pte_tensor_numel(in);
  return PTE_OK;
}

pte_status q_quantize_into(pte_kernel_ctx *ctx, const pte_tensor *in, pte_tensor *out, int32_t dtype,
                           q_affine *a) {
  if (!q_is_float(in->dtype)) return K_FAIL("input is %s, expected a float dtype", pte_dtype_name(in->dtype));
  if (out->dtype != dtype)
    return K_FAIL("out is %s but dtype says %s", pte_dtype_name(out->dtype), pte_dtype_name(dtype));
  K_CHECK(q_check_qrange(ctx, dtype, a->qmin, a->qmax));
  return common_into(ctx, in, out, a);
}

pte_status q_dequantize_into(pte_kernel_ctx *ctx, const pte_tensor *in, pte_tensor *out, int32_t dtype,
                             int32_t out_dtype, q_affine *a) {
  if (in->dtype != dtype)
    return K_FAIL("input is %s but dtype says %s", pte_dtype_name(in->dtype), pte_dtype_name(dtype));
  K_CHECK(q_check_qrange(ctx, dtype, a->qmin, a->qmax));
  if (!q_is_float(out->dtype)) return K_FAIL("out is %s, expected a float dtype", pte_dtype_name(out->dtype));
  if (out_dtype >= 0 && out->dtype != out_dtype)
    return K_FAIL("out is %s but out_dtype says %s", pte_dtype_name(out->dtype), pte_dtype_name(out_dtype));
  return common_into(ctx, in, out, a);
}

/* ---- choose_qparams ---- */

pte_status q_check_choose(pte_kernel_ctx *ctx, const pte_tensor *in, int64_t qmin, int64_t qmax,
                          const pte_tensor *scale, const pte_tensor *zp) {
  if (in->dtype != PTE_FLOAT32) return K_FAIL("input is %s, expected float32", pte_dtype_name(in->dtype));
  if (qmin >= qmax || qmin < INT32_MIN || qmax > INT32_MAX)
    return K_FAIL("quant range [%lld, %lld] is empty or beyond int32", (long long)qmin, (long long)qmax);
  if (scale->dtype != PTE_FLOAT64)
    return K_FAIL("scale_out is %s, expected float64", pte_dtype_name(scale->dtype));
  if (zp->dtype != PTE_INT64)
    return K_FAIL("zero_point_out is %s, expected int64", pte_dtype_name(zp->dtype));
  K_CHECK(k_contiguous(ctx, in, "input"));
  K_CHECK(k_has_data(ctx, in, "input"));
  if ((scale->flags | zp->flags) & PTE_TENSOR_READONLY)
    return K_FAIL("the outputs are read-only (constants)");
  K_CHECK(k_has_data(ctx, scale, "scale_out"));
  K_CHECK(k_has_data(ctx, zp, "zero_point_out"));
  if (k_overlap(scale, zp) || k_overlap(scale, in) || k_overlap(zp, in))
    return K_FAIL("the outputs must not share memory with each other or the input");
  return PTE_OK;
}

/* Below this scale, the range is stretched (scales this small lose the
 * precision of the zero point; ExecuTorch does the same). */
#define Q_SMALL_SCALE 6.1e-5f

static void choose_one(float lo, float hi, int32_t qmin, int32_t qmax, double *scale_out, int64_t *zp_out) {
  if (lo > 0) lo = 0;
  if (hi < 0) hi = 0;
  double scale = ((double)hi - (double)lo) / (double)((int64_t)qmax - qmin);
  if ((float)scale == 0.0f || isinf(1.0f / (float)scale)) scale = 0.1;
  if (scale < Q_SMALL_SCALE) {
    float amp = Q_SMALL_SCALE / (float)scale;
    scale = Q_SMALL_SCALE;
    if (lo == 0.0f) hi = Q_SMALL_SCALE * (float)((int64_t)qmax - qmin);
    else if (hi == 0.0f) lo = -Q_SMALL_SCALE * (float)((int64_t)qmax - qmin);
    else lo *= amp, hi *= amp;
  }
  /* the zero point from whichever end loses less */
  double from_lo = qmin - lo / scale, from_hi = qmax - hi / scale;
  double err_lo = fabs((double)qmin) - fabs(lo / scale), err_hi = fabs((double)qmax) - fabs(hi / scale);
  double zp = err_lo < err_hi ? from_lo : from_hi;
  int64_t nudged;
  if (isnan(zp) || zp < qmin) nudged = qmin; /* NaN: an infinite input */
  else if (zp > qmax) nudged = qmax;
  else nudged = (int64_t)nearbyintf((float)zp);
  *scale_out = scale;
  *zp_out = nudged;
}

void q_choose_rows(const pte_tensor *in, int64_t rows, int64_t len, int32_t qmin, int32_t qmax,
                   pte_tensor *scale, pte_tensor *zp) {
  const float *x = (const float *)in->data;
  for (int64_t r = 0; r < rows; r++) {
    float lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < len; i++) {
      float v = x[r * len + i];
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    if (lo > hi) lo = hi = 0; /* empty or all NaN */
    choose_one(lo, hi, qmin, qmax, &((double *)scale->data)[r], &((int64_t *)zp->data)[r]);
  }
}
