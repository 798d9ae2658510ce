/* aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
 * Only shapes the output; its contents are unspecified (left as they are). */
#include "util/copy_util.h"

static pte_status empty_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t n = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_int_list(ctx, args, 0, sizes, PTE_MAX_DIM, &n));
  K_CHECK(kc_memory_format(ctx, args, 1, true));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  return k_out(ctx, out, n, sizes);
}

PTE_PORTABLE_KERNEL(empty_out, "aten::empty.out")
