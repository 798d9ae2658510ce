/* aten::abs.out(Tensor self, *, Tensor(a!) out)
 *
 * |x| in the input dtype (abs(INT64_MIN) wraps to INT64_MIN like ATen).
 * Bool is not supported, like ATen. */
#include "util/elementwise_util.h"

K_ROW_FN(abs_f32, float, float, fabsf(a))
K_ROW_FN(abs_f64, double, double, fabs(a))
K_ROW_FN(abs_i64, int64_t, int64_t, a < 0 ? ew_subi(0, a) : a)
static const k_row_fns abs_fns = {{abs_f32, abs_f64, abs_i64, NULL}};

/* A complex input: |z| = hypot(re, im) (no overflow in the squares), out
 * of the parts' dtype. */
static pte_status abs_complex(pte_kernel_ctx *ctx, pte_value **args) {
  pte_tensor *self, *out;
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  int32_t part = k_complex_part(self->dtype);
  if (out->dtype != part)
    return K_FAIL("output dtype %s is not %s, the parts of %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(part), pte_dtype_name(self->dtype));
  K_CHECK(k_out_like(ctx, out, self));
  int64_t n = pte_tensor_numel(out);
  for (int64_t i = 0; i < n; i++) {
    int64_t is = 2 * k_offset(self->dim, self->sizes, self->strides, i);
    double v = hypot(k_get_d(self->data, part, is), k_get_d(self->data, part, is + 1));
    k_set_d(out->data, part, k_offset(out->dim, out->sizes, out->strides, i), v);
  }
  return PTE_OK;
}

static pte_status abs_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 3));
  if (args[0] && args[0]->tag == PTE_TAG_TENSOR && k_is_complex(args[0]->u.tensor->dtype))
    return abs_complex(ctx, args);
  return ew_unary(ctx, args, nargs, &abs_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(abs_out, "aten::abs.out")
