/* The softmax and log_softmax backward kernels share one driver: per line
 * along `dim`, s = sum(g * w(out)), then grad_input = f(g, out, s). */
#ifndef PTERUN_SOFTMAX_BACKWARD_H
#define PTERUN_SOFTMAX_BACKWARD_H

#include "backward_util.h"

/* log: grad - exp(out) * sum(grad); else out * (grad - sum(grad * out)). */
pte_status kb_softmax_backward(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool log);

#endif
