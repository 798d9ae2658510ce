/* SGD as torch.optim.SGD's single-tensor path (the one it takes for CPU
 * tensors), operation by operation, each rounded to the parameter's dtype:
 *   g = grad (+ weight_decay * p)
 *   buf = g at the first step, else momentum * buf + (1 - dampening) * g
 *   g = g + momentum * buf (nesterov) or buf
 *   p = p - lr * g
 * Scalars are rounded to the dtype first, as ATen casts alpha. */
#include "training_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pte_training_sgd {
  pte_training_sgd_options o;
  int32_t count;
  pte_tensor **params;
  double **bufs; /* momentum buffers (NULL until the first step) */
};

void pte_training_sgd_free(pte_training_sgd *s) {
  if (!s) return;
  for (int32_t i = 0; s->bufs && i < s->count; i++) free(s->bufs[i]);
  free(s->bufs);
  free(s->params);
  free(s);
}

static pte_status check_lr(double lr) {
  if (!(lr >= 0) || isinf(lr)) return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid learning rate: %g", lr);
  return PTE_OK;
}

pte_status pte_training_sgd_create(pte_tensor *const *params, int32_t count,
                                   const pte_training_sgd_options *o, pte_training_sgd **out) {
  if (!out || !o || (count > 0 && !params) || count < 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "params, options and out must be given");
  *out = NULL;
  pte_status st = pte_abi_check(o->abi, "pte_training_sgd_options");
  if (st) return st;
  if ((st = check_lr(o->lr))) return st;
  if (!(o->momentum >= 0))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid momentum value: %g", o->momentum);
  if (!(o->weight_decay >= 0))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid weight_decay value: %g", o->weight_decay);
  if (o->nesterov && (o->momentum <= 0 || o->dampening != 0))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "nesterov momentum requires a momentum and zero dampening");
  for (int32_t i = 0; i < count; i++)
    if (!params[i] || !tr_is_float(params[i]->dtype) || !pte_tensor_is_contiguous(params[i]) ||
        (pte_tensor_numel(params[i]) > 0 && !params[i]->data))
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "parameter %d is not a contiguous float tensor with data",
                       (int)i);
  pte_training_sgd *s = (pte_training_sgd *)calloc(1, sizeof *s);
  if (!s) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  s->o = *o;
  s->count = count;
  s->params = (pte_tensor **)calloc((size_t)(count ? count : 1), sizeof *s->params);
  s->bufs = (double **)calloc((size_t)(count ? count : 1), sizeof *s->bufs);
  if (!s->params || !s->bufs) {
    pte_training_sgd_free(s);
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  }
  if (count) memcpy(s->params, params, (size_t)count * sizeof *params);
  *out = s;
  return PTE_OK;
}

pte_status pte_training_sgd_set_lr(pte_training_sgd *s, double lr) {
  if (!s) return pte_error(PTE_ERR_INVALID_ARGUMENT, "sgd must not be NULL");
  pte_status st = check_lr(lr);
  if (!st) s->o.lr = lr;
  return st;
}

pte_status pte_training_sgd_step(pte_training_sgd *s, const pte_tensor *const *grads, int32_t count) {
  if (!s || (count > 0 && !grads)) return pte_error(PTE_ERR_INVALID_ARGUMENT, "sgd and grads must be given");
  if (count != s->count)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "%d gradients for %d parameters", (int)count, (int)s->count);
  for (int32_t i = 0; i < count; i++) {
    const pte_tensor *g = grads[i], *p = s->params[i];
    if (!g || g->dtype != p->dtype || pte_tensor_numel(g) != pte_tensor_numel(p) ||
        !pte_tensor_is_contiguous(g) || (pte_tensor_numel(g) > 0 && !g->data))
      return pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "gradient %d does not match its parameter (%s, %lld elements)", (int)i,
                       pte_dtype_name(p->dtype), (long long)pte_tensor_numel(p));
  }
  /* Buffers first, so a failed allocation leaves every parameter as it was. */
  if (s->o.momentum != 0)
    for (int32_t i = 0; i < count; i++)
      if (!s->bufs[i]) {
        int64_t n = pte_tensor_numel(s->params[i]);
        s->bufs[i] = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
        if (!s->bufs[i]) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory for momentum buffers");
        s->bufs[i][0] = NAN; /* marks "first step": filled below */
      }
  for (int32_t i = 0; i < count; i++) {
    pte_tensor *p = s->params[i];
    const pte_tensor *g = grads[i];
    int32_t dt = p->dtype;
    double wd = tr_round(dt, s->o.weight_decay), mom = tr_round(dt, s->o.momentum);
    double damp = tr_round(dt, 1.0 - s->o.dampening), nlr = tr_round(dt, -s->o.lr);
    double *buf = s->bufs[i];
    bool first = buf && isnan(buf[0]);
    int64_t n = pte_tensor_numel(p);
    for (int64_t k = 0; k < n; k++) {
      double pk = tr_get(p, k), d = tr_get(g, k);
      if (wd != 0) d = tr_round(dt, fma(pk, wd, d));
      if (buf) {
        double b = first ? d : tr_round(dt, fma(d, damp, tr_round(dt, buf[k] * mom)));
        buf[k] = b;
        d = s->o.nesterov ? tr_round(dt, fma(b, mom, d)) : b;
      }
      tr_set(p, k, fma(d, nlr, pk));
    }
  }
  return PTE_OK;
}
