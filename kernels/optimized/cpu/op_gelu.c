/* aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
 * float32, both approximations, with the portable kernels' formulas and
 * libm functions (same bits), split over the pool. */
#include <math.h>
#include <string.h>

#include "util/ew.h"

#define GELU_SQRT1_2 0.70710678118654752440
#define GELU_SQRT_2_PI 0.79788456080286535588
#define GELU_KAPPA 0.044715

static bool gelu_accepts(pte_value *const *args, int32_t nargs) {
  if (!o_unary_accepts(args, nargs, 4, 2) || !k_arg_tag(args, nargs, 1, PTE_TAG_STRING)) return false;
  return !strcmp(args[1]->u.str, "none") || !strcmp(args[1]->u.str, "tanh");
}

static void gelu_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  for (int64_t i = 0; i < n; i++) {
    float a = x[i];
    y[i] = a * 0.5f * (1.0f + erff(a * (float)GELU_SQRT1_2));
  }
}

static void gelu_tanh_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  for (int64_t i = 0; i < n; i++) {
    float a = x[i];
    y[i] = 0.5f * a * (1.0f + tanhf((float)GELU_SQRT_2_PI * (a + (float)GELU_KAPPA * a * a * a)));
  }
}

static pte_status gelu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  bool tanh_mode = !strcmp(args[1]->u.str, "tanh");
  return o_map(ctx, args, nargs, 2, 20.0, tanh_mode ? gelu_tanh_span : gelu_span, NULL);
}

PTE_OPT_KERNEL(gelu_out, "aten::gelu.out", gelu_accepts, NULL)
