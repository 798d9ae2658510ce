/* Static int8 depthwise convolution (klayer.h: k_dwconv_s8). Each output
 * pixel gathers its window as one pointer per tap (the zero-point row for
 * taps in the padding), then a body sums over taps for a block of
 * channels and requantizes as XNNPACK's fp32 qs8 requantization does:
 * int32 sum, times the float scale, clamped, rounded half to even, plus
 * the zero point. Every ISA computes the same int32 sums and float
 * products, so results are bit-identical between them. */
#include <string.h>

#include "qgemm.h"

/* Round half to even through the float's bits (|v| < 2^22). */
static inline int8_t dw_q8(float v, int32_t zp) {
  float f = v + 12582912.0f;
  int32_t i;
  memcpy(&i, &f, 4);
  return (int8_t)(i - 0x4B400000 + zp);
}

/* Channels [c0, OC) of one pixel; input channel oc / mult. Sums wrap as
 * XNNPACK's (unsigned arithmetic: a hostile bias must not be UB). */
static void dw_pixel_generic(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int64_t c0,
                             int8_t *y) {
  const int64_t OC = d->C * d->mult;
  const float lo = (float)(d->qmin - d->zy), hi = (float)(d->qmax - d->zy);
  for (int64_t oc = c0; oc < OC; oc++) {
    const int64_t ic = oc / d->mult;
    uint32_t acc = (uint32_t)d->bias[oc];
    for (int t = 0; t < ntaps; t++) acc += (uint32_t)((int32_t)taps[t][ic] * (int32_t)d->w[t * OC + oc]);
    float v = (float)(int32_t)acc * d->scale[oc];
    v = v < lo ? lo : v;
    v = v > hi ? hi : v;
    if (d->rq) {
      /* k_requant_s8 of the stored value (its minus zy is v rounded) */
      float f = v + 12582912.0f;
      int32_t r;
      memcpy(&r, &f, 4);
      const float rlo = (float)(-128 - d->rq->zout), rhi = (float)(127 - d->rq->zout);
      v = (float)(r - 0x4B400000) * d->rq->scale * d->rq->inv;
      v = v < rlo ? rlo : v;
      v = v > rhi ? rhi : v;
      y[oc] = dw_q8(v, d->rq->zout);
      continue;
    }
    y[oc] = dw_q8(v, d->zy);
  }
}

typedef struct dw_job {
  const k_dwconv_s8_desc *d;
  k_dw_body_fn body;   /* channels in blocks, mult == 1; NULL: generic only */
  k_dw_row_fn row;     /* a run of interior pixels, mult == 1; NULL: pixel by pixel */
  const int8_t *table; /* the requantization's table over each finished row (d without rq) */
} dw_job;

/* The taps of pixel ox: a tap row above or below the image reads zrow. */
static void dw_taps(const k_dwconv_s8_desc *d, const int8_t *x, int64_t oy, int64_t ox, const int8_t **taps) {
  int t = 0;
  for (int ky = 0; ky < d->kh; ky++) {
    const int64_t iy = oy * d->sh + (int64_t)ky * d->dh - d->pt;
    for (int kx = 0; kx < d->kw; kx++, t++) {
      const int64_t ix = ox * d->sw + (int64_t)kx * d->dw - d->pl;
      taps[t] = iy < 0 || iy >= d->H || ix < 0 || ix >= d->W ? d->zrow : x + (iy * d->W + ix) * d->C;
    }
  }
}

/* Output columns [lo, hi) whose taps all lie inside the row. */
static void dw_interior(const k_dwconv_s8_desc *d, int64_t *lo, int64_t *hi) {
  int64_t l = d->pl <= 0 ? 0 : ((int64_t)d->pl + d->sw - 1) / d->sw;
  const int64_t top = d->W - 1 - (int64_t)(d->kw - 1) * d->dw + d->pl;
  int64_t h = top < 0 ? 0 : top / d->sw + 1;
  h = h > d->OW ? d->OW : h;
  *lo = l > h ? h : l, *hi = h;
}

