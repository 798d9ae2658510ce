/* float32 short-reduction convolution (klayer.h: k_conv_f32): output rows
 * split over the pool, each row by the AVX-512 or AVX2 body
 * (conv_f32_impl.h) when the CPU has it, else by the generic loop below.
 * All sum from the bias in tap order (ky, kx, c). The test:
 * tests/kernel_layer/test_klayer.c (conv_f32_reference). */
#include <math.h>

#include "simd.h"

size_t k_conv_f32_packed(int64_t OC, int64_t K) { return (size_t)((OC + 31) / 32 * 32 * K); }

void k_conv_f32_pack(const float *w, int64_t OC, int64_t K, float *out) {
  const int64_t OCp = (OC + 31) / 32 * 32;
  for (int64_t k = 0; k < K; k++)
    for (int64_t o = 0; o < OCp; o++) out[k * OCp + o] = o < OC ? w[o * K + k] : 0.0f;
}

static void row_generic(const k_conv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C, OC = d->OC, OCp = (OC + 31) / 32 * 32;
  const bool clamp = k_clamps(d->lo, d->hi);
  float *y = d->y + ((n * d->OH + oy) * d->OW) * OC;
  for (int64_t ox = 0; ox < d->OW; ox++, y += OC) {
    for (int64_t o = 0; o < OC; o++) y[o] = d->bias ? d->bias[o] : 0.0f;
    for (int32_t ky = 0; ky < d->kh; ky++) {
      const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
      if (iy < 0 || iy >= d->H) continue;
      for (int32_t kx = 0; kx < d->kw; kx++) {
        const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
        if (ix < 0 || ix >= d->W) continue;
        const float *x =
            d->x + (d->nchw ? n * C * d->H * d->W + iy * d->W + ix : ((n * d->H + iy) * d->W + ix) * C);
        const int64_t ec = d->nchw ? d->H * d->W : 1;
        const float *w = d->w + ((int64_t)ky * d->kw + kx) * C * OCp;
        for (int64_t c = 0; c < C; c++)
          for (int64_t o = 0; o < OC; o++) y[o] += x[c * ec] * w[c * OCp + o];
      }
    }
    if (clamp)
      for (int64_t o = 0; o < OC; o++) {
        const float v = y[o]; /* NaN stays NaN */
        y[o] = v < d->lo ? d->lo : v > d->hi ? d->hi : v;
      }
  }
}

static void rows(void *ctx, size_t r0, size_t r1) {
  const k_conv_f32_desc *d = ctx;
#if defined(__x86_64__)
  const k_isa isa = k_isa_get();
#endif
  for (size_t r = r0; r < r1; r++) {
    const int64_t n = (int64_t)r / d->OH, oy = (int64_t)r % d->OH;
#if defined(__x86_64__)
    if (isa == K_ISA_AVX512) k_conv_f32_row_avx512(d, n, oy);
    else if (isa == K_ISA_AVX2) k_conv_f32_row_avx2(d, n, oy);
    else
#endif
      row_generic(d, n, oy);
  }
}

void k_conv_f32(const k_conv_f32_desc *d) {
  if (d->N <= 0 || d->OH <= 0 || d->OW <= 0 || d->OC <= 0) return;
  const size_t nrows = (size_t)(d->N * d->OH);
  const double cost = 2.0 * (double)d->OW * (double)d->OC * (double)d->kh * (double)d->kw * (double)d->C;
  if (d->parallel) k_parallel_for(nrows, cost * (double)nrows, rows, (void *)d);
  else rows((void *)d, 0, nrows);
}
