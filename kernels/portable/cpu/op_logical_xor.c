/* aten::logical_xor.out(Tensor self, Tensor other, *, Tensor(a!) out)
 *
 * Truth values of any input dtypes (nonzero, including NaN, is true),
 * broadcast; the output may be of any dtype and receives 1/0. */
#include "util/elementwise_util.h"

K_ROW_FN(logical_xor_bool, uint8_t, uint8_t, a != b)
static const k_row_fns logical_xor_fns = {{NULL, NULL, NULL, logical_xor_bool}};

static pte_status logical_xor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, other;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, false, &other));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  ew_operand *ops[2] = {&self, &other};
  /* loading as bool turns every element into its truth value */
  return ew_run(ctx, ops, 2, out, PTE_BOOL, K_BOOL, &logical_xor_fns, NULL);
}

PTE_PORTABLE_KERNEL(logical_xor_out, "aten::logical_xor.out")
