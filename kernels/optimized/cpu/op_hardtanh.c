/* aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
 * float32: min(max(x, min_val), max_val) with the bounds in float (ReLU6 in
 * MobileNet exports as hardtanh(0, 6)). */
#include "util/ew.h"

static bool hardtanh_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  return o_unary_accepts(args, nargs, 5, 3) && o_num(args, nargs, 1, &d) && o_num(args, nargs, 2, &d);
}

typedef struct bounds {
  float lo, hi;
} bounds;

static void clamp_span(const float *x, float *y, int64_t n, const void *user) {
  const bounds *b = user;
  o_kern()->unary(O_CLAMP, x, y, n, b->lo, b->hi);
}

static pte_status hardtanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  double lo = -1, hi = 1;
  o_num(args, nargs, 1, &lo);
  o_num(args, nargs, 2, &hi);
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  O_CHECK(o_out_like(ctx, out, x));
  bounds b = {(float)lo, (float)hi};
  o_spans(x->data, out->data, o_numel(x), 1.0, clamp_span, &b);
  return PTE_OK;
}

PTE_OPT_KERNEL(hardtanh_out, "aten::hardtanh.out", hardtanh_accepts, NULL)
