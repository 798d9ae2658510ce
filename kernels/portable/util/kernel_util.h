/* Shared helpers for the portable kernels: ATen dtype promotion, dtype
 * conversion of whole rows, broadcasting iteration, and elementwise and
 * reduction drivers.
 *
 * Internal to kernels_portable (hidden symbols, k_ prefix). */
#ifndef PTERUN_KERNEL_UTIL_H
#define PTERUN_KERNEL_UTIL_H

#include <pterun/runtime.h>

#include "klayer.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Each op file ends with one or more of these; CMake collects them into the
 * library's kernel table (see kernels/portable/CMakeLists.txt). */
#define PTE_PORTABLE_KERNEL(fn, opname) const pte_kernel pte_portable_kernel_##fn = {opname, fn, 0, 0};
#define PTE_PORTABLE_KERNEL_EX(fn, opname, accepts, scratch) \
  const pte_kernel pte_portable_kernel_##fn = {opname, fn, accepts, scratch};

/* Argument access (k_tensor, k_int, ...), output resizing (k_out), failure
 * reporting (K_FAIL, K_CHECK) and scalars (k_scalar) are the kernel layer's
 * (klayer.h), shared with the optimized kernels and the prim ops. */

/* ---------------------------------------------------------------------- */
/* Dtypes                                                                 */
/* ---------------------------------------------------------------------- */

static inline bool k_is_float(int32_t dt) {
  return dt == PTE_FLOAT32 || dt == PTE_FLOAT64 || dt == PTE_FLOAT16 || dt == PTE_BFLOAT16;
}
static inline bool k_is_int(int32_t dt) {
  return dt == PTE_UINT8 || dt == PTE_INT8 || dt == PTE_INT16 || dt == PTE_INT32 || dt == PTE_INT64;
}
/* The complex dtypes, (re, im) pairs of one float dtype: that dtype, or -1
 * for a dtype that is not complex. */
static inline int32_t k_complex_part(int32_t dt) {
  return dt == PTE_COMPLEX32    ? PTE_FLOAT16
         : dt == PTE_COMPLEX64  ? PTE_FLOAT32
         : dt == PTE_COMPLEX128 ? PTE_FLOAT64
                                : -1;
}
static inline bool k_is_complex(int32_t dt) { return k_complex_part(dt) >= 0; }
/* A dtype the portable kernels can load and store. */
static inline bool k_is_supported(int32_t dt) { return k_is_float(dt) || k_is_int(dt) || dt == PTE_BOOL; }

/* torch.promote_types for the supported dtypes (-1 if either is unsupported). */
int32_t k_promote(int32_t a, int32_t b);

/* An operand of torch.result_type. */
typedef struct k_operand {
  int32_t dtype;
  int32_t dim;  /* 0-dim tensors rank below dimensioned ones */
  bool wrapped; /* a Python number (Scalar argument) */
} k_operand;
k_operand k_tensor_operand(const pte_tensor *t);
k_operand k_scalar_operand(const k_scalar *s);
/* ATen's result_type: dimensioned tensors, then 0-dim tensors, then wrapped
 * numbers (float → float32, int → int64), combined by category. */
int32_t k_result_type(const k_operand *ops, int32_t n);

/* Compute type for a dtype: the type the arithmetic runs in. */
typedef enum k_ctype { K_F32 = 0, K_F64 = 1, K_I64 = 2, K_BOOL = 3 } k_ctype;
static inline k_ctype k_ctype_of(int32_t dt) {
  if (dt == PTE_FLOAT64) return K_F64;
  if (k_is_float(dt)) return K_F32; /* float16/bfloat16 compute in float, like ATen */
  if (dt == PTE_BOOL) return K_BOOL;
  return K_I64;
}
static inline size_t k_ctype_size(k_ctype c) { return c == K_F32 ? 4 : c == K_BOOL ? 1 : 8; }

/* Can a value of dtype `from` be written to `to` (ATen's canCast)? */
bool k_can_cast(int32_t from, int32_t to);

/* Row conversion: n elements of `src` (dtype dt, element offset `off`,
 * element stride `stride`) into a buffer of compute type ct, rounding through
 * `through` (the op's common dtype) so results match ATen bit for bit. */
void k_load_row(void *dst, k_ctype ct, int32_t through, const void *src, int32_t dt, int64_t off,
                int64_t stride, int64_t n);
/* n elements of compute type ct into `dst` (dtype dt) at off/stride. */
void k_store_row(void *dst, int32_t dt, int64_t off, int64_t stride, const void *src, k_ctype ct, int64_t n);
/* One element as double / int64 (slow path helpers). */
double k_get_d(const void *p, int32_t dt, int64_t i);
int64_t k_get_i(const void *p, int32_t dt, int64_t i);
void k_set_d(void *p, int32_t dt, int64_t i, double v);
void k_set_i(void *p, int32_t dt, int64_t i, int64_t v);

/* ---------------------------------------------------------------------- */
/* Shapes and iteration                                                   */
/* ---------------------------------------------------------------------- */

static inline int64_t k_numel(int32_t dim, const int64_t *sizes) {
  int64_t n = 1;
  for (int32_t i = 0; i < dim; i++) n *= sizes[i];
  return n;
}

