/* aten::lift_fresh_copy.out(Tensor self, *, Tensor(a!) out) */
#include "util/copy_util.h"

static pte_status lift_fresh_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kc_copy_op(ctx, args, nargs);
}

PTE_PORTABLE_KERNEL(lift_fresh_copy_out, "aten::lift_fresh_copy.out")
