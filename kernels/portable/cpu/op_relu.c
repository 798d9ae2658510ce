/* aten::relu.out(Tensor self, *, Tensor(a!) out) */
#include "util/kernel_util.h"

K_ROW_FN(relu_f32, float, float, a > 0 ? a : (a != a ? a : 0.0f))
K_ROW_FN(relu_f64, double, double, a > 0 ? a : (a != a ? a : 0.0))
K_ROW_FN(relu_i64, int64_t, int64_t, a > 0 ? a : 0)

static const k_row_fns relu_fns = {{relu_f32, relu_f64, relu_i64, NULL}};

static pte_status relu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  const pte_tensor *ins[1] = {self};
  return k_elementwise(ctx, ins, 1, out, self->dtype, k_ctype_of(self->dtype), &relu_fns, NULL);
}

PTE_PORTABLE_KERNEL(relu_out, "aten::relu.out")
