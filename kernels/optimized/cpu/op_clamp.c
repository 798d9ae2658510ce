/* aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
 * float32 with number bounds (tensor bounds, clamp.Tensor_out, stay
 * portable); a missing bound is infinite. NaN is kept, like ATen. */
#include <math.h>

#include "util/ew.h"

static bool bound_ok(pte_value *const *args, int32_t nargs, int32_t i) {
  double d;
  return k_arg_none(args, nargs, i) || (k_arg_num(args, nargs, i, &d) && args[i]->tag != PTE_TAG_BOOL);
}

static bool clamp_accepts(pte_value *const *args, int32_t nargs) {
  return o_unary_accepts(args, nargs, 5, 3) && bound_ok(args, nargs, 1) && bound_ok(args, nargs, 2) &&
         !(k_arg_none(args, nargs, 1) && k_arg_none(args, nargs, 2));
}

static pte_status clamp_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  double lo = -INFINITY, hi = INFINITY;
  if (!k_arg_none(args, nargs, 1)) k_arg_num(args, nargs, 1, &lo);
  if (!k_arg_none(args, nargs, 2)) k_arg_num(args, nargs, 2, &hi);
  return o_clamp(ctx, args, nargs, 3, (float)lo, (float)hi);
}

PTE_OPT_KERNEL(clamp_out, "aten::clamp.out", clamp_accepts, NULL)
