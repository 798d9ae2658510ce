/* aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
 * The value is converted to out's dtype with ATen's overflow check. */
#include "util/copy_util.h"

static pte_status full_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  k_scalar v;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_int_list(ctx, args, 0, sizes, PTE_MAX_DIM, &n));
  K_CHECK(k_scalar_arg(ctx, args, 1, &v));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  for (int32_t k = 0; k < n; k++)
    if (sizes[k] < 0) return K_FAIL("negative dimension %lld", (long long)sizes[k]);
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &v, out->dtype, true, elem));
  K_CHECK(k_out(ctx, out, n, sizes));
  kc_fill_tensor(out, elem);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(full_out, "aten::full.out")
