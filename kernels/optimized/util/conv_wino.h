/* 3x3 stride-1 convolutions of one group by the kernel layer's Winograd
 * (k_wino_*) on NCHW, the filter transformed into scratch on every call:
 * the path of a filter the load-time rule (o_conv_prepare) did not take,
 * so only maps with enough tiles to repay the transform (one product's
 * worth of memory traffic per tile point) take it.
 * Internal to kernels_optimized. */
#ifndef PTERUN_OPT_CONV_WINO_H
#define PTERUN_OPT_CONV_WINO_H

#include "opt_util.h"

typedef struct o_wino {
  k_wino_plan p;
  int64_t N;
  /* scratch: packed filter, its temporary, the filter transposed, the
   * run's */
  size_t tmp_off, wt_off, run_off, bytes;
} o_wino;

/* false when the shape does not take Winograd (or PTERUN_CONV_WINOGRAD=0) */
bool o_wino_plan(int64_t N, int64_t C, int64_t OC, int64_t H, int64_t W, int64_t OH, int64_t OW, int64_t ph,
                 int64_t pw, o_wino *w);
/* false when scratch (64-byte aligned) is shorter than w->bytes */
bool o_wino_run(const o_wino *w, const float *x, const float *filter, const float *bias, float *y,
                void *scratch, size_t bytes);

#endif
