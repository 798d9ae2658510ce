/* Helpers shared by the reduction and normalization kernels (family B):
 * walking the reduced elements of one output position in chunks of a
 * compute type, and walking the 1-D lines of a tensor along one dim. */
#ifndef PTERUN_REDUCE_UTIL_H
#define PTERUN_REDUCE_UTIL_H

#include "kernel_util.h"

#define KR_CHUNK 256

/* A reduction over `in` planned with k_reduce_init. */
typedef struct kr_plan {
  k_reduce r;
  const pte_tensor *in;
  k_iter inner; /* pristine iterator over the reduced dims (copied per output) */
} kr_plan;

/* The walk over the reduced elements of one output position. */
typedef struct kr_walk {
  k_iter it;
  const pte_tensor *in;
  int64_t base, off, len, pos, stride, index, done;
} kr_walk;

pte_status kr_plan_init(pte_kernel_ctx *ctx, kr_plan *p, const pte_tensor *in, const int64_t *dims,
                        int32_t ndims, bool keepdim);
/* Start the walk of output position o (row-major over the kept dims). */
void kr_begin(const kr_plan *p, int64_t o, kr_walk *w);
/* Next chunk (at most KR_CHUNK values, in reduction order) converted to ct,
 * exact for the input dtype; returns the count (0 at the end). w->index is
 * the reduction index of the chunk's first element. */
int64_t kr_next(kr_walk *w, void *buf, k_ctype ct);

/* Lines along one dim: `count` lines of `len` elements; line l starts at
 * kr_line_offset(t, dim, l) and steps by t->strides[dim]. */
static inline int64_t kr_line_offset(const pte_tensor *t, int32_t dim, int64_t l) {
  int64_t off = 0;
  for (int32_t d = t->dim - 1; d >= 0; d--) {
    if (d == dim) continue;
    int64_t s = t->sizes[d];
    if (s > 1) {
      off += (l % s) * t->strides[d];
      l /= s;
    }
  }
  return off;
}

/* Element offset of row-major index i in `t` (its own shape and strides). */
static inline int64_t kr_offset(const pte_tensor *t, int64_t i) {
  return k_offset(t->dim, t->sizes, t->strides, i);
}

/* Variance (or standard deviation when take_sqrt) over dims (ndims <= 0:
 * all) with divisor max(N - correction, 0); floating point only. */
pte_status kr_var(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                  bool keepdim, double correction, bool take_sqrt, pte_tensor *out);
/* The same, also writing the mean into `mean` (self's dtype; NULL: none). */
pte_status kr_var_mean(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                       bool keepdim, double correction, bool take_sqrt, pte_tensor *out, pte_tensor *mean);

/* The argument forms of the reductions' out overloads, each followed by
 * its 1 or 2 out tensors (and the out passed back):
 *   KR_ALL       (self, ...)                        every dim
 *   KR_DIM       (self, int dim, bool keepdim, ...)
 *   KR_OPT_DIM   (self, int? dim, bool keepdim, ...) None: every dim
 *   KR_DIMS      (self, int[] dim, bool keepdim, ...)
 *   KR_OPT_DIMS  (self, int[]? dim, bool keepdim, ...) None: every dim */
typedef enum kr_form { KR_ALL, KR_DIM, KR_OPT_DIM, KR_DIMS, KR_OPT_DIMS } kr_form;
typedef struct kr_args {
  pte_tensor *self, *out, *out2; /* out2: the second out, when nouts == 2 */
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims; /* -1: every dim */
  bool keepdim;
} kr_args;
pte_status kr_read_args(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, kr_form form, int32_t nouts,
                        kr_args *a);

/* The max (is_max) or min over the given dims (ndims <= 0: all) into
 * `values` (self's dtype, may be NULL) and `indices` (int64, may be NULL;
 * the reduction index of the first extreme). NaN is the extreme (ATen's
 * max/min/amax/argmax semantics); an empty reduction fails. */
pte_status kr_minmax(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                     bool keepdim, bool is_max, pte_tensor *values, pte_tensor *indices);

/* any (is_any) or all over the given dims; ndims < 0: all dims, ndims == 0:
 * no dim (elementwise != 0, ATen's any.dims with dim=[]). The output is bool,
 * or uint8 (ATen returns uint8 for uint8 input). */
pte_status kr_anyall(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                     bool keepdim, bool is_any, pte_tensor *out);

/* Sorting along a dim (sort, topk): scratch bytes for lines of n elements. */
static inline size_t kr_sort_scratch(int64_t n) { return n > 0 ? (size_t)n * 24 + 64 : 64; }
/* Sort every line of `self` along `dim` (stable; NaN is the largest value)
 * and write the first `k` of each into values/indices (int64), which are
 * resized to self's shape with size k along dim. */
pte_status kr_sort_lines(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t dim, int64_t k, bool descending,
                         pte_tensor *values, pte_tensor *indices);
/* Scratch size for a sort of args[0] along the dim given by Int args[dim_arg]. */
size_t kr_sort_scratch_for(pte_value *const *args, int32_t nargs, int32_t dim_arg);

#endif
