/* aten::tril.out(Tensor self, SymInt diagonal=0, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status tril_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t diagonal = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &diagonal));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias(ctx, out, self, NULL, NULL));
  return kc_triangle(ctx, self, diagonal, false, out);
}

PTE_PORTABLE_KERNEL(tril_out, "aten::tril.out")
