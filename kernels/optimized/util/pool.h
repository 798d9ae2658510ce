/* Window arguments of the 2-D pooling ops (kernel_size, stride, padding,
 * dilation as ATen defaults them). Internal to kernels_optimized. */
#ifndef PTERUN_OPT_POOL_H
#define PTERUN_OPT_POOL_H

#include "kern.h"

/* Fill the window of a [N, C, H, W] or [C, H, W] input from the op's args
 * (dil_arg < 0: no dilation argument). ceil_mode is declined by the ops.
 * False when the arguments do not describe a valid window. */
bool o_pool_window(pte_value *const *args, int32_t nargs, const pte_tensor *x, int32_t k_arg, int32_t s_arg,
                   int32_t p_arg, int32_t dil_arg, o_win2d *w);
/* Output sizes: input sizes with H, W replaced by OH, OW. */
void o_pool_out_sizes(const pte_tensor *x, const o_win2d *w, int64_t *sizes);

#endif
