/* The output row of k_dwconv_f32 (dwconv_f32.c) written once over a vector
 * width: dwconv_f32_avx512.c (16 lanes, mask registers) and
 * dwconv_f32_avx2.c (8 lanes, integer masks) define the macros below and
 * include this. For each block of DW_N channels a 3x3 filter's 9 vectors
 * and the bias stay in registers while the row is swept; interior pixels
 * (every tap inside the image) take 9 loads and 9 FMAs, four pixels at a
 * time (independent chains through the FMA latency: 4 accumulators + 9
 * taps + bias fit AVX2's 16 registers with the loads folded into the FMAs);
 * edge pixels, the interior's last pixels short of four and other filter
 * sizes go a pixel at a time, the taps' bounds found once for the pixel,
 * four channel blocks at a time.
 * The last block's channels are masked; the others are plain loads (the
 * `full` path, specialized at compile time). Taps are summed in the generic
 * loop's order (bias, then ky, kx), each an FMA (one rounding where the
 * generic loop may round twice).
 *
 * The includer defines: DW_V (vector), DW_M (mask), DW_N (lanes),
 * DW_MASK(left) (the first min(left, DW_N) lanes), DW_LOAD(m, p) (masked
 * lanes read as zero), DW_STORE(p, m, v), DW_SET1, DW_ZERO(), DW_FMA(a, b, c)
 * (a * b + c), DW_MIN, DW_MAX, and DW_ROW, the function's name. */
#include <math.h>

#define DW_INLINE static inline __attribute__((always_inline))
/* full blocks load without a mask (a compile-time constant after inlining) */
#define DW_LD(full, m, p) ((full) ? DW_LOADU(p) : DW_LOAD(m, p))
#define DW_ST(full, p, m, v) ((full) ? DW_STOREU(p, v) : DW_STORE(p, m, v))

DW_INLINE DW_V dw_clamp(DW_V v, bool clamp, DW_V lo, DW_V hi) {
  return clamp ? DW_MIN(hi, DW_MAX(lo, v)) : v; /* max then min: NaN stays NaN */
}

/* Every channel of pixel (oy, ox), any filter, taps checked against the
 * image once for the pixel: four channel blocks at a time, so four FMA
 * chains overlap (one block alone waits out the FMA latency tap after tap:
 * the edges of 7x7 and 14x14 maps cost as much as their interiors). */
DW_INLINE void dw_pixel_all(const k_dwconv_f32_desc *d, const float *xn, float *yp, int64_t oy, int64_t ox,
                            bool clamp, DW_V lo, DW_V hi) {
  const int64_t C = d->C;
  int32_t ky0 = 0, ky1 = d->kh, kx0 = 0, kx1 = d->kw;
  const int64_t iy0 = oy * d->sh - d->pt, ix0 = ox * d->sw - d->pl;
  while (ky0 < ky1 && iy0 + (int64_t)ky0 * d->dh < 0) ky0++;
  while (ky1 > ky0 && iy0 + (int64_t)(ky1 - 1) * d->dh >= d->H) ky1--;
  while (kx0 < kx1 && ix0 + (int64_t)kx0 * d->dw < 0) kx0++;
  while (kx1 > kx0 && ix0 + (int64_t)(kx1 - 1) * d->dw >= d->W) kx1--;
  int64_t c = 0;
  for (; c + 4 * DW_N <= C; c += 4 * DW_N) {
    DW_V a0, a1, a2, a3;
    if (d->bias) {
      a0 = DW_LOADU(d->bias + c), a1 = DW_LOADU(d->bias + c + DW_N);
      a2 = DW_LOADU(d->bias + c + 2 * DW_N), a3 = DW_LOADU(d->bias + c + 3 * DW_N);
    } else {
      a0 = a1 = a2 = a3 = DW_ZERO();
    }
    for (int32_t ky = ky0; ky < ky1; ky++)
      for (int32_t kx = kx0; kx < kx1; kx++) {
        const float *x = xn + ((iy0 + (int64_t)ky * d->dh) * d->W + ix0 + (int64_t)kx * d->dw) * C + c;
        const float *w = d->w + (ky * d->kw + kx) * C + c;
        a0 = DW_FMA(DW_LOADU(x), DW_LOADU(w), a0);
        a1 = DW_FMA(DW_LOADU(x + DW_N), DW_LOADU(w + DW_N), a1);
        a2 = DW_FMA(DW_LOADU(x + 2 * DW_N), DW_LOADU(w + 2 * DW_N), a2);
        a3 = DW_FMA(DW_LOADU(x + 3 * DW_N), DW_LOADU(w + 3 * DW_N), a3);
      }
    DW_STOREU(yp + c, dw_clamp(a0, clamp, lo, hi));
    DW_STOREU(yp + c + DW_N, dw_clamp(a1, clamp, lo, hi));
    DW_STOREU(yp + c + 2 * DW_N, dw_clamp(a2, clamp, lo, hi));
    DW_STOREU(yp + c + 3 * DW_N, dw_clamp(a3, clamp, lo, hi));
  }
  for (; c < C; c += DW_N) {
    const DW_M m = DW_MASK(C - c);
    DW_V a = d->bias ? DW_LOAD(m, d->bias + c) : DW_ZERO();
    for (int32_t ky = ky0; ky < ky1; ky++)
      for (int32_t kx = kx0; kx < kx1; kx++)
        a = DW_FMA(DW_LOAD(m, xn + ((iy0 + (int64_t)ky * d->dh) * d->W + ix0 + (int64_t)kx * d->dw) * C + c),
                   DW_LOAD(m, d->w + (ky * d->kw + kx) * C + c), a);
    DW_STORE(yp + c, m, dw_clamp(a, clamp, lo, hi));
  }
}

