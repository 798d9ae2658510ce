/* aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
 *     Tensor(b!) indices) -> (Tensor(a!), Tensor(b!))
 * Max over each window (NaN wins); indices (int64) are flat positions within
 * the input plane, like ATen. Strided inputs are repacked in kernel scratch. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status max_pool2d_with_indices_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kn_max_pool_op(ctx, args, nargs, 2);
}

PTE_PORTABLE_KERNEL_EX(max_pool2d_with_indices_out, "aten::max_pool2d_with_indices.out", 0,
                       kn_max_pool_scratch)
