/* aten::nll_loss_forward.output(Tensor self, Tensor target, Tensor? weight, int reduction,
 *     SymInt ignore_index, *, Tensor(a!) output, Tensor(b!) total_weight) -> (Tensor(a!), Tensor(b!))
 * Negative log likelihood of log-probabilities self [N, C] (or [C]) at
 * the target classes, weighted; ignored targets count 0. Reduction none:
 * output [N] (total_weight 0); sum: the sum; mean: the sum over
 * total_weight, the summed weights (NaN when there are no samples). Float
 * dtypes, in double. */
#include "util/nll_util.h"

static pte_status nll_loss_forward_output(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *target, *weight, *out, *tw;
  int64_t reduction = 0, ignore = 0;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &target));
  K_CHECK(k_opt_tensor(ctx, args, 2, &weight));
  K_CHECK(k_int(ctx, args, 3, &reduction));
  K_CHECK(k_int(ctx, args, 4, &ignore));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  K_CHECK(k_tensor(ctx, args, 6, &tw));
  kb_nll n;
  K_CHECK(kb_nll_init(ctx, self, target, weight, reduction, ignore, &n));
  if (out->dtype != self->dtype || tw->dtype != self->dtype)
    return K_FAIL("output and total_weight must have self's dtype %s", pte_dtype_name(self->dtype));
  if (out == tw) return K_FAIL("output and total_weight must be different tensors");
  bool per_sample = reduction == 0 && self->dim == 2;
  int64_t osz[1] = {n.N};
  K_CHECK(k_out(ctx, out, per_sample ? 1 : 0, osz));
  K_CHECK(k_out(ctx, tw, 0, osz));
  double sum = 0, wsum = 0;
  for (int64_t i = 0; i < n.N; i++) {
    double w;
    int64_t t = kb_nll_target(&n, i, &w);
    double l = t < 0 ? 0.0 : -w * k_get_d(self->data, self->dtype, i * n.C + t);
    if (per_sample) k_set_d(out->data, out->dtype, i, l);
    sum += l;
    wsum += w;
  }
  k_set_d(tw->data, tw->dtype, 0, per_sample ? 0.0 : wsum);
  if (!per_sample) k_set_d(out->data, out->dtype, 0, reduction == 1 ? sum / wsum : sum);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(nll_loss_forward_output, "aten::nll_loss_forward.output")
