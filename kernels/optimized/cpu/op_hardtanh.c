/* aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
 * float32: min(max(x, min_val), max_val) with the bounds in float (ReLU6 in
 * MobileNet exports as hardtanh(0, 6)). */
#include "util/ew.h"

static bool hardtanh_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  return o_unary_accepts(args, nargs, 5, 3) && k_arg_num(args, nargs, 1, &d) && k_arg_num(args, nargs, 2, &d);
}

static pte_status hardtanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  double lo = -1, hi = 1;
  k_arg_num(args, nargs, 1, &lo);
  k_arg_num(args, nargs, 2, &hi);
  return o_clamp(ctx, args, nargs, 3, (float)lo, (float)hi);
}

PTE_OPT_KERNEL(hardtanh_out, "aten::hardtanh.out", hardtanh_accepts, NULL)
