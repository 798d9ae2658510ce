/* float32 depthwise convolution (klayer.h: k_dwconv_f32): output rows split
 * over the pool, each row by the AVX-512 or AVX2 body (dwconv_f32_body.h)
 * when the CPU has it, else by the generic loop below (channels innermost, contiguous in NHWC, so the
 * compiler vectorizes it with the baseline's vectors). Both sum the taps in
 * the same order (ky, then kx) starting from the bias. The test:
 * tests/kernel_layer/test_klayer.c (dwconv_f32_reference). */
#include <math.h>

#include "simd.h"

static void row_generic(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) {
  const int64_t C = d->C;
  const bool clamp = k_clamps(d->lo, d->hi);
  float *y = d->y + ((n * d->OH + oy) * d->OW) * C;
  for (int64_t ox = 0; ox < d->OW; ox++, y += C) {
    for (int64_t c = 0; c < C; c++) y[c] = d->bias ? d->bias[c] : 0.0f;
    for (int32_t ky = 0; ky < d->kh; ky++) {
      const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
      if (iy < 0 || iy >= d->H) continue;
      for (int32_t kx = 0; kx < d->kw; kx++) {
        const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
        if (ix < 0 || ix >= d->W) continue;
        const float *x = d->x + ((n * d->H + iy) * d->W + ix) * C, *w = d->w + (ky * d->kw + kx) * C;
        for (int64_t c = 0; c < C; c++) y[c] += x[c] * w[c];
      }
    }
    if (clamp)
      for (int64_t c = 0; c < C; c++) {
        /* NaN stays NaN */
        float v = y[c];
        y[c] = v < d->lo ? d->lo : v > d->hi ? d->hi : v;
      }
  }
}

static void rows(void *ctx, size_t r0, size_t r1) {
  const k_dwconv_f32_desc *d = ctx;
  const k_isa isa = k_isa_get();
  for (size_t r = r0; r < r1; r++) {
    const int64_t n = (int64_t)r / d->OH, oy = (int64_t)r % d->OH;
    if (isa == K_ISA_AVX512) k_dwconv_f32_row_avx512(d, n, oy);
    else if (isa == K_ISA_AVX2) k_dwconv_f32_row_avx2(d, n, oy);
    else row_generic(d, n, oy);
  }
}

void k_dwconv_f32(const k_dwconv_f32_desc *d) {
  if (d->N <= 0 || d->OH <= 0 || d->OW <= 0 || d->C <= 0) return;
  const size_t nrows = (size_t)(d->N * d->OH);
  const double cost = (double)d->OW * (double)d->C * (double)d->kh * (double)d->kw;
  if (d->parallel) k_parallel_for(nrows, cost * (double)nrows, rows, (void *)d);
  else rows((void *)d, 0, nrows);
}