static void dw_rows(void *ctx, size_t b, size_t e) {
  const dw_job *j = ctx;
  const k_dwconv_s8_desc *d = j->d;
  const int64_t OC = d->C * d->mult;
  const int ntaps = d->kh * d->kw;
  const int8_t *taps[K_DW_MAX_TAPS];
  for (size_t r = b; r < e; r++) {
    const int64_t img = (int64_t)r / d->OH, oy = (int64_t)r % d->OH;
    const int8_t *x = d->x + img * d->H * d->W * d->C;
    int8_t *y = d->y + (int64_t)r * d->OW * OC;
    int64_t lo = 0, hi = 0;
    if (j->row && d->sw > 0 && d->dw > 0) dw_interior(d, &lo, &hi); /* the bounds need positive steps */
    for (int64_t ox = 0; ox < d->OW; ox++, y += OC) {
      if (ox == lo && lo < hi) {
        /* interior pixels: each tap moves by sw pixels per pixel (zrow taps stay) */
        int64_t step[K_DW_MAX_TAPS];
        dw_taps(d, x, oy, ox, taps);
        for (int t = 0; t < ntaps; t++) step[t] = taps[t] == d->zrow ? 0 : d->sw * d->C;
        const int64_t n = hi - lo, done = j->row(d, taps, step, ntaps, n, y);
        for (int64_t p = 0; done < OC && p < n; p++) {
          dw_taps(d, x, oy, ox + p, taps);
          dw_pixel_generic(d, taps, ntaps, done, y + p * OC);
        }
        ox += n - 1, y += (n - 1) * OC;
        continue;
      }
      dw_taps(d, x, oy, ox, taps);
      int64_t done = j->body ? j->body(d, taps, ntaps, y) : 0;
      if (done < OC) dw_pixel_generic(d, taps, ntaps, done, y);
    }
#if defined(PTERUN_QGEMM_X86)
    /* the row (OW x OC bytes) is still in cache */
    if (j->table) k_qtable_s8_avx512vbmi(y - d->OW * OC, (size_t)(d->OW * OC), j->table);
#endif
  }
}

size_t k_dwconv_s8_packed(int64_t taps, int64_t C) {
  return (size_t)(C / 16) * (size_t)((taps + 1) / 2) * 32;
}

/* Lane order of the bodies: unpacklo of two int16 vectors interleaves,
 * per 16 channels, channels 0-3 and 8-11, unpackhi 4-7 and 12-15. */
static const uint8_t dw_lane[16] = {0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15};

/* Blocks of 32 channels (the AVX-512 body's vector, two of the AVX2
 * body's), a last one of 16; per pair of taps a block holds its unpacklo
 * weights, then its unpackhi ones, each as 16-channel halves side by side. */
void k_dwconv_s8_pack(const int8_t *w, int64_t taps, int64_t C, int16_t *out) {
  const int64_t pairs = (taps + 1) / 2;
  for (int64_t cb = 0; cb + 16 <= C; cb += 32) {
    const int halves = cb + 32 <= C ? 2 : 1;
    for (int64_t p = 0; p < pairs; p++)
      for (int part = 0; part < 2; part++)
        for (int h = 0; h < halves; h++)
          for (int i = 0; i < 8; i++, out += 2) {
            const int64_t c = cb + 16 * h + dw_lane[8 * part + i], t = 2 * p;
            out[0] = w[t * C + c];
            out[1] = t + 1 < taps ? w[(t + 1) * C + c] : 0;
          }
  }
}

void k_dwconv_s8(const k_dwconv_s8_desc *d) {
  const int64_t rows = d->N * d->OH;
  if (rows <= 0 || d->OW <= 0) return;
  dw_job j = {.d = d, .body = NULL};
#if defined(PTERUN_QGEMM_X86)
  const k_isa isa = k_isa_get();
  if (d->mult == 1 && d->wpack && isa == K_ISA_AVX512) {
    j.body = k_dw_body_avx512;
    /* the int8 product's choice says whether the CPU has AVX-512 VNNI
     * (AMX is chosen only on top of it) */
    const char *qk = k_qgemm_kernel();
    j.row = strcmp(qk, "avx512vnni") && strcmp(qk, "amx") ? NULL : k_dw_row_avx512vnni;
  } else if (d->mult == 1 && d->wpack && isa == K_ISA_AVX2) j.body = k_dw_body_avx2;
#endif
  k_dwconv_s8_desc first;
  if (d->rq && d->rq->table && k_qtable_s8_usable()) {
    /* the first rounding in the bodies, the second by the table */
    first = *d, first.rq = NULL;
    j.d = &first, j.table = d->rq->table;
  }
  const double ops = (double)rows * (double)d->OW * (double)(d->C * d->mult) * (double)(d->kh * d->kw);
  if (d->parallel) k_parallel_for((size_t)rows, ops, dw_rows, &j);
  else dw_rows(&j, 0, (size_t)rows);
}
