/* aten::_softmax.out / aten::_log_softmax.out(Tensor self, int dim,
 *     bool half_to_float, *, Tensor(a!) out)
 * float32 along the last dim (what attention and classifiers use; other
 * dims stay portable): a vectorized max, then the kernel layer's
 * exponential and sum in one pass (k_vexp_sum). Rows spread over the pool.
 * A rule (rewrite.c) folds a constant multiply before it (attention's
 * scores * 1/sqrt(d)) into a variant that scales each row in the
 * exponentials' pass (k_vexp_sum_scaled, the max taken on the unscaled
 * row): the same products as the multiply, without its passes over
 * memory. */
#include <math.h>

#include "util/kern.h"
#include "util/packed.h"

static bool softmax_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 5 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 3)) return false;
  if (!k_arg_tag(args, nargs, 1, PTE_TAG_INT) || !k_arg_tag(args, nargs, 2, PTE_TAG_BOOL) || args[2]->u.b)
    return false;
  const pte_tensor *x = args[0]->u.tensor;
  int32_t d = k_wrap_dim(args[1]->u.i, x->dim);
  return x->dim >= 1 && d == x->dim - 1;
}

typedef struct sm_job {
  const float *x;
  float *y;
  int64_t n;
  bool is_log;
  const float *scale; /* NULL: none */
} sm_job;

static void sm_rows(void *ctx, size_t r0, size_t r1) {
  const sm_job *j = ctx;
  const int64_t n = j->n;
  for (size_t r = r0; r < r1; r++) {
    const float *x = j->x + (int64_t)r * n;
    float *y = j->y + (int64_t)r * n;
    if (j->scale && !j->is_log && *j->scale > 0.0f && *j->scale < INFINITY) {
      /* the scaled row's max is the row's max scaled (rounding is
       * monotonic), so the scaling happens in the exponentials' pass */
      const float s = *j->scale;
      const float m = k_vmax(x, n) * s;
      k_vmulc(y, n, (float)(1.0 / k_vexp_sum_scaled(x, y, n, s, m)));
      continue;
    }
    if (j->scale) { /* y may be x itself (in place): each element read before written */
      const float s = *j->scale;
      for (int64_t k = 0; k < n; k++) y[k] = x[k] * s;
      x = y;
    }
    /* the kernel layer's vector max skips NaN where kt->max returns it
     * (and is scalar code): a NaN in the row still makes every output NaN
     * through the sum, as ATen's NaN max does */
    float m = k_vmax(x, n);
    /* y holds the exponentials even for log_softmax (a scratch row) */
    double sum = k_vexp_sum(x, y, n, m);
    if (j->is_log) {
      double ls = log(sum);
      for (int64_t i = 0; i < n; i++) y[i] = (float)((double)x[i] - m - ls);
    } else {
      k_vmulc(y, n, (float)(1.0 / sum));
    }
  }
}

static pte_status run(pte_kernel_ctx *ctx, pte_value **args, bool is_log) {
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  K_CHECK(k_out_like(ctx, out, x));
  int64_t n = x->dim ? x->sizes[x->dim - 1] : 1, total = o_numel(x);
  if (total == 0) return PTE_OK;
  sm_job j = {x->data, out->data, n, is_log, (const float *)pte_kernel_state(ctx)};
  k_parallel_for((size_t)(total / n), (double)total * 20.0, sm_rows, &j);
  return PTE_OK;
}

static pte_status softmax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  return run(ctx, args, false);
}
static pte_status log_softmax_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  return run(ctx, args, true);
}

PTE_OPT_KERNEL(softmax_out, "aten::_softmax.out", softmax_accepts, NULL)
PTE_OPT_KERNEL(log_softmax_out, "aten::_log_softmax.out", softmax_accepts, NULL)

bool o_softmax_prepare_scale(pte_rewrite *rw, int32_t i, float scale) {
  static const pte_kernel scaled = {"aten::_softmax.out", softmax_out, softmax_accepts, NULL};
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  float *st = args && softmax_accepts(args, n) ? (float *)pte_rewrite_alloc(rw, sizeof(float)) : NULL;
  if (!st) return false;
  *st = scale;
  return pte_rewrite_set_kernel(rw, i, &scaled, st);
}