/* Channels [c, c + DW_N) of the row's interior pixels [ox0, ox1), a
 * multiple of four of them, 3x3 filter, every tap inside the image. */
DW_INLINE void dw_block(const k_dwconv_f32_desc *d, const float *xn, float *y, int64_t oy, int64_t c,
                        bool full, DW_M m, int64_t ox0, int64_t ox1, bool clamp, DW_V lo, DW_V hi) {
  const int64_t C = d->C, W = d->W;
  const DW_V b = d->bias ? DW_LD(full, m, d->bias + c) : DW_ZERO();
  DW_V w[9];
#pragma GCC unroll 9
  for (int t = 0; t < 9; t++) w[t] = DW_LD(full, m, d->w + t * C + c);
  const int64_t iy0 = oy * d->sh - d->pt, sx = d->sw * C, dx = d->dw * C;
  const float *r[3];
  for (int ky = 0; ky < 3; ky++) r[ky] = xn + ((iy0 + ky * d->dh) * W + ox0 * d->sw - d->pl) * C + c;
  for (int64_t ox = ox0; ox + 4 <= ox1; ox += 4) {
    DW_V a0 = b, a1 = b, a2 = b, a3 = b;
#pragma GCC unroll 3
    for (int ky = 0; ky < 3; ky++)
#pragma GCC unroll 3
      for (int kx = 0; kx < 3; kx++) {
        const float *p = r[ky] + kx * dx;
        const DW_V wt = w[ky * 3 + kx];
        a0 = DW_FMA(DW_LD(full, m, p), wt, a0);
        a1 = DW_FMA(DW_LD(full, m, p + sx), wt, a1);
        a2 = DW_FMA(DW_LD(full, m, p + 2 * sx), wt, a2);
        a3 = DW_FMA(DW_LD(full, m, p + 3 * sx), wt, a3);
      }
    float *yo = y + ox * C + c;
    DW_ST(full, yo, m, dw_clamp(a0, clamp, lo, hi));
    DW_ST(full, yo + C, m, dw_clamp(a1, clamp, lo, hi));
    DW_ST(full, yo + 2 * C, m, dw_clamp(a2, clamp, lo, hi));
    DW_ST(full, yo + 3 * C, m, dw_clamp(a3, clamp, lo, hi));
    for (int ky = 0; ky < 3; ky++) r[ky] += 4 * sx;
  }
}

void DW_ROW(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C, W = d->W, OW = d->OW;
  const bool clamp = k_clamps(d->lo, d->hi);
  const DW_V lo = DW_SET1(d->lo), hi = DW_SET1(d->hi);
  const float *xn = d->x + n * d->H * W * C;
  float *y = d->y + ((n * d->OH + oy) * OW) * C;
  /* interior columns [ox0, ox1): every tap inside the image, four at a time
   * by the register sweep; the other pixels (edges, remainders, other
   * filters) by dw_pixel_all */
  int64_t ox0 = 0, ox1 = 0;
  const bool rows_in = oy * d->sh - d->pt >= 0 && oy * d->sh + (int64_t)(d->kh - 1) * d->dh - d->pt < d->H;
  if (d->kh == 3 && d->kw == 3 && rows_in) {
    ox0 = ((int64_t)d->pl + d->sw - 1) / d->sw;
    const int64_t span = (int64_t)(d->kw - 1) * d->dw - d->pl; /* ix of the last tap minus ox * sw */
    ox1 = W - 1 - span >= 0 ? (W - 1 - span) / d->sw + 1 : 0;
    if (ox1 > OW) ox1 = OW;
    if (ox0 > ox1) ox0 = ox1;
    ox1 = ox0 + (ox1 - ox0) / 4 * 4;
  }
  if (ox1 > ox0) {
    int64_t c = 0;
    const DW_M all = DW_MASK(DW_N);
    for (; c + DW_N <= C; c += DW_N) dw_block(d, xn, y, oy, c, true, all, ox0, ox1, clamp, lo, hi);
    if (c < C) dw_block(d, xn, y, oy, c, false, DW_MASK(C - c), ox0, ox1, clamp, lo, hi);
  }
  for (int64_t ox = 0; ox < ox0; ox++) dw_pixel_all(d, xn, y + ox * C, oy, ox, clamp, lo, hi);
  for (int64_t ox = ox1; ox < OW; ox++) dw_pixel_all(d, xn, y + ox * C, oy, ox, clamp, lo, hi);
}
