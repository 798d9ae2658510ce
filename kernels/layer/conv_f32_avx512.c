/* AVX-512 output row of k_conv_f32 (conv_f32.c): for each block of 32
 * output channels (two vectors, the last block masked), pixels whose taps
 * are all inside the image go eight at a time, 16 accumulators, each tap a
 * broadcast of the input and an FMA with the packed filter's two vectors
 * (the filter of a stem is a few KB: it stays in L1; packed to whole
 * vectors of channels, only the stores are masked); the edge pixels go one
 * at a time with the bounds checked. Taps are summed in the generic loop's
 * order (bias, then ky, kx, c), each an FMA. */
#include "simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#include <math.h>

#define D_INLINE static inline __attribute__((always_inline))

D_INLINE __m512 clamp16(__m512 v, bool clamp, __m512 lo, __m512 hi) {
  return clamp ? _mm512_min_ps(hi, _mm512_max_ps(lo, v)) : v; /* max then min: NaN stays NaN */
}

static __mmask16 lane_mask(int64_t left) {
  return left >= 16 ? (__mmask16)0xffff : left <= 0 ? (__mmask16)0 : (__mmask16)((1u << left) - 1u);
}

void k_conv_f32_row_avx512(const k_conv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C, W = d->W, OW = d->OW, OC = d->OC, OCp = (OC + 31) / 32 * 32;
  /* element strides of a column, a row and a channel of the input */
  const int64_t ex = d->nchw ? 1 : C, ey = W * ex, ec = d->nchw ? d->H * W : 1, sx = (int64_t)d->sw * ex;
  const bool clamp = !(isinf(d->lo) && d->lo < 0 && isinf(d->hi) && d->hi > 0);
  const __m512 lo = _mm512_set1_ps(d->lo), hi = _mm512_set1_ps(d->hi);
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
  for (int64_t o = 0; o < OC; o += 32) {
    const __mmask16 m0 = lane_mask(OC - o), m1 = lane_mask(OC - o - 16);
    const __m512 b0 = d->bias ? _mm512_maskz_loadu_ps(m0, d->bias + o) : _mm512_setzero_ps();
    const __m512 b1 = d->bias ? _mm512_maskz_loadu_ps(m1, d->bias + o + 16) : _mm512_setzero_ps();
    for (int64_t ox = 0; ox < OW;) {
      if (ox >= ox0 && ox < ox1 && ox1 - ox0 >= 8) {
        /* the last interior pixels as a tile ending at ox1, recomputing a
         * few (the same values): a single pixel is one FMA chain, 4x
         * slower a pixel (the stem's right pad left 7 a row) */
        if (ox + 8 > ox1) ox = ox1 - 8;
        __m512 a[8][2];
#pragma GCC unroll 8
        for (int p = 0; p < 8; p++) a[p][0] = b0, a[p][1] = b1;
        for (int32_t ky = ky0; ky < ky1; ky++) {
          const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
          for (int32_t kx = 0; kx < d->kw; kx++) {
            const float *xp = xn + iy * ey + (ox * d->sw + (int64_t)kx * d->dw - d->pl) * ex;
            const float *wp = d->w + ((int64_t)ky * d->kw + kx) * C * OCp + o;
            for (int64_t c = 0; c < C; c++, xp += ec, wp += OCp) {
              const __m512 w0 = _mm512_loadu_ps(wp), w1 = _mm512_loadu_ps(wp + 16);
#pragma GCC unroll 8
              for (int p = 0; p < 8; p++) {
                const __m512 v = _mm512_set1_ps(xp[p * sx]);
                a[p][0] = _mm512_fmadd_ps(v, w0, a[p][0]);
                a[p][1] = _mm512_fmadd_ps(v, w1, a[p][1]);
              }
            }
          }
        }
        float *yo = y + ox * OC + o;
#pragma GCC unroll 8
        for (int p = 0; p < 8; p++) {
          _mm512_mask_storeu_ps(yo + p * OC, m0, clamp16(a[p][0], clamp, lo, hi));
          _mm512_mask_storeu_ps(yo + p * OC + 16, m1, clamp16(a[p][1], clamp, lo, hi));
        }
        ox += 8;
        continue;
      }
      /* one pixel, taps checked */
      __m512 a0 = b0, a1 = b1;
      for (int32_t ky = ky0; ky < ky1; ky++) {
        const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
        for (int32_t kx = 0; kx < d->kw; kx++) {
          const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
          if (ix < 0 || ix >= W) continue;
          const float *xp = xn + iy * ey + ix * ex;
          const float *wp = d->w + ((int64_t)ky * d->kw + kx) * C * OCp + o;
          for (int64_t c = 0; c < C; c++, wp += OCp) {
            const __m512 v = _mm512_set1_ps(xp[c * ec]);
            a0 = _mm512_fmadd_ps(v, _mm512_loadu_ps(wp), a0);
            a1 = _mm512_fmadd_ps(v, _mm512_loadu_ps(wp + 16), a1);
          }
        }
      }
      _mm512_mask_storeu_ps(y + ox * OC + o, m0, clamp16(a0, clamp, lo, hi));
      _mm512_mask_storeu_ps(y + ox * OC + o + 16, m1, clamp16(a1, clamp, lo, hi));
      ox++;
    }
  }
}
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_conv_f32_row_avx512(const k_conv_f32_desc *d, int64_t n, int64_t oy) { (void)d, (void)n, (void)oy; }
#endif
