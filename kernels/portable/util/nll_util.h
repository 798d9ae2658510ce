/* Shared by nll_loss_forward and nll_loss_backward: the argument checks and
 * the class weights. */
#ifndef PTERUN_NLL_UTIL_H
#define PTERUN_NLL_UTIL_H

#include "backward_util.h"

typedef struct kb_nll {
  const pte_tensor *self, *target, *weight; /* weight may be NULL */
  int64_t N, C, reduction, ignore_index;
} kb_nll;

/* self [N, C] or [C], target [N] or [] (int64 or int32, every non-ignored
 * class in [0, C)), weight [C] or None; reduction 0 none, 1 mean, 2 sum. */
pte_status kb_nll_init(pte_kernel_ctx *ctx, const pte_tensor *self, const pte_tensor *target,
                       const pte_tensor *weight, int64_t reduction, int64_t ignore_index, kb_nll *n);
/* Target of sample i (-1 when ignored) and its class weight. */
int64_t kb_nll_target(const kb_nll *n, int64_t i, double *w);

#endif
