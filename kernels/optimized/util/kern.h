/* The inner loops of the memory-bound kernels (elementwise arithmetic,
 * clamps, batch-norm scale/shift, depthwise convolution, pooling, sums),
 * written as plain C the compiler vectorizes. kern_impl.h is compiled three
 * times (kern_generic.c for the baseline, kern_avx2.c with -mavx2 -mfma,
 * kern_avx512.c with -mavx512f; kern_neon.c on aarch64, where NEON
 * intrinsics replace the loops the compiler vectorizes poorly) and o_kern()
 * hands out the table for the instruction set this process picked. Internal
 * to kernels_optimized. */
#ifndef PTERUN_OPT_KERN_H
#define PTERUN_OPT_KERN_H

#include "opt_util.h"

typedef enum o_binop { O_ADD = 0, O_SUB = 1, O_MUL = 2, O_DIV = 3 } o_binop;
typedef enum o_unop {
  O_RELU = 0,  /* max(x, 0), NaN kept */
  O_CLAMP = 1, /* min(max(x, lo), hi), NaN kept; hardtanh and relu6 too */
  O_HARDSWISH = 2,
  O_HARDSIGMOID = 3
} o_unop;

/* Geometry of one 2-D window operation on a single plane. */
typedef struct o_win2d {
  int64_t IH, IW, OH, OW, KH, KW, sh, sw, ph, pw, dh, dw;
} o_win2d;

typedef struct o_kern_table {
  /* o[i] = a[i*sa] op alpha*b[i*sb] (alpha only for add/sub); sa, sb in {0, 1} */
  void (*binary)(o_binop op, const float *a, int64_t sa, const float *b, int64_t sb, float *o, int64_t n,
                 float alpha);
  void (*unary)(o_unop op, const float *x, float *y, int64_t n, float lo, float hi);
  /* y = x * s + t */
  void (*scale_shift)(const float *x, float *y, int64_t n, float s, float t);
  /* one output plane of a convolution with a single input channel per
   * output channel (depthwise): y = bias + sum w[kh][kw] * x[...] */
  void (*dw_plane)(const o_win2d *g, const float *x, const float *w, float bias, float *y);
  /* max pooling of one plane; idx (may be NULL) receives flat input indices */
  void (*maxpool_plane)(const o_win2d *g, const float *x, float *y, int64_t *idx);
  /* sum of n floats (in float, lanes then tree) */
  float (*sum)(const float *x, int64_t n);
  /* max of n floats (NaN propagates) */
  float (*max)(const float *x, int64_t n);
  /* sum of (x - m)^2 */
  float (*sqdev)(const float *x, int64_t n, float m);
  /* a normalized row: y = ((x - m) * r) * w + b, each step rounded (layer
   * norm's affine; the scalar loop it replaces ran at a quarter of L1's speed) */
  void (*norm_affine)(const float *x, float *y, int64_t n, float m, float r, const float *w, const float *b);
  /* 3x3 depthwise plane over a zero-padded input (row stride Wp): no
   * bounds checks, the nine taps of a row in one expression */
  void (*dw3x3_padded)(const float *xp, int64_t Wp, int64_t OH, int64_t OW, int64_t s, int64_t d,
                       const float *w, float bias, float *y);
  /* dst[j] = src[j * stride] */
  void (*gather)(float *dst, const float *src, int64_t n, int64_t stride);
  /* the instruction set it was built for (pte_kernels_optimized_isa():
   * the tests check the table in use, not only the choice) */
  const char *name;
} o_kern_table;

const o_kern_table *o_kern(void);

extern const o_kern_table o_kern_generic, o_kern_avx2, o_kern_avx512, o_kern_neon;

#endif
