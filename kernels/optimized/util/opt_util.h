/* What is particular to the optimized kernels; the shared machinery
 * (arguments, outputs, failures, scratch, the instruction set, the
 * parallel loop, the matrix product, strided copies) is the kernel layer's
 * (kernels/layer/klayer.h).
 *
 * Internal to kernels_optimized (hidden symbols, o_ prefix). Kernels here
 * only run float32 on default (row-major) dim order; their `accepts`
 * declines anything else at method load, so the execute paths can assume it
 * and only re-check what may change between runs (shapes). */
#ifndef PTERUN_OPT_UTIL_H
#define PTERUN_OPT_UTIL_H

#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include "klayer.h"

/* Each op file ends with one or more of these; CMake collects them into the
 * library's table (kernels/optimized/CMakeLists.txt). */
#define PTE_OPT_KERNEL(fn, opname, accepts, scratch) \
  const pte_kernel pte_opt_kernel_##fn = {opname, fn, accepts, scratch};

/* register.c reports the instruction set under these names. */
static inline k_isa o_isa_get(void) { return k_isa_get(); }
static inline const char *o_isa_name(k_isa isa) { return k_isa_name(isa); }

/* Window parameters (strides, paddings, dilations, kernel and input
 * extents) above this are declined: no real model comes near it, the
 * portable kernel names what is wrong with a hostile one, and below it the
 * geometry arithmetic here cannot overflow. */
#define O_WINDOW_MAX ((int64_t)1 << 24)

static inline int64_t o_numel(const pte_tensor *t) { return pte_tensor_numel(t); }
static inline bool o_same_shape(const pte_tensor *a, const pte_tensor *b) {
  if (a->dim != b->dim) return false;
  for (int32_t i = 0; i < a->dim; i++)
    if (a->sizes[i] != b->sizes[i]) return false;
  return true;
}

#endif
