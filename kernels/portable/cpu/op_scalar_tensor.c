/* aten::scalar_tensor.out(Scalar s, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status scalar_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_scalar v;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_scalar_arg(ctx, args, 0, &v));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &v, out->dtype, true, elem));
  K_CHECK(k_out(ctx, out, 0, NULL));
  memcpy(out->data, elem, pte_dtype_size(out->dtype));
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(scalar_tensor_out, "aten::scalar_tensor.out")
