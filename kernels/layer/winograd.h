/* Internal to kernels/layer: the per-ISA tile transforms of winograd.c
 * (winograd_impl.h instances). */
#ifndef PTERUN_KLAYER_WINOGRAD_H
#define PTERUN_KLAYER_WINOGRAD_H

#include "klayer.h"

/* One input tile, every channel: the (m+2)^2 patch at (y0, x0) of an image
 * x[c*sc + y*sh + x*sw] (H x W, zero outside) into v[point*vs + c]. */
typedef struct k_wino_tile_in {
  int m;
  const float *x;
  int64_t sc, sh, sw, C, y0, x0, H, W;
  float *v;
  int64_t vs;
} k_wino_tile_in;

/* One output tile, C channels: mm[point*ms + c] inverse-transformed, plus
 * bias, clamped, rows x cols of it stored at y[c*sc + i*sh + j*sw]. */
typedef struct k_wino_tile_out {
  int m;
  const float *mm;
  int64_t ms, C;
  const float *bias;
  bool clamp;
  float lo, hi;
  float *y;
  int64_t sc, sh, sw;
  int rows, cols;
} k_wino_tile_out;

/* The filter w[oc*s_oc + ic*s_ic + kh*s_kh + kw*s_kw], input channels
 * ic0 .. ic1, transformed into tmp[(point*C + ic)*OC + oc], float. */
typedef struct k_wino_filter {
  int m;
  const float *w;
  int64_t s_oc, s_ic, s_kh, s_kw, C, OC, ic0, ic1;
  float *tmp;
} k_wino_filter;

/* One row of a transformed filter point, out[x] = sum_t c[t] w[off[t] + x]
 * for x < X, in double (the load-time packing: as exact as a transform in
 * double, vectorized over the filter's unit-stride axis). */
void k_wino_row_generic(const float *w, const int64_t *off, const double *c, int nt, int64_t X, float *out);
void k_wino_row_avx2(const float *w, const int64_t *off, const double *c, int nt, int64_t X, float *out);
void k_wino_row_avx512(const float *w, const int64_t *off, const double *c, int nt, int64_t X, float *out);
void k_wino_filter_generic(const k_wino_filter *f);
void k_wino_filter_avx2(const k_wino_filter *f);
void k_wino_filter_avx512(const k_wino_filter *f);
void k_wino_in_generic(const k_wino_tile_in *t);
void k_wino_out_generic(const k_wino_tile_out *t);
void k_wino_in_avx2(const k_wino_tile_in *t);
void k_wino_out_avx2(const k_wino_tile_out *t);
void k_wino_in_avx512(const k_wino_tile_in *t);
void k_wino_out_avx512(const k_wino_tile_out *t);

#endif
