/* aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
 * x - max - log(sum(exp(x - max))) along dim (float dtypes). */
#include "util/kernel_util.h"
#include "util/nn_util.h"

static pte_status log_softmax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kn_softmax(ctx, args, nargs, true);
}

PTE_PORTABLE_KERNEL(log_softmax_out, "aten::_log_softmax.out")
