/* The output row of k_conv_f32 (conv_f32.c) for one vector width:
 * conv_f32_avx512.c (16 lanes, 8 pixels a tile) and conv_f32_avx2.c (8
 * lanes, 6 pixels: 12 accumulators, two filter vectors and the broadcast
 * fill the 16 ymm registers) include it with these set, under their ISA's
 * flags:
 *   CV_T, CV_W    the vector type and its lanes
 *   CV_PX         pixels a tile
 *   CV_NAME       the function defined
 *   cv_set1(f), cv_bcast(p), cv_load(p), cv_fma(a, b, c) (a * b + c)
 *   cv_load_n(p, n), cv_store_n(p, n, v): the first n lanes (n may be
 *   over CV_W or under 1), the rest of a load zero
 *   cv_clamp(v, lo, hi): max then min, NaN stays NaN
 * For each block of two vectors of output channels (the last block's
 * loads and stores partial; the packed filter is zero to a multiple of 32
 * channels, so its loads are whole), the pixels whose taps are all inside
 * the image go CV_PX at a time, each tap a broadcast of the input and an
 * FMA with the filter's two vectors (a stem's filter is a few tens of KB:
 * it stays in L1/L2); the edge pixels go one at a time with the bounds
 * checked. Taps are summed in the generic loop's order (bias, then ky, kx,
 * c), each an FMA: every width gives the same bits. */
#include <math.h>

#include "simd.h"

#define CV_INLINE static inline __attribute__((always_inline))
#define CV_OB (2 * CV_W) /* output channels a block */

void CV_NAME(const k_conv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C, W = d->W, OW = d->OW, OC = d->OC, OCp = (OC + 31) / 32 * 32;
  /* element strides of a column, a row and a channel of the input */
  const int64_t ex = d->nchw ? 1 : C, ey = W * ex, ec = d->nchw ? d->H * W : 1, sx = (int64_t)d->sw * ex;
  const bool clamp = k_clamps(d->lo, d->hi);
  const CV_T lo = cv_set1(d->lo), hi = cv_set1(d->hi);
  const float *xn = d->x + n * d->H * W * C;
  float *y = d->y + ((n * d->OH + oy) * OW) * OC;
  /* interior columns [ox0, ox1): every kx inside the image */
  int64_t ox0 = ((int64_t)d->pl + d->sw - 1) / d->sw, ox1;
  const int64_t span = (int64_t)(d->kw - 1) * d->dw - d->pl; /* ix of the last tap minus ox * sw */
  ox1 = W - 1 - span >= 0 ? (W - 1 - span) / d->sw + 1 : 0;
  if (ox1 > OW) ox1 = OW;
  if (ox0 > ox1) ox0 = ox1;
  /* the rows of taps inside the image (the same for every pixel of the row) */
  int32_t ky0 = 0, ky1 = d->kh;
  while (ky0 < ky1 && oy * d->sh + (int64_t)ky0 * d->dh - d->pt < 0) ky0++;
  while (ky1 > ky0 && oy * d->sh + (int64_t)(ky1 - 1) * d->dh - d->pt >= d->H) ky1--;
  for (int64_t o = 0; o < OC; o += CV_OB) {
    const int64_t n0 = OC - o, n1 = OC - o - CV_W;
    const CV_T b0 = d->bias ? cv_load_n(d->bias + o, n0) : cv_set1(0.0f);
    const CV_T b1 = d->bias ? cv_load_n(d->bias + o + CV_W, n1) : cv_set1(0.0f);
    for (int64_t ox = 0; ox < OW;) {
      if (ox >= ox0 && ox < ox1 && ox1 - ox0 >= CV_PX) {
        /* the last interior pixels as a tile ending at ox1, recomputing a
         * few (the same values): a single pixel is one FMA chain, 4x
         * slower a pixel (the stem's right pad left 7 a row) */
        if (ox + CV_PX > ox1) ox = ox1 - CV_PX;
        CV_T a[CV_PX][2];
#pragma GCC unroll 8
        for (int p = 0; p < CV_PX; p++) a[p][0] = b0, a[p][1] = b1;
        for (int32_t ky = ky0; ky < ky1; ky++) {
          const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
          for (int32_t kx = 0; kx < d->kw; kx++) {
            const float *xp = xn + iy * ey + (ox * d->sw + (int64_t)kx * d->dw - d->pl) * ex;
            const float *wp = d->w + ((int64_t)ky * d->kw + kx) * C * OCp + o;
            for (int64_t c = 0; c < C; c++, xp += ec, wp += OCp) {
              const CV_T w0 = cv_load(wp), w1 = cv_load(wp + CV_W);
#pragma GCC unroll 8
              for (int p = 0; p < CV_PX; p++) {
                const CV_T v = cv_bcast(xp + p * sx);
                a[p][0] = cv_fma(v, w0, a[p][0]);
                a[p][1] = cv_fma(v, w1, a[p][1]);
              }
            }
          }
        }
        float *yo = y + ox * OC + o;
#pragma GCC unroll 8
        for (int p = 0; p < CV_PX; p++) {
          cv_store_n(yo + p * OC, n0, clamp ? cv_clamp(a[p][0], lo, hi) : a[p][0]);
          cv_store_n(yo + p * OC + CV_W, n1, clamp ? cv_clamp(a[p][1], lo, hi) : a[p][1]);
        }
        ox += CV_PX;
        continue;
      }
      /* one pixel, taps checked */
      CV_T a0 = b0, a1 = b1;
      for (int32_t ky = ky0; ky < ky1; ky++) {
        const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
        for (int32_t kx = 0; kx < d->kw; kx++) {
          const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
          if (ix < 0 || ix >= W) continue;
          const float *xp = xn + iy * ey + ix * ex;
          const float *wp = d->w + ((int64_t)ky * d->kw + kx) * C * OCp + o;
          for (int64_t c = 0; c < C; c++, wp += OCp) {
            const CV_T v = cv_bcast(xp + c * ec);
            a0 = cv_fma(v, cv_load(wp), a0);
            a1 = cv_fma(v, cv_load(wp + CV_W), a1);
          }
        }
      }
      cv_store_n(y + ox * OC + o, n0, clamp ? cv_clamp(a0, lo, hi) : a0);
      cv_store_n(y + ox * OC + o + CV_W, n1, clamp ? cv_clamp(a1, lo, hi) : a1);
      ox++;
    }
  }
}
