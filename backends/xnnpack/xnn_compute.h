/* pterun's own fp32 compute for XNNPACK nodes (xnn_native.c). Loops split
 * over the pool with the kernel layer's k_parallel_for (one cost model for
 * every kernel family) and products run on its GEMM (xg_batch_matmul). */
#ifndef PTERUN_XNN_COMPUTE_H
#define PTERUN_XNN_COMPUTE_H

#include <pterun/threadpool.h>

#include "xnn_nodes.h"

/* y[b][m][n] = a[b][m][k] . B[b] (+ bias[n]), clamped to [lo, hi] when
 * `clamp`; B is [k, n], or [n, k] when b_nk. Batch dims are right-aligned
 * into 4 slots; sa/sb are matrix strides (0 where an operand broadcasts). */
typedef struct xg_matmul {
  const float *a, *b, *bias;
  float *y;
  size_t m, k, n;
  bool b_nk;
  bool clamp;
  float lo, hi;
  size_t batch[4], sa[4], sb[4];
} xg_matmul;
void xg_batch_matmul(const xg_matmul *mm);

/* The native entry points the node table names. */
#define XG_NATIVE_DECL(name) xg_native_fn xg_native_##name;
/* (one list, wrapped by hand) */
/* clang-format off */
#define XG_NATIVE_LIST(X)                                                                              \
  X(add) X(subtract) X(multiply) X(divide) X(minimum) X(maximum) X(prelu) X(clamp) X(sigmoid)    \
  X(floor) X(ceiling) X(square_root) X(square) X(hardswish) X(negate) X(abs) X(leaky_relu) X(elu)  \
  X(rsqrt) X(log) X(gelu) X(tanh) X(exp) X(sin) X(cos) X(copy) X(softmax) X(fully_connected)      \
  X(batch_matmul) X(transpose) X(slice) X(constant_pad) X(concat) X(avg_pool) X(max_pool)          \
  X(argmax_pool) X(global_avg_pool) X(convert) X(conv2d)
/* clang-format on */
XG_NATIVE_LIST(XG_NATIVE_DECL)
#undef XG_NATIVE_DECL

#endif
