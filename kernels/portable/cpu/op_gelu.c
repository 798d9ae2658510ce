/* aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
 *
 * "none": x/2 * (1 + erf(x / sqrt(2))).
 * "tanh": x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))).
 * Floating point dtypes only, like ATen. */
#include "util/elementwise_util.h"

#define GELU_SQRT1_2 0.70710678118654752440
#define GELU_SQRT_2_PI 0.79788456080286535588 /* sqrt(2 / pi) */
#define GELU_KAPPA 0.044715

K_ROW_FN(gelu_f32, float, float, a * 0.5f * (1.0f + erff(a * (float)GELU_SQRT1_2)))
K_ROW_FN(gelu_f64, double, double, a * 0.5 * (1.0 + erf(a * GELU_SQRT1_2)))
static const k_row_fns gelu_fns = {{gelu_f32, gelu_f64, NULL, NULL}};

K_ROW_FN(gelu_tanh_f32, float, float,
         0.5f * a * (1.0f + tanhf((float)GELU_SQRT_2_PI * (a + (float)GELU_KAPPA * a * a * a))))
K_ROW_FN(gelu_tanh_f64, double, double, 0.5 * a * (1.0 + tanh(GELU_SQRT_2_PI * (a + GELU_KAPPA * a * a * a))))
static const k_row_fns gelu_tanh_fns = {{gelu_tanh_f32, gelu_tanh_f64, NULL, NULL}};

static pte_status gelu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  const char *approximate = NULL;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_string(ctx, args, 1, &approximate));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  const k_row_fns *fns;
  if (strcmp(approximate, "none") == 0) fns = &gelu_fns;
  else if (strcmp(approximate, "tanh") == 0) fns = &gelu_tanh_fns;
  else return K_FAIL("gelu: approximate must be 'none' or 'tanh', got '%s'", approximate);
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  return ew_run(ctx, ops, 1, out, self->dtype, k_ctype_of(self->dtype), fns, NULL);
}

PTE_PORTABLE_KERNEL(gelu_out, "aten::gelu.out")
