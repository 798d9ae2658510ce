/* aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
 * float32 with number bounds (tensor bounds, clamp.Tensor_out, stay
 * portable); a missing bound is infinite. NaN is kept, like ATen. */
#include <math.h>

#include "util/ew.h"

static bool bound_ok(pte_value *const *args, int32_t nargs, int32_t i) {
  double d;
  return o_is_none(args, nargs, i) || (o_num(args, nargs, i, &d) && args[i]->tag != PTE_TAG_BOOL);
}

static bool clamp_accepts(pte_value *const *args, int32_t nargs) {
  return o_unary_accepts(args, nargs, 5, 3) && bound_ok(args, nargs, 1) && bound_ok(args, nargs, 2) &&
         !(o_is_none(args, nargs, 1) && o_is_none(args, nargs, 2));
}

typedef struct bounds {
  float lo, hi;
} bounds;

static void clamp_span(const float *x, float *y, int64_t n, const void *user) {
  const bounds *b = user;
  o_kern()->unary(O_CLAMP, x, y, n, b->lo, b->hi);
}

static pte_status clamp_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  double lo = -INFINITY, hi = INFINITY;
  if (!o_is_none(args, nargs, 1)) o_num(args, nargs, 1, &lo);
  if (!o_is_none(args, nargs, 2)) o_num(args, nargs, 2, &hi);
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  O_CHECK(o_out_like(ctx, out, x));
  bounds b = {(float)lo, (float)hi};
  o_spans(x->data, out->data, o_numel(x), 1.0, clamp_span, &b);
  return PTE_OK;
}

PTE_OPT_KERNEL(clamp_out, "aten::clamp.out", clamp_accepts, NULL)
