/* aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None,
 *                     Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status full_like_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  k_scalar v;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_scalar_arg(ctx, args, 1, &v));
  K_CHECK(kc_memory_format(ctx, args, 2, true));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &v, out->dtype, true, elem));
  K_CHECK(k_out_like(ctx, out, self));
  kc_fill_tensor(out, elem);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(full_like_out, "aten::full_like.out")
