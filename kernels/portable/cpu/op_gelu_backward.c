/* aten::gelu_backward.grad_input(Tensor grad_output, Tensor self, *, str approximate="none",
 *     Tensor(a!) grad_input) -> Tensor(a!)
 * grad_output times GELU's derivative at self:
 *   "none": Phi(x) + x phi(x)  (normal cdf and density);
 *   "tanh": with u = sqrt(2/pi) (x + 0.044715 x^3), t = tanh(u):
 *           0.5 (1 + t) + 0.5 x (1 - t^2) sqrt(2/pi) (1 + 3 * 0.044715 x^2).
 * Float dtypes, same-shape contiguous tensors, computed in double. */
#include "util/backward_util.h"

#define GB_SQRT1_2 0.70710678118654752440
#define GB_INV_SQRT_2PI 0.39894228040143267794 /* 1 / sqrt(2 pi) */
#define GB_SQRT_2_PI 0.79788456080286535588    /* sqrt(2 / pi) */
#define GB_KAPPA 0.044715

static pte_status gelu_backward_grad_input(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *self, *gi;
  const char *approximate = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &self));
  K_CHECK(k_string(ctx, args, 2, &approximate));
  K_CHECK(k_tensor(ctx, args, 3, &gi));
  bool tanh_form = strcmp(approximate, "tanh") == 0;
  if (!tanh_form && strcmp(approximate, "none") != 0)
    return K_FAIL("gelu_backward: approximate must be 'none' or 'tanh', got '%s'", approximate);
  K_CHECK(kb_float_input(ctx, go, go->dtype, "grad_output"));
  K_CHECK(kb_float_input(ctx, self, go->dtype, "self"));
  K_CHECK(kb_same_shape(ctx, self, go->dim, go->sizes, "self"));
  if (gi->dtype != go->dtype) return K_FAIL("grad_input must have grad_output's dtype");
  K_CHECK(k_out_like(ctx, gi, go));
  K_CHECK(k_contiguous(ctx, gi, "grad_input"));
  int64_t n = pte_tensor_numel(go);
  for (int64_t i = 0; i < n; i++) {
    double x = k_get_d(self->data, self->dtype, i), d;
    if (tanh_form) {
      double t = tanh(GB_SQRT_2_PI * (x + GB_KAPPA * x * x * x));
      d = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * GB_SQRT_2_PI * (1.0 + 3.0 * GB_KAPPA * x * x);
    } else {
      d = 0.5 * (1.0 + erf(x * GB_SQRT1_2)) + x * GB_INV_SQRT_2PI * exp(-0.5 * x * x);
    }
    k_set_d(gi->data, gi->dtype, i, k_get_d(go->data, go->dtype, i) * d);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(gelu_backward_grad_input, "aten::gelu_backward.grad_input")
