/* aten::reflection_pad3d.out(Tensor self, SymInt[6] padding, *, Tensor(a!) out)
 * Pads the last 3 dim(s) of a 4D or 5D input by mirroring it (the edge is not repeated). */
#include "util/pad_util.h"

static pte_status reflection_pad3d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kp_pad_op(ctx, args, nargs, 3, KP_REFLECT);
}

PTE_PORTABLE_KERNEL(reflection_pad3d_out, "aten::reflection_pad3d.out")
