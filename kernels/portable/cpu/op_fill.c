/* aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
 * aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out)
 * out has self's shape and dtype. A Scalar value is range-checked like
 * ATen's fill_; a (0-dim) Tensor value is cast. */
#include "util/copy_util.h"

static pte_status fill_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  k_scalar v;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_scalar_arg(ctx, args, 1, &v));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  K_CHECK(kc_same_dtype(ctx, out, self));
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &v, out->dtype, true, elem));
  K_CHECK(k_out_like(ctx, out, self));
  kc_fill_tensor(out, elem);
  return PTE_OK;
}

static pte_status fill_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *value, *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &value));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, value, NULL));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(kc_supported(ctx, value->dtype, "value"));
  K_CHECK(kc_supported(ctx, out->dtype, "out"));
  if (value->dim != 0)
    return K_FAIL("fill only supports a 0-dimension value tensor but got one with %d dimensions",
                  (int)value->dim);
  K_CHECK(k_has_data(ctx, value, "value"));
  _Alignas(8) uint8_t elem[8] = {0};
  kc_convert_elem(elem, out->dtype, value->data, value->dtype);
  K_CHECK(k_out_like(ctx, out, self));
  kc_fill_tensor(out, elem);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(fill_scalar_out, "aten::fill.Scalar_out")
PTE_PORTABLE_KERNEL(fill_tensor_out, "aten::fill.Tensor_out")
