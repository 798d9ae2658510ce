/* aten::_log_softmax_backward_data.out(Tensor grad_output, Tensor output, int dim,
 *     ScalarType input_dtype, *, Tensor(a!) out) -> Tensor(a!)
 * grad_output - exp(output) * sum(grad_output) along dim (output is the
 * forward's log_softmax). Float dtypes, contiguous tensors, in double. */
#include "util/softmax_backward.h"

static pte_status log_softmax_backward_data_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kb_softmax_backward(ctx, args, nargs, true);
}

PTE_PORTABLE_KERNEL(log_softmax_backward_data_out, "aten::_log_softmax_backward_data.out")
