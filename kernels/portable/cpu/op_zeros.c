/* aten::zeros.out(SymInt[] size, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status zeros_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_int_list(ctx, args, 0, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  K_CHECK(kc_supported(ctx, out->dtype, "out"));
  K_CHECK(k_out(ctx, out, n, sizes));
  const uint8_t zero[8] = {0}; /* all-zero bytes are 0 in every dtype */
  kc_fill_tensor(out, zero);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(zeros_out, "aten::zeros.out")
