/* aten::reflection_pad1d.out(Tensor self, SymInt[2] padding, *, Tensor(a!) out)
 * Pads the last 1 dim(s) of a 2D or 3D input by mirroring it (the edge is not repeated). */
#include "util/pad_util.h"

static pte_status reflection_pad1d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kp_pad_op(ctx, args, nargs, 1, KP_REFLECT);
}

PTE_PORTABLE_KERNEL(reflection_pad1d_out, "aten::reflection_pad1d.out")
