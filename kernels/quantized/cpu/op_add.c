/* quantized_decomposed::add.out(Tensor a, float a_scale, int a_zero_point,
 *     int a_quant_min, int a_quant_max, Tensor b, float b_scale,
 *     int b_zero_point, int b_quant_min, int b_quant_max, float out_scale,
 *     int out_zero_point, int out_quant_min, int out_quant_max, *,
 *     Tensor(a!) out)
 *
 * Elementwise sum of two quantized tensors of one shape and integer dtype:
 * each dequantized in float32, added, and quantized with out's parameters.
 * Every quant range must lie in [0, 255], as ExecuTorch requires. */
#include "util/qutil.h"

typedef struct side {
  double scale;
  int64_t zp, qmin, qmax;
} side;

static pte_status read_side(pte_kernel_ctx *ctx, pte_value **args, int32_t at, side *s, const char *name) {
  K_CHECK(k_double(ctx, args, at, &s->scale));
  K_CHECK(k_int(ctx, args, at + 1, &s->zp));
  K_CHECK(k_int(ctx, args, at + 2, &s->qmin));
  K_CHECK(k_int(ctx, args, at + 3, &s->qmax));
  if (s->qmin < 0 || s->qmax > 255 || s->qmin > s->qmax)
    return K_FAIL("%s: quant range [%lld, %lld] is not inside [0, 255]", name, (long long)s->qmin,
                  (long long)s->qmax);
  K_CHECK(q_check_scale(ctx, s->scale, -1));
  return q_check_zero_point(ctx, s->zp, s->qmin, s->qmax, -1);
}

static pte_status add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *a, *b, *out;
  side sa, sb, so;
  K_CHECK(k_nargs(ctx, nargs, 16));
  K_CHECK(k_tensor(ctx, args, 0, &a));
  K_CHECK(read_side(ctx, args, 1, &sa, "a"));
  K_CHECK(k_tensor(ctx, args, 5, &b));
  K_CHECK(read_side(ctx, args, 6, &sb, "b"));
  K_CHECK(read_side(ctx, args, 10, &so, "out"));
  K_CHECK(k_tensor(ctx, args, 14, &out));
  int64_t lo, hi;
  if (a->dtype != b->dtype || a->dtype != out->dtype ||
      (a->dtype != PTE_INT64 && !q_dtype_range(a->dtype, &lo, &hi)))
    return K_FAIL("a, b and out must share one integer dtype (are %s, %s, %s)", pte_dtype_name(a->dtype),
                  pte_dtype_name(b->dtype), pte_dtype_name(out->dtype));
  bool same = a->dim == b->dim;
  for (int32_t d = 0; same && d < a->dim; d++) same = a->sizes[d] == b->sizes[d];
  if (!same) return K_FAIL("a and b must have the same shape");
  K_CHECK(k_contiguous(ctx, a, "a"));
  K_CHECK(k_contiguous(ctx, b, "b"));
  K_CHECK(k_has_data(ctx, a, "a"));
  K_CHECK(k_has_data(ctx, b, "b"));
  K_CHECK(k_out_like(ctx, out, a));
  K_CHECK(k_contiguous(ctx, out, "out"));
  const float fa = (float)sa.scale, fb = (float)sb.scale, inv = 1.0f / (float)so.scale;
  const float zo = (float)(int32_t)so.zp;
  for (int64_t i = 0, n = pte_tensor_numel(a); i < n; i++) {
    float x = (float)(q_load_i(a->data, a->dtype, i) - sa.zp) * fa;
    float y = (float)(q_load_i(b->data, b->dtype, i) - sb.zp) * fb;
    q_store_i(out->data, out->dtype, i, q_quantize_val(inv * (x + y), zo, so.qmin, so.qmax));
  }
  return PTE_OK;
}

PTE_QUANT_KERNEL(add_out, "quantized_decomposed::add.out")
