/* aten::_softmax_backward_data.out(Tensor grad_output, Tensor output, int dim,
 *     ScalarType input_dtype, *, Tensor(a!) grad_input) -> Tensor(a!)
 * output * (grad_output - sum(grad_output * output)) along dim (output is
 * the forward's softmax). Float dtypes, contiguous tensors, in double. */
#include "util/softmax_backward.h"

static pte_status softmax_backward_data_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return kb_softmax_backward(ctx, args, nargs, false);
}

PTE_PORTABLE_KERNEL(softmax_backward_data_out, "aten::_softmax_backward_data.out")
