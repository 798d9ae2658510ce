/* aten::neg.out(Tensor self, *, Tensor(a!) out)
 *
 * -x in the input dtype (integers wrap: -INT64_MIN == INT64_MIN). Bool is
 * rejected like ATen does ("use ~ or logical_not"). */
#include "util/elementwise_util.h"

K_ROW_FN(neg_f32, float, float, -a)
K_ROW_FN(neg_f64, double, double, -a)
K_ROW_FN(neg_i64, int64_t, int64_t, ew_subi(0, a))
static const k_row_fns neg_fns = {{neg_f32, neg_f64, neg_i64, NULL}};

static pte_status neg_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  if (nargs == 3 && args[0]->tag == PTE_TAG_TENSOR && args[0]->u.tensor->dtype == PTE_BOOL)
    return K_FAIL("negation on a bool tensor is not supported (use ~ or logical_not)");
  return ew_unary(ctx, args, nargs, &neg_fns, 0, NULL);
}

PTE_PORTABLE_KERNEL(neg_out, "aten::neg.out")
