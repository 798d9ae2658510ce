/* aten::ones.out(SymInt[] size, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status ones_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_int_list(ctx, args, 0, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  k_scalar one = {PTE_INT64, 1, 1.0};
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &one, out->dtype, false, elem));
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_fill_tensor(out, elem);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(ones_out, "aten::ones.out")
