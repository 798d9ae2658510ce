/* aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::div.out_mode(Tensor self, Tensor other, *, str? rounding_mode, Tensor(a!) out)
 * aten::div.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 * aten::div.Scalar_mode_out(Tensor self, Scalar other, *, str? rounding_mode, Tensor(a!) out)
 *
 * True division promotes integral inputs to float32. 'trunc' and 'floor'
 * keep the common dtype; integer division by zero is an error (ATen raises
 * ZeroDivisionError), float division follows IEEE. For float16/bfloat16 a
 * one-element divisor keeps its own precision (ATen divides by the original
 * scalar value in float); otherwise 'trunc' rounds the quotient to the
 * reduced type before truncating, as ATen does. Complex tensors of one
 * dtype take true division only (ATen has no complex rounding). */
#include "util/elementwise_util.h"

K_ROW_FN(div_f32, float, float, a / b)
K_ROW_FN(div_f64, double, double, a / b)
static const k_row_fns div_true_fns = {{div_f32, div_f64, NULL, NULL}};

/* p->i[1]: a float16/bfloat16 common dtype when the quotient is rounded to it
 * before truncation (ATen's tensor-tensor path), else 0 */
K_ROW_FN(div_trunc_f32, float, float, truncf(ew_round_reduced(a / b, p->i[1])))
K_ROW_FN(div_trunc_f64, double, double, trunc(a / b))
K_ROW_FN(div_trunc_i64, int64_t, int64_t, ew_div_trunc_i(a, b, p))
static const k_row_fns div_trunc_fns = {{div_trunc_f32, div_trunc_f64, div_trunc_i64, NULL}};

K_ROW_FN(div_floor_f32, float, float, ew_div_floor_f(a, b))
K_ROW_FN(div_floor_f64, double, double, ew_div_floor_d(a, b))
K_ROW_FN(div_floor_i64, int64_t, int64_t, ew_div_floor_i(a, b, p))
static const k_row_fns div_floor_fns = {{div_floor_f32, div_floor_f64, div_floor_i64, NULL}};

/* (ar + ai i) / (br + bi i) in double by Smith's scaling, so |b|^2 cannot
 * overflow or underflow; a zero divisor gives IEEE inf/NaN parts. */
static void div_complex1(double ar, double ai, double br, double bi, double *cr, double *ci) {
  if (fabs(br) >= fabs(bi)) {
    if (br == 0 && bi == 0) {
      *cr = ar / fabs(br);
      *ci = ai / fabs(br);
      return;
    }
    double r = bi / br, d = br + bi * r;
    *cr = (ar + ai * r) / d;
    *ci = (ai - ar * r) / d;
  } else {
    double r = br / bi, d = bi + br * r;
    *cr = (ar * r + ai) / d;
    *ci = (ai * r - ar) / d;
  }
}

typedef enum div_mode { DIV_TRUE, DIV_TRUNC, DIV_FLOOR } div_mode;

static pte_status div_run(pte_kernel_ctx *ctx, pte_value **args, bool scalar, div_mode mode,
                          int32_t out_index) {
  ew_operand self, other;
  pte_tensor *out = NULL;
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, scalar, &other));
  K_CHECK(k_tensor(ctx, args, out_index, &out));
  ew_keep_scalar_precision(&other);
  ew_operand *ops[2] = {&self, &other};
  int32_t common = ew_result_type(ops, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  k_params p;
  memset(&p, 0, sizeof p);
  if (!other.keep_precision) p.i[1] = common;
  const k_row_fns *fns = &div_true_fns;
  if (mode == DIV_TRUE) {
    common = ew_int_to_float(common);
  } else {
    if (common == PTE_BOOL) return K_FAIL("division with a rounding mode is not implemented for bool");
    fns = mode == DIV_TRUNC ? &div_trunc_fns : &div_floor_fns;
  }
  return ew_run(ctx, ops, 2, out, common, k_ctype_of(common), fns, &p);
}

static pte_status read_mode(pte_kernel_ctx *ctx, pte_value **args, int32_t i, div_mode *mode) {
  *mode = DIV_TRUE;
  if (args[i]->tag == PTE_TAG_NONE) return PTE_OK;
  const char *s = NULL;
  K_CHECK(k_string(ctx, args, i, &s));
  if (strcmp(s, "trunc") == 0) *mode = DIV_TRUNC;
  else if (strcmp(s, "floor") == 0) *mode = DIV_FLOOR;
  else return K_FAIL("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", s);
  return PTE_OK;
}

static pte_status div_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 4));
  if (args[0] && args[0]->tag == PTE_TAG_TENSOR && k_is_complex(args[0]->u.tensor->dtype))
    return ew_complex_binary(ctx, args, div_complex1);
  return div_run(ctx, args, false, DIV_TRUE, 2);
}

static pte_status div_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 4));
  return div_run(ctx, args, true, DIV_TRUE, 2);
}

static pte_status div_out_mode(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  div_mode mode = DIV_TRUE;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(read_mode(ctx, args, 2, &mode));
  return div_run(ctx, args, false, mode, 3);
}

static pte_status div_scalar_mode_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  div_mode mode = DIV_TRUE;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(read_mode(ctx, args, 2, &mode));
  return div_run(ctx, args, true, mode, 3);
}

PTE_PORTABLE_KERNEL(div_out, "aten::div.out")
PTE_PORTABLE_KERNEL(div_scalar_out, "aten::div.Scalar_out")
PTE_PORTABLE_KERNEL(div_out_mode, "aten::div.out_mode")
PTE_PORTABLE_KERNEL(div_scalar_mode_out, "aten::div.Scalar_mode_out")
