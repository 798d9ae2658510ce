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

/* Complex tensors of one dtype: (a + bi)(c + di) per element, in double
 * (so float parts round once), broadcasting like the real path. */
static pte_status mul_complex(pte_kernel_ctx *ctx, pte_value **args) {
  pte_tensor *a, *b, *out;
  K_CHECK(k_tensor(ctx, args, 0, &a));
  K_CHECK(k_tensor(ctx, args, 1, &b));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (a->dtype != out->dtype || b->dtype != out->dtype)
    return K_FAIL("complex inputs need tensors of out's dtype (%s)", pte_dtype_name(out->dtype));
  K_CHECK(k_has_data(ctx, a, "self"));
  K_CHECK(k_has_data(ctx, b, "other"));
  const pte_tensor *ts[2] = {a, b};
  int32_t dim = 0;
  int64_t sizes[PTE_MAX_DIM], sa[PTE_MAX_DIM], sb[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ts, 2, &dim, sizes));
  K_CHECK(k_out(ctx, out, dim, sizes));
  k_broadcast_strides(a, dim, sizes, sa);
  k_broadcast_strides(b, dim, sizes, sb);
  int32_t part = k_complex_part(out->dtype);
  int64_t n = pte_tensor_numel(out);
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = 2 * k_offset(dim, sizes, sa, i), ib = 2 * k_offset(dim, sizes, sb, i);
    int64_t io = 2 * k_offset(dim, sizes, out->strides, i);
    double ar = k_get_d(a->data, part, ia), ai = k_get_d(a->data, part, ia + 1);
    double br = k_get_d(b->data, part, ib), bi = k_get_d(b->data, part, ib + 1);
    k_set_d(out->data, part, io, ar * br - ai * bi);
    k_set_d(out->data, part, io + 1, ar * bi + ai * br);
  }
  return PTE_OK;
}

static pte_status mul_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 4));
  if (args[0] && args[0]->tag == PTE_TAG_TENSOR && k_is_complex(args[0]->u.tensor->dtype))
    return mul_complex(ctx, args);
  return ew_binary(ctx, args, nargs, false, false, &mul_fns, EW_KEEP_SCALAR, NULL);
}

static pte_status mul_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, true, &mul_fns, EW_KEEP_SCALAR, NULL);
}

PTE_PORTABLE_KERNEL(mul_out, "aten::mul.out")
PTE_PORTABLE_KERNEL(mul_scalar_out, "aten::mul.Scalar_out")
