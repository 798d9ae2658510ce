/* aten::replication_pad2d.out(Tensor self, SymInt[4] padding, *, Tensor(a!) out)
 * Pads the last 2 dim(s) of a 3D or 4D input by repeating its edge. */
#include "util/pad_util.h"

static pte_status replication_pad2d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kp_pad_op(ctx, args, nargs, 2, KP_REPLICATE);
}

PTE_PORTABLE_KERNEL(replication_pad2d_out, "aten::replication_pad2d.out")
