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
  float *scratch; /* packing space (NULL: the GEMM's stack buffers) */
  size_t scratch_bytes;
} xg_matmul;
void xg_batch_matmul(const xg_matmul *mm);

/* The im2col rows of an NHWC convolution, for fp32 (xnn_conv.c) and int8
 * (xnn_native.c) alike: output pixels r0 + [b, e) of one image and group,
 * each row the window's taps times the group's channels, elements of `es`
 * bytes; taps in the padding get `pad` bytes (0: fp32 zero; int8: the input
 * zero point). A k_parallel_for range function over `xg_im2col`. */
typedef struct xg_im2col {
  const uint8_t *x; /* the image, NHWC */
  uint8_t *col;
  const xg_conv_params *c;
  int64_t H, W, C, OW, gin, c0; /* c0: the group's first input channel */
  size_t r0;                    /* the pass's first output pixel */
  size_t es;
  size_t ld; /* bytes from a row to the next: the window's, or more (an int8 K padded to 4), the rest pad */
  uint8_t pad;
} xg_im2col;
void xg_im2col_range(void *ctx, size_t b, size_t e);

/* One product of a convolution on rows of A (stride lda elements): `rows`
 * output pixels from pixel0 (counted over every image) on, group `group`.
 * slot < 0: the product may split over the pool; slot >= 0: it runs on a
 * pool thread, serially, on that thread's slice `slot` of the scratch. */
typedef void (*xg_conv_product)(void *ctx, const void *a, int64_t lda, int64_t rows, int64_t pixel0,
                                uint32_t group, int slot);
/* Convolution node n (NHWC, elements of es bytes) as products on rows, for
 * fp32 and int8 alike: `direct` (1x1, stride 1, unpadded) multiplies the
 * input rows in place; otherwise im2col rows of `kin` elements go into col,
 * at most `chunk` output pixels a pass (pad: the byte of a padding tap).
 * With `slots` > 1 slices of col (`col_slot` bytes apart; the product's
 * scratch as many), whole passes are spread over the pool threads, each
 * building its own rows; else each pass's rows are built on the pool and
 * its product split there. */
void xg_conv_passes(const xg_graph *g, const xg_node *n, const void *in, size_t es, uint8_t pad, bool direct,
                    void *col, int64_t chunk, uint32_t groups, int64_t kin, size_t slots, size_t col_slot,
                    xg_conv_product product, void *ctx);

/* 3x3 stride-1 fp32 convolutions by Winograd (xnn_wino.c): at init, *plan
 * is the node's transformed filter, or NULL when the node is no such
 * convolution (or PTERUN_CONV_WINOGRAD=0); xg_wino_run runs it. */
pte_status xg_wino_prepare(xg_graph *g, uint32_t ni, xg_mem *mem, const void **plan);
void xg_wino_run(const xg_graph *g, const xg_node *n, const void *plan, void *const *ptr);

/* Packing space g->fc_scratch of at least `need` bytes (it only grows),
 * shared by the native products and chains, which run one at a time; the
 * error names node ni. */
pte_status xg_fc_scratch_reserve(xg_graph *g, uint32_t ni, xg_mem *mem, size_t need);

/* Inverted-residual chains ([expand 1x1] -> depthwise -> project 1x1, fp32,
 * native) run by the project node in row bands (xnn_fuse.c). The filter of
 * native fp32 1x1 convolution n (stride 1, unpadded, one group) packed at
 * init, or NULL when n is no such node; set_chain makes n run `chain`. */
struct xg_chain;
const float *xg_conv_direct_filter(const xg_node *n);
void xg_conv_set_chain(xg_node *n, const struct xg_chain *chain);
bool xg_conv_is_chain(const xg_node *n);
void xg_chain_run(const xg_graph *g, const xg_node *n, const struct xg_chain *chain, void *const *ptr);

/* The native entry points the node table names. */
#define XG_NATIVE_DECL(name) xg_native_fn xg_native_##name;
/* (one list, wrapped by hand) */
/* clang-format off */
#define XG_NATIVE_LIST(X)                                                                              \
  X(add) X(subtract) X(multiply) X(divide) X(minimum) X(maximum) X(prelu) X(clamp) X(sigmoid)    \
  X(floor) X(ceiling) X(square_root) X(square) X(hardswish) X(negate) X(abs) X(leaky_relu) X(elu)  \
  X(rsqrt) X(log) X(gelu) X(gelu_exact) X(gelu_q) X(tanh) X(exp) X(sin) X(cos) X(copy) X(softmax) X(fully_connected)      \
  X(batch_matmul) X(transpose) X(slice) X(constant_pad) X(concat) X(avg_pool) X(max_pool)          \
  X(argmax_pool) X(global_avg_pool) X(convert) X(conv2d) X(depthwise_conv2d)
/* clang-format on */
XG_NATIVE_LIST(XG_NATIVE_DECL)
#undef XG_NATIVE_DECL

#endif