/* Broadcast the shapes of n tensors (NULL entries are skipped). */
pte_status k_broadcast_shape(pte_kernel_ctx *ctx, const pte_tensor *const *ts, int32_t n, int32_t *dim,
                             int64_t *sizes);
/* Strides of `t` viewed as broadcast to (dim, sizes): 0 on broadcast dims. */
void k_broadcast_strides(const pte_tensor *t, int32_t dim, const int64_t *sizes, int64_t *strides);

#define K_MAX_OPERANDS 4

/* Walks an iteration space row by row for up to K_MAX_OPERANDS operands;
 * adjacent dims are merged where every operand allows it. */
typedef struct k_iter {
  int32_t nops;
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM];
  int64_t strides[K_MAX_OPERANDS][PTE_MAX_DIM];
  int64_t index[PTE_MAX_DIM];
  int64_t offset[K_MAX_OPERANDS];
  int64_t rows_left;
} k_iter;

void k_iter_init(k_iter *it, int32_t dim, const int64_t *sizes, int32_t nops,
                 int64_t (*strides)[PTE_MAX_DIM]);
/* Next row: fills off[k] with each operand's start; returns its length (0 when done). */
int64_t k_iter_row(k_iter *it, int64_t *off);
/* Inner (row) stride of operand k. */
static inline int64_t k_iter_stride(const k_iter *it, int32_t k) {
  return it->dim ? it->strides[k][it->dim - 1] : 0;
}

/* Element offset of linear (row-major) index `i` in a tensor of that shape. */
static inline int64_t k_offset(int32_t dim, const int64_t *sizes, const int64_t *strides, int64_t i) {
  int64_t off = 0;
  for (int32_t d = dim - 1; d >= 0; d--) {
    int64_t s = sizes[d];
    if (s > 1) {
      off += (i % s) * strides[d];
      i /= s;
    }
  }
  return off;
}

/* ---------------------------------------------------------------------- */
/* Elementwise drivers                                                    */
/* ---------------------------------------------------------------------- */

/* Extra scalars an elementwise op may need (alpha, bounds, slopes, modes). */
typedef struct k_params {
  double d[4];
  int64_t i[4];
} k_params;

/* Row functions work on buffers of the compute type (float, double, int64_t
 * or uint8_t for bool); `out` may be of another compute type (comparisons
 * produce uint8_t). */
typedef void (*k_row_fn)(const void *a, const void *b, const void *c, void *out, int64_t n,
                         const k_params *p);
typedef struct k_row_fns {
  k_row_fn fn[4]; /* indexed by k_ctype of the inputs; NULL = dtype not supported */
} k_row_fns;

/* The elementwise driver that runs row functions with broadcasting and
 * ATen's dtype rules is ew_run (util/elementwise_util.h). */

/* Define a row function family from one expression per compute type.
 * In the expression: a, b, c are the inputs (of type T), p the k_params. */
#define K_ROW_FN(name, T, OUT_T, EXPR)                                                                       \
  static void name(const void *a_, const void *b_, const void *c_, void *o_, int64_t n, const k_params *p) { \
    const T *A_ = (const T *)a_;                                                                             \
    const T *B_ = (const T *)b_;                                                                             \
    const T *C_ = (const T *)c_;                                                                             \
    OUT_T *O_ = (OUT_T *)o_;                                                                                 \
    (void)p;                                                                                                 \
    (void)B_;                                                                                                \
    (void)C_;                                                                                                \
    for (int64_t j_ = 0; j_ < n; j_++) {                                                                     \
      T a = A_[j_];                                                                                          \
      T b = B_ ? B_[j_] : (T)0;                                                                              \
      T c = C_ ? C_[j_] : (T)0;                                                                              \
      (void)a;                                                                                               \
      (void)b;                                                                                               \
      (void)c;                                                                                               \
      O_[j_] = (OUT_T)(EXPR);                                                                                \
    }                                                                                                        \
  }

/* ---------------------------------------------------------------------- */
/* Reductions                                                             */
/* ---------------------------------------------------------------------- */

/* Splits a tensor's dims into kept (outer) and reduced (inner) ones. */
typedef struct k_reduce {
  int32_t outer_dim;
  int64_t outer_sizes[PTE_MAX_DIM];
  int64_t outer_strides[PTE_MAX_DIM];
  int32_t inner_dim;
  int64_t inner_sizes[PTE_MAX_DIM];
  int64_t inner_strides[PTE_MAX_DIM];
  int64_t outer_numel;
  int64_t inner_numel;
  int32_t out_dim; /* shape of the result (keepdim applied) */
  int64_t out_sizes[PTE_MAX_DIM];
} k_reduce;

/* dims: the reduced dims (may be negative); ndims < 0 or 0 = all dims
 * (callers pass 0 only where the op means "all" for an empty list). */
pte_status k_reduce_init(pte_kernel_ctx *ctx, k_reduce *r, const pte_tensor *in, const int64_t *dims,
                         int32_t ndims, bool keepdim);
static inline int64_t k_reduce_outer(const k_reduce *r, int64_t o) {
  return k_offset(r->outer_dim, r->outer_sizes, r->outer_strides, o);
}
static inline int64_t k_reduce_inner(const k_reduce *r, int64_t k) {
  return k_offset(r->inner_dim, r->inner_sizes, r->inner_strides, k);
}

#endif
