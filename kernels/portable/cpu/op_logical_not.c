/* aten::logical_not.out(Tensor self, *, Tensor(a!) out)
 *
 * Any input dtype (nonzero, including NaN, is true); the output may be of
 * any dtype and receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(logical_not_bool, uint8_t, uint8_t, !a)
static const k_row_fns logical_not_fns = {{NULL, NULL, NULL, logical_not_bool}};

static pte_status logical_not_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  ew_operand *ops[1] = {&self};
  /* loading as bool turns every element into its truth value */
  return ew_run(ctx, ops, 1, out, PTE_BOOL, K_BOOL, &logical_not_fns, NULL);
}

PTE_PORTABLE_KERNEL(logical_not_out, "aten::logical_not.out")
