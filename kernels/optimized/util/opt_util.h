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

/* out [M, N] = a [M, K] @ b [K, N] for strided 2-D tensors (mm, addmm) on
 * the kernel layer's GEMM: the scratch it asks for, and the descriptor over
 * the kernel's scratch with alpha 1 (the caller sets alpha, beta and biases);
 * fails if the scratch is too small. */
static inline size_t o_mm_scratch(const pte_tensor *a, const pte_tensor *b) {
  return k_scratch_round(k_sgemm_scratch(a->sizes[0], b->sizes[1], a->sizes[1]));
}
static inline pte_status o_mm_desc(pte_kernel_ctx *ctx, const pte_tensor *a, const pte_tensor *b,
                                   pte_tensor *out, k_sgemm_desc *g) {
  size_t bytes;
  float *scratch = k_scratch(ctx, &bytes);
  const int64_t M = a->sizes[0], N = b->sizes[1], K = a->sizes[1];
  if (bytes < k_sgemm_scratch_min(M, N, K)) return K_FAIL("scratch memory too small");
  *g = (k_sgemm_desc){.M = M,
                      .N = N,
                      .K = K,
                      .a = a->data,
                      .sa0 = a->strides[0],
                      .sa1 = a->strides[1],
                      .b = b->data,
                      .sb0 = b->strides[0],
                      .sb1 = b->strides[1],
                      .c = out->data,
                      .sc0 = out->strides[0],
                      .alpha = 1.0f,
                      .scratch = scratch,
                      .scratch_bytes = bytes,
                      .parallel = true};
  return PTE_OK;
}

#endif
