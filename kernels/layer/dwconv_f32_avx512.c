/* AVX-512 output row of k_dwconv_f32 (dwconv_f32.c): for each block of 16
 * channels, a 3x3 filter's 9 vectors and the bias stay in registers while
 * the row is swept; interior pixels (every tap inside the image) take 9
 * loads and 9 FMAs, four pixels at a time (independent chains through the
 * FMA latency); edge pixels and other filter sizes go tap by tap with the
 * bounds checked. The last block's channels are masked. Taps are summed in
 * the generic loop's order (bias, then ky, kx), each an FMA (one rounding
 * where the generic loop may round twice). */
#include "simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#include <math.h>

#define D_INLINE static inline __attribute__((always_inline))

D_INLINE __m512 clamp16(__m512 v, bool clamp, __m512 lo, __m512 hi) {
  return clamp ? _mm512_min_ps(hi, _mm512_max_ps(lo, v)) : v; /* max then min: NaN stays NaN */
}

/* One pixel, any filter, taps checked against the image. */
D_INLINE __m512 pixel_checked(const k_dwconv_f32_desc *d, const float *xn, int64_t oy, int64_t ox, int64_t c,
                              __mmask16 m, __m512 acc) {
  const int64_t C = d->C;
  for (int32_t ky = 0; ky < d->kh; ky++) {
    const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
    if (iy < 0 || iy >= d->H) continue;
    for (int32_t kx = 0; kx < d->kw; kx++) {
      const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
      if (ix < 0 || ix >= d->W) continue;
      acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, xn + (iy * d->W + ix) * C + c),
                            _mm512_maskz_loadu_ps(m, d->w + (ky * d->kw + kx) * C + c), acc);
    }
  }
  return acc;
}

void k_dwconv_f32_row_avx512(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C, W = d->W, OW = d->OW;
  const bool clamp = !(isinf(d->lo) && d->lo < 0 && isinf(d->hi) && d->hi > 0);
  const __m512 lo = _mm512_set1_ps(d->lo), hi = _mm512_set1_ps(d->hi);
  const float *xn = d->x + n * d->H * W * C;
  float *y = d->y + ((n * d->OH + oy) * OW) * C;
  /* interior columns [ox0, ox1): every kx inside the image */
  int64_t ox0 = 0, ox1 = 0;
  const bool rows_in = oy * d->sh - d->pt >= 0 && oy * d->sh + (int64_t)(d->kh - 1) * d->dh - d->pt < d->H;
  const bool k3 = d->kh == 3 && d->kw == 3 && rows_in;
  if (k3) {
    ox0 = ((int64_t)d->pl + d->sw - 1) / d->sw;
    const int64_t span = (int64_t)(d->kw - 1) * d->dw - d->pl; /* ix of the last tap minus ox * sw */
    ox1 = W - 1 - span >= 0 ? (W - 1 - span) / d->sw + 1 : 0;
    if (ox1 > OW) ox1 = OW;
    if (ox0 > ox1) ox0 = ox1;
  }
  for (int64_t c = 0; c < C; c += 16) {
    const __mmask16 m = C - c >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (C - c)) - 1u);
    const __m512 b = d->bias ? _mm512_maskz_loadu_ps(m, d->bias + c) : _mm512_setzero_ps();
    int64_t ox = 0;
    if (k3) {
      for (; ox < ox0; ox++)
        _mm512_mask_storeu_ps(y + ox * C + c, m,
                              clamp16(pixel_checked(d, xn, oy, ox, c, m, b), clamp, lo, hi));
      __m512 w[9];
#pragma GCC unroll 9
      for (int t = 0; t < 9; t++) w[t] = _mm512_maskz_loadu_ps(m, d->w + t * C + c);
      const int64_t iy0 = oy * d->sh - d->pt, sx = d->sw * C, dx = d->dw * C;
      const float *r[3];
      for (int ky = 0; ky < 3; ky++) r[ky] = xn + ((iy0 + ky * d->dh) * W + ox * d->sw - d->pl) * C + c;
      for (; ox + 4 <= ox1; ox += 4) {
        __m512 a0 = b, a1 = b, a2 = b, a3 = b;
#pragma GCC unroll 3
        for (int ky = 0; ky < 3; ky++)
#pragma GCC unroll 3
          for (int kx = 0; kx < 3; kx++) {
            const float *p = r[ky] + kx * dx;
            const __m512 wt = w[ky * 3 + kx];
            a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, p), wt, a0);
            a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, p + sx), wt, a1);
            a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, p + 2 * sx), wt, a2);
            a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, p + 3 * sx), wt, a3);
          }
        float *yo = y + ox * C + c;
        _mm512_mask_storeu_ps(yo, m, clamp16(a0, clamp, lo, hi));
        _mm512_mask_storeu_ps(yo + C, m, clamp16(a1, clamp, lo, hi));
        _mm512_mask_storeu_ps(yo + 2 * C, m, clamp16(a2, clamp, lo, hi));
        _mm512_mask_storeu_ps(yo + 3 * C, m, clamp16(a3, clamp, lo, hi));
        for (int ky = 0; ky < 3; ky++) r[ky] += 4 * sx;
      }
      for (; ox < ox1; ox++) {
        __m512 a0 = b;
#pragma GCC unroll 3
        for (int ky = 0; ky < 3; ky++)
#pragma GCC unroll 3
          for (int kx = 0; kx < 3; kx++)
            a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, r[ky] + kx * dx), w[ky * 3 + kx], a0);
        _mm512_mask_storeu_ps(y + ox * C + c, m, clamp16(a0, clamp, lo, hi));
        for (int ky = 0; ky < 3; ky++) r[ky] += sx;
      }
    }
    for (; ox < OW; ox++)
      _mm512_mask_storeu_ps(y + ox * C + c, m, clamp16(pixel_checked(d, xn, oy, ox, c, m, b), clamp, lo, hi));
  }
}
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_dwconv_f32_row_avx512(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) {
  (void)d, (void)n, (void)oy;
}
#endif
