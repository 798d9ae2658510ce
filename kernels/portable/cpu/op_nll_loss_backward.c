/* aten::nll_loss_backward.grad_input(Tensor grad_output, Tensor self, Tensor target,
 *     Tensor? weight, int reduction, SymInt ignore_index, Tensor total_weight, *,
 *     Tensor(a!) grad_input) -> Tensor(a!)
 * Zero except at each sample's target class: -weight[t] times grad_output
 * (per sample for reduction none, else the scalar), over total_weight for
 * mean. Float dtypes, in double. */
#include "util/nll_util.h"

static pte_status nll_loss_backward_grad_input(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *self, *target, *weight, *tw, *gi;
  int64_t reduction = 0, ignore = 0;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &self));
  K_CHECK(k_tensor(ctx, args, 2, &target));
  K_CHECK(k_opt_tensor(ctx, args, 3, &weight));
  K_CHECK(k_int(ctx, args, 4, &reduction));
  K_CHECK(k_int(ctx, args, 5, &ignore));
  K_CHECK(k_tensor(ctx, args, 6, &tw));
  K_CHECK(k_tensor(ctx, args, 7, &gi));
  kb_nll n;
  K_CHECK(kb_nll_init(ctx, self, target, weight, reduction, ignore, &n));
  bool per_sample = reduction == 0 && self->dim == 2;
  K_CHECK(kb_float_input(ctx, go, self->dtype, "grad_output"));
  K_CHECK(kb_float_input(ctx, tw, self->dtype, "total_weight"));
  if (pte_tensor_numel(go) != (per_sample ? n.N : 1))
    return K_FAIL("grad_output must have %lld elements", (long long)(per_sample ? n.N : 1));
  if (pte_tensor_numel(tw) != 1) return K_FAIL("total_weight must be a single value");
  K_CHECK(k_disjoint(ctx, gi, go, "grad_output"));
  K_CHECK(k_disjoint(ctx, gi, target, "target"));
  K_CHECK(k_disjoint(ctx, gi, tw, "total_weight"));
  if (weight) K_CHECK(k_disjoint(ctx, gi, weight, "weight"));
  double scale = reduction == 1 ? 1.0 / k_get_d(tw->data, tw->dtype, 0) : 1.0;
  K_CHECK(kb_zero_out_like(ctx, gi, self, "grad_input"));
  for (int64_t i = 0; i < n.N; i++) {
    double w;
    int64_t t = kb_nll_target(&n, i, &w);
    if (t < 0) continue;
    double g = k_get_d(go->data, go->dtype, per_sample ? i : 0);
    k_set_d(gi->data, gi->dtype, i * n.C + t, -w * g * scale);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(nll_loss_backward_grad_input, "aten::nll_loss_backward.grad_input")
