/* aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * condition ? self : other, broadcasting all three; values are taken in the
 * common dtype of self and other (ATen's result_type). The condition must be
 * bool (uint8 is accepted too, as ATen still does). */
#include "util/elementwise_util.h"

/* a = condition (loaded in the compute type: nonzero is true), b = self, c = other */
K_ROW_FN(where_f32, float, float, a != 0 ? b : c)
K_ROW_FN(where_f64, double, double, a != 0 ? b : c)
K_ROW_FN(where_i64, int64_t, int64_t, a != 0 ? b : c)
K_ROW_FN(where_bool, uint8_t, uint8_t, a != 0 ? b : c)
static const k_row_fns where_fns = {{where_f32, where_f64, where_i64, where_bool}};

static pte_status where_self_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand cond, self, other;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &cond));
  K_CHECK(ew_operand_arg(ctx, args, 1, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 2, false, &other));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (cond.t->dtype != PTE_BOOL && cond.t->dtype != PTE_UINT8)
    return K_FAIL("where expected condition to be a boolean tensor, got %s", pte_dtype_name(cond.t->dtype));
  ew_operand *vals[2] = {&self, &other};
  int32_t common = ew_result_type(vals, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  ew_operand *ops[3] = {&cond, &self, &other};
  return ew_run(ctx, ops, 3, out, common, k_ctype_of(common), &where_fns, NULL);
}

PTE_PORTABLE_KERNEL(where_self_out, "aten::where.self_out")
