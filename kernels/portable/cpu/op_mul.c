/* aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * self * other in the common dtype. For float16/bfloat16 results a
 * one-element `other` keeps its own precision (ATen multiplies by the
 * original scalar value in float). */
#include "util/elementwise_util.h"

K_ROW_FN(mul_f32, float, float, a *b)
K_ROW_FN(mul_f64, double, double, a *b)
K_ROW_FN(mul_i64, int64_t, int64_t, ew_muli(a, b))
K_ROW_FN(mul_bool, uint8_t, uint8_t, a &&b)

static const k_row_fns mul_fns = {{mul_f32, mul_f64, mul_i64, mul_bool}};

/* Complex: (a + bi)(c + di), in double (ew_complex_binary). */
static void mul_complex1(double ar, double ai, double br, double bi, double *cr, double *ci) {
  *cr = ar * br - ai * bi;
  *ci = ar * bi + ai * br;
}

static pte_status mul_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 4));
  if (args[0] && args[0]->tag == PTE_TAG_TENSOR && k_is_complex(args[0]->u.tensor->dtype))
    return ew_complex_binary(ctx, args, mul_complex1);
  return ew_binary(ctx, args, nargs, false, false, &mul_fns, EW_KEEP_SCALAR, NULL);
}

static pte_status mul_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &mul_fns, EW_KEEP_SCALAR, NULL);
}

PTE_PORTABLE_KERNEL(mul_out, "aten::mul.out")
PTE_PORTABLE_KERNEL(mul_scalar_out, "aten::mul.Scalar_out")
