#include "nll_util.h"

pte_status kb_nll_init(pte_kernel_ctx *ctx, const pte_tensor *self, const pte_tensor *target,
                       const pte_tensor *weight, int64_t reduction, int64_t ignore_index, kb_nll *n) {
  K_CHECK(kb_float_input(ctx, self, self->dtype, "self"));
  if (self->dim != 1 && self->dim != 2) return K_FAIL("self must be 1-D or 2-D, got rank %d", (int)self->dim);
  if (target->dtype != PTE_INT64 && target->dtype != PTE_INT32)
    return K_FAIL("target must be int64 or int32, got %s", pte_dtype_name(target->dtype));
  K_CHECK(k_has_data(ctx, target, "target"));
  K_CHECK(k_contiguous(ctx, target, "target"));
  n->self = self;
  n->target = target;
  n->weight = weight;
  n->N = self->dim == 2 ? self->sizes[0] : 1;
  n->C = self->sizes[self->dim - 1];
  n->reduction = reduction;
  n->ignore_index = ignore_index;
  if (target->dim != self->dim - 1 || (self->dim == 2 && target->sizes[0] != n->N))
    return K_FAIL("target of rank %d does not fit self of rank %d", (int)target->dim, (int)self->dim);
  if (reduction < 0 || reduction > 2)
    return K_FAIL("reduction must be 0, 1 or 2, got %lld", (long long)reduction);
  if (weight) {
    K_CHECK(kb_float_input(ctx, weight, self->dtype, "weight"));
    if (weight->dim != 1 || weight->sizes[0] != n->C)
      return K_FAIL("weight must have %lld entries", (long long)n->C);
  }
  for (int64_t i = 0; i < n->N; i++) {
    int64_t t = k_get_i(target->data, target->dtype, i);
    if (t != ignore_index && (t < 0 || t >= n->C))
      return K_FAIL("target %lld is out of bounds for %lld classes", (long long)t, (long long)n->C);
  }
  return PTE_OK;
}

int64_t kb_nll_target(const kb_nll *n, int64_t i, double *w) {
  int64_t t = k_get_i(n->target->data, n->target->dtype, i);
  if (t == n->ignore_index) {
    *w = 0;
    return -1;
  }
  *w = n->weight ? k_get_d(n->weight->data, n->weight->dtype, t) : 1.0;
  return t;
}
