/* aten::threshold_backward.grad_input(Tensor grad_output, Tensor self, Scalar threshold, *,
 *     Tensor(a!) grad_input) -> Tensor(a!)
 * grad_output where self > threshold, else 0 (ReLU's backward: threshold 0).
 * Float dtypes, same-shape contiguous tensors. */
#include "util/backward_util.h"

static pte_status threshold_backward_grad_input(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *self, *gi;
  k_scalar th;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &self));
  K_CHECK(k_scalar_arg(ctx, args, 2, &th));
  K_CHECK(k_tensor(ctx, args, 3, &gi));
  K_CHECK(kb_float_input(ctx, go, go->dtype, "grad_output"));
  K_CHECK(kb_float_input(ctx, self, go->dtype, "self"));
  K_CHECK(kb_same_shape(ctx, self, go->dim, go->sizes, "self"));
  if (gi->dtype != go->dtype) return K_FAIL("grad_input must have grad_output's dtype");
  K_CHECK(k_out_like(ctx, gi, go));
  K_CHECK(k_contiguous(ctx, gi, "grad_input"));
  /* ATen compares in the tensor's dtype */
  double t = go->dtype == PTE_FLOAT32 ? (double)(float)th.d : th.d;
  int64_t n = pte_tensor_numel(go);
  for (int64_t i = 0; i < n; i++) {
    double x = k_get_d(self->data, self->dtype, i);
    k_set_d(gi->data, gi->dtype, i, x <= t ? 0.0 : k_get_d(go->data, go->dtype, i));
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(threshold_backward_grad_input, "aten::threshold_backward.grad_input")
