/* Direct int8 convolution and transposed convolution (klayer.h,
 * k_qconv_direct): one exact int32 sum per output over the taps that reach
 * it, then XNNPACK's qs8 requantization or its qd8 fp32 output. No packing,
 * no scratch: for the shapes the fast paths do not take. */
#include <math.h>
#include <string.h>

#include "klayer.h"

/* The input row and column a tap reads for output position o, or -1. */
static inline int64_t tap_at(const k_qconv_direct_desc *d, int64_t o, int64_t k, int32_t s, int32_t dil,
                             int32_t pad, int64_t size) {
  if (!d->transpose) {
    const int64_t i = o * s + k * dil - pad;
    return i >= 0 && i < size ? i : -1;
  }
  /* transposed: input i writes output i * s - pad + k * dil */
  const int64_t t = o + pad - k * dil;
  if (t < 0 || t % s) return -1;
  return t / s < size ? t / s : -1;
}

static void rows_range(void *ctx, size_t b, size_t e) {
  const k_qconv_direct_desc *d = (const k_qconv_direct_desc *)ctx;
  const int64_t C = d->groups * d->gin, OC = d->groups * d->gout;
  for (size_t r = b; r < e; r++) {
    const int64_t n = (int64_t)r / d->OH, oy = (int64_t)r % d->OH;
    const int32_t zx = d->xq ? d->xq[n].zero_point : d->zx;
    for (int64_t ox = 0; ox < d->OW; ox++) {
      const int64_t out = ((n * d->OH + oy) * d->OW + ox) * OC;
      for (int64_t oc = 0; oc < OC; oc++) {
        const int64_t g = oc / d->gout;
        /* int32 as XNNPACK's accumulators: wraps (unsigned) on hostile sums */
        uint32_t acc = d->bias ? (uint32_t)d->bias[oc] : 0u;
        for (int32_t ky = 0; ky < d->kh; ky++) {
          const int64_t iy = tap_at(d, oy, ky, d->sh, d->dh, d->pt, d->H);
          if (iy < 0) continue;
          for (int32_t kx = 0; kx < d->kw; kx++) {
            const int64_t ix = tap_at(d, ox, kx, d->sw, d->dw, d->pl, d->W);
            if (ix < 0) continue;
            const int8_t *xp = d->x + ((n * d->H + iy) * d->W + ix) * C + g * d->gin;
            const int8_t *wp = d->w + ((oc * d->kh + ky) * d->kw + kx) * d->gin;
            int32_t s = 0;
            for (int64_t c = 0; c < d->gin; c++) s += ((int32_t)xp[c] - zx) * ((int32_t)wp[c] - d->wz);
            acc += (uint32_t)s;
          }
        }
        const int32_t a = (int32_t)acc;
        if (d->y) {
          float v = (float)a * d->scale[oc];
          const float lo = (float)(d->qmin - d->zy), hi = (float)(d->qmax - d->zy);
          v = v < lo ? lo : v > hi ? hi : v;
          d->y[out + oc] = (int8_t)((int32_t)nearbyintf(v) + d->zy);
        } else {
          /* XNNPACK's qd8 arithmetic, so the result is ExecuTorch's bit for bit */
          float v = fmaf((float)a * d->xq[n].scale, d->wscale[oc], d->fbias ? d->fbias[oc] : 0.0f);
          v = v < d->lo ? d->lo : v > d->hi ? d->hi : v;
          d->yf[out + oc] = v;
        }
      }
    }
  }
}

void k_qconv_direct(const k_qconv_direct_desc *d) {
  const size_t rows = (size_t)(d->N * d->OH);
  const double cost = (double)d->OW * (double)(d->groups * d->gout) * d->kh * d->kw * (double)d->gin;
  if (d->parallel) k_parallel_for(rows, cost * (double)rows, rows_range, (void *)d);
  else rows_range((void *)d, 0, rows);
}
