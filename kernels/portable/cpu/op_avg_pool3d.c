/* aten::avg_pool3d.out(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0,
 *     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
 *     Tensor(a!) out)
 * Window mean; the divisor is divisor_override, else the window size
 * clipped to the padded input (count_include_pad) or to the input. Strided
 * inputs are repacked in kernel scratch. */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status avg_pool3d_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kn_avg_pool_op(ctx, args, nargs, 3);
}

PTE_PORTABLE_KERNEL_EX(avg_pool3d_out, "aten::avg_pool3d.out", 0, kn_avg_pool_scratch)
