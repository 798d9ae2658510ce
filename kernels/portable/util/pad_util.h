/* Reflection and replication padding of the last 1, 2 or 3 dims (the
 * reflection_pad* and replication_pad* kernels). */
#ifndef PTERUN_PAD_UTIL_H
#define PTERUN_PAD_UTIL_H

#include "kernel_util.h"

typedef enum kp_mode { KP_REFLECT, KP_REPLICATE } kp_mode;

/* args = (self, int[2*nsp] padding, out, ret); padding is (last_before,
 * last_after, second_last_before, ...) as in torch.nn.functional.pad. */
pte_status kp_pad_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp, kp_mode mode);

#endif
