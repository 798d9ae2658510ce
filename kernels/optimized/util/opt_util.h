/* Shared helpers of the optimized kernels: argument access, output
 * preparation, the accept-time checks, the instruction-set choice and the
 * parallel loop over the process pool.
 *
 * Internal to kernels_optimized (hidden symbols, o_ prefix). Kernels here
 * only run float32 on default (row-major) dim order; their `accepts`
 * declines anything else at method load, so the execute paths can assume it
 * and only re-check what may change between runs (shapes). */
#ifndef PTERUN_OPT_UTIL_H
#define PTERUN_OPT_UTIL_H

#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Each op file ends with one or more of these; CMake collects them into the
 * library's table (kernels/optimized/CMakeLists.txt). */
#define PTE_OPT_KERNEL(fn, opname, accepts, scratch) \
  const pte_kernel pte_opt_kernel_##fn = {opname, fn, accepts, scratch};

#define O_FAIL(...) pte_kernel_fail(ctx, PTE_ERR_KERNEL, __VA_ARGS__)
#define O_CHECK(expr)          \
  do {                         \
    pte_status o_st_ = (expr); \
    if (o_st_) return o_st_;   \
  } while (0)

/* ---- instruction sets ---- */

typedef enum o_isa { O_ISA_GENERIC = 0, O_ISA_AVX2 = 1, O_ISA_AVX512 = 2 } o_isa;
/* Chosen once per process from the CPU (and PTERUN_OPT_ISA, which can only
 * lower it). */
o_isa o_isa_get(void);
const char *o_isa_name(o_isa isa);

/* ---- arguments (accept time: tags and dtypes final, shapes at upper bounds) ---- */

static inline pte_tensor *o_tensor_arg(pte_value *const *args, int32_t nargs, int32_t i) {
  if (i >= nargs || !args[i] || args[i]->tag != PTE_TAG_TENSOR) return NULL;
  return args[i]->u.tensor;
}
/* Row-major dim order (the layout every kernel here assumes). */
bool o_default_order(const pte_tensor *t);
/* A float32 tensor in default dim order. */
static inline bool o_is_f32(const pte_tensor *t) {
  return t && t->dtype == PTE_FLOAT32 && o_default_order(t);
}
/* Argument i is a float32 tensor in default dim order. */
static inline bool o_f32_arg(pte_value *const *args, int32_t nargs, int32_t i) {
  return o_is_f32(o_tensor_arg(args, nargs, i));
}
static inline bool o_tag(pte_value *const *args, int32_t nargs, int32_t i, int32_t tag) {
  return i < nargs && args[i] && args[i]->tag == tag;
}
static inline bool o_is_none(pte_value *const *args, int32_t nargs, int32_t i) {
  return o_tag(args, nargs, i, PTE_TAG_NONE);
}
/* Int/Double/Bool value as double (false if another tag). */
bool o_num(pte_value *const *args, int32_t nargs, int32_t i, double *out);
/* IntList (at most max entries): count, or -1. */
int32_t o_ints(pte_value *const *args, int32_t nargs, int32_t i, int64_t *out, int32_t max);
/* Window parameters (strides, paddings, dilations, kernel and input
 * extents) above this are declined: no real model comes near it, the
 * portable kernel names what is wrong with a hostile one, and below it the
 * geometry arithmetic here cannot overflow. */
#define O_WINDOW_MAX ((int64_t)1 << 24)
/* Wrap a dim into [0, rank) (rank 0 counts as 1); -1 if out of range. */
int32_t o_wrap_dim(int64_t dim, int32_t rank);

/* ---- execute time ---- */

/* Fail unless every tensor argument (and tensor-list item) with elements
 * has memory: a hostile program can leave a tensor without any. */
pte_status o_have_data(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs);

/* Resize `out` (checking bounds and read-only constants) and make sure it
 * has memory. */
pte_status o_out(pte_kernel_ctx *ctx, pte_tensor *out, int32_t dim, const int64_t *sizes);
static inline pte_status o_out_like(pte_kernel_ctx *ctx, pte_tensor *out, const pte_tensor *like) {
  return o_out(ctx, out, like->dim, like->sizes);
}
static inline int64_t o_numel(const pte_tensor *t) { return pte_tensor_numel(t); }
static inline bool o_same_shape(const pte_tensor *a, const pte_tensor *b) {
  if (a->dim != b->dim) return false;
  for (int32_t i = 0; i < a->dim; i++)
    if (a->sizes[i] != b->sizes[i]) return false;
  return true;
}

/* Kernel scratch reserved at load (see each op's scratch_size), 64-byte
 * aligned; *size receives the usable bytes. */
void *o_scratch(pte_kernel_ctx *ctx, size_t *size);
/* Round a scratch request up and leave room for alignment. */
static inline size_t o_scratch_round(size_t bytes) { return bytes ? ((bytes + 63) & ~(size_t)63) + 64 : 0; }

/* ---- parallel loops ---- */

/* When splitting over the pool pays (measured on 2 cores): besides waking
 * the pool, a split moves the data between the cores' caches (the next
 * operator reads what another core wrote), which halved per-thread speed
 * on the zoo's small layers. So products are split from about 2^20
 * multiply-adds (~7 us on one core), other loops from 2^17 element
 * operations. */
#define O_PAR_MIN_FLOPS 1048576.0
#define O_PAR_MIN_OPS 131072.0

/* Threads of the process pool (never 0). */
size_t o_threads(void);
/* Run fn over [0, n) on the pool when the loop is worth splitting (`cost`
 * is the whole loop's work in rough element-operations; below
 * O_PAR_MIN_OPS it runs inline). Chunks are a few per thread so a busy
 * core does not hold the others back. */
void o_parallel(size_t n, double cost, pte_parallel_fn fn, void *ctx);

/* Per-thread slices of scratch for loops that need private buffers: the
 * work is cut into at most o_slots() chunks, chunk i uses slot i. */
size_t o_slots(void);

#endif
