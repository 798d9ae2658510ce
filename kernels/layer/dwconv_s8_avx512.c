/* k_dwconv_s8's AVX-512 body (dwconv_s8.c): 32 channels at a time in the
 * layout of k_dwconv_s8_pack (the AVX2 body's two 16-channel halves side
 * by side), a last 16-channel block as the AVX2 body computes it. */
#include "qgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include "dwconv_s8_ymm.h"

/* as dw_requant8 (dwconv_s8_ymm.h) */
static inline __m128i dw_requant16(__m512i acc, __m512 s, __m512 lo, __m512 hi, __m512i zp,
                                   const k_requant_s8_params *rq) {
  __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), s);
  v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
  __m512i r = _mm512_cvtps_epi32(v);
  if (rq) {
    v = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(r), _mm512_set1_ps(rq->scale)),
                      _mm512_set1_ps(rq->inv));
    v = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps((float)(-128 - rq->zout))),
                      _mm512_set1_ps((float)(127 - rq->zout)));
    r = _mm512_cvtps_epi32(v);
  }
  return _mm512_cvtsepi32_epi8(_mm512_add_epi32(r, zp)); /* in range: no saturation */
}

int64_t k_dw_body_avx512(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y) {
  const int64_t C = d->C, pairs = (ntaps + 1) / 2;
  const int16_t *w = d->wpack;
  const __m512 lo_f = _mm512_set1_ps((float)(d->qmin - d->zy)),
               hi_f = _mm512_set1_ps((float)(d->qmax - d->zy));
  const __m512i zp = _mm512_set1_epi32(d->rq ? d->rq->zout : d->zy);
  /* int32 lanes after the madds: lo holds channels 0-3, 8-11, 16-19, 24-27, hi the others */
  const __m512i i0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0),
                i1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  int64_t c = 0;
  for (; c + 32 <= C; c += 32, w += pairs * 64) {
    __m512i lo = _mm512_setzero_si512(), hv = _mm512_setzero_si512();
    const int16_t *wp = w;
    for (int t = 0; t < ntaps; t += 2, wp += 64) {
      const int8_t *pa = taps[t] + c, *pb = (t + 1 < ntaps ? taps[t + 1] : taps[t]) + c;
      __m512i xa = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)pa));
      __m512i xb = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)pb));
      lo = _mm512_add_epi32(lo, _mm512_madd_epi16(_mm512_unpacklo_epi16(xa, xb), _mm512_loadu_si512(wp)));
      hv =
          _mm512_add_epi32(hv, _mm512_madd_epi16(_mm512_unpackhi_epi16(xa, xb), _mm512_loadu_si512(wp + 32)));
    }
    __m512i a0 = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i0, hv), _mm512_loadu_si512(d->bias + c));
    __m512i a1 =
        _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i1, hv), _mm512_loadu_si512(d->bias + c + 16));
    __m128i q0 = dw_requant16(a0, _mm512_loadu_ps(d->scale + c), lo_f, hi_f, zp, d->rq);
    __m128i q1 = dw_requant16(a1, _mm512_loadu_ps(d->scale + c + 16), lo_f, hi_f, zp, d->rq);
    _mm_storeu_si128((__m128i *)(void *)(y + c), q0);
    _mm_storeu_si128((__m128i *)(void *)(y + c + 16), q1);
  }
  if (c + 16 <= C) {
    dw_block16(d, taps, ntaps, c, w, 32, 16, y);
    c += 16;
  }
  return c;
}

/* acc + a . b over int16 pairs: one vpdpwssd (the same int32 sums as
 * madd and add) */
static inline __m512i dw_dot(__m512i acc, __m512i a, __m512i b) { return _mm512_dpwssd_epi32(acc, a, b); }

/* A 3x3 window of dilation 1 and stride 1 or 2 over a run of pixels: each
 * tap row's three taps are adjacent columns, so a column of the window is
 * also a neighbour's (stride 1: three pixels read it, stride 2: two read
 * the even ones). Its three rows are sign-extended and paired (rows 0 and
 * 1 together, row 2 with zero) once for all of them: at stride 1 three
 * loads and four unpacks a pixel instead of ten and ten, at stride 2 six
 * and eight. The int32 sums are the body's (the same products, added in
 * another order, wrapping alike), the requantization the same. Column j
 * of row ky is r[ky] + j * cs[ky] (cs 0 for a row in the padding, zrow).
 * Returns the channels done (whole blocks of 32). */
typedef struct dw_col {
  __m512i l01, h01, l2, h2;
} dw_col;

static inline __attribute__((always_inline)) dw_col dw_column(const int8_t *r0, const int8_t *r1,
                                                              const int8_t *r2) {
  const __m512i z = _mm512_setzero_si512();
  const __m512i x0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)r0));
  const __m512i x1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)r1));
  const __m512i x2 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)r2));
  return (dw_col){_mm512_unpacklo_epi16(x0, x1), _mm512_unpackhi_epi16(x0, x1), _mm512_unpacklo_epi16(x2, z),
                  _mm512_unpackhi_epi16(x2, z)};
}

/* The outputs of pixel p of a block from its three columns */
static inline __attribute__((always_inline)) void dw_out3(const dw_col *a, const dw_col *b, const dw_col *e,
                                                          const dw_col *w, __m512i b0, __m512i b1, __m512 s0,
                                                          __m512 s1, __m512 lo_f, __m512 hi_f, __m512i zp,
                                                          const k_requant_s8_params *rq, int8_t *yp) {
  const __m512i i0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0),
                i1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  __m512i lo = _mm512_dpwssd_epi32(_mm512_setzero_si512(), a->l01, w[0].l01);
  __m512i hv = _mm512_dpwssd_epi32(_mm512_setzero_si512(), a->h01, w[0].h01);
  lo = _mm512_dpwssd_epi32(lo, a->l2, w[0].l2), hv = _mm512_dpwssd_epi32(hv, a->h2, w[0].h2);
  lo = _mm512_dpwssd_epi32(lo, b->l01, w[1].l01), hv = _mm512_dpwssd_epi32(hv, b->h01, w[1].h01);
  lo = _mm512_dpwssd_epi32(lo, b->l2, w[1].l2), hv = _mm512_dpwssd_epi32(hv, b->h2, w[1].h2);
  lo = _mm512_dpwssd_epi32(lo, e->l01, w[2].l01), hv = _mm512_dpwssd_epi32(hv, e->h01, w[2].h01);
  lo = _mm512_dpwssd_epi32(lo, e->l2, w[2].l2), hv = _mm512_dpwssd_epi32(hv, e->h2, w[2].h2);
  __m512i a0 = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i0, hv), b0);
  __m512i a1 = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i1, hv), b1);
  _mm_storeu_si128((__m128i *)(void *)yp, dw_requant16(a0, s0, lo_f, hi_f, zp, rq));
  _mm_storeu_si128((__m128i *)(void *)(yp + 16), dw_requant16(a1, s1, lo_f, hi_f, zp, rq));
}

static int64_t dw_row3(const k_dwconv_s8_desc *d, const int8_t *const *r, const int64_t *cs, int sw,
                       int64_t n, int8_t *y) {
  const int64_t C = d->C;
  const __m512 lo_f = _mm512_set1_ps((float)(d->qmin - d->zy)),
               hi_f = _mm512_set1_ps((float)(d->qmax - d->zy));
  const __m512i zp = _mm512_set1_epi32(d->rq ? d->rq->zout : d->zy);
  int64_t c = 0;
#define DW_COL(j) dw_column(r[0] + (j)*cs[0] + c, r[1] + (j)*cs[1] + c, r[2] + (j)*cs[2] + c)
  for (; c + 32 <= C; c += 32) {
    /* the filter's columns as the input's: the same pairing and lanes */
    dw_col w[3];
    for (int kx = 0; kx < 3; kx++)
      w[kx] = dw_column(d->w + kx * C + c, d->w + (3 + kx) * C + c, d->w + (6 + kx) * C + c);
    const __m512i b0 = _mm512_loadu_si512(d->bias + c), b1 = _mm512_loadu_si512(d->bias + c + 16);
    const __m512 s0 = _mm512_loadu_ps(d->scale + c), s1 = _mm512_loadu_ps(d->scale + c + 16);
    dw_col a = DW_COL(0);
    if (sw == 1) {
      dw_col b = DW_COL(1);
      for (int64_t p = 0; p < n; p++) {
        const dw_col e = DW_COL(p + 2);
        dw_out3(&a, &b, &e, w, b0, b1, s0, s1, lo_f, hi_f, zp, d->rq, y + p * C + c);
        a = b, b = e;
      }
    } else {
      for (int64_t p = 0; p < n; p++) {
        const dw_col b = DW_COL(2 * p + 1), e = DW_COL(2 * p + 2);
        dw_out3(&a, &b, &e, w, b0, b1, s0, s1, lo_f, hi_f, zp, d->rq, y + p * C + c);
        a = e;
      }
    }
  }
#undef DW_COL
  return c;
}

static inline __attribute__((always_inline)) int64_t dw_row(const k_dwconv_s8_desc *d,
                                                            const int8_t *const *taps, const int64_t *step,
                                                            int ntaps, int64_t n, int8_t *y,
                                                            const bool vnni) {
  const int64_t C = d->C;
  const int8_t *tp[K_DW_MAX_TAPS];
  int64_t done = 0;
  if (ntaps != 9) {
    for (int64_t p = 0; p < n; p++) {
      for (int t = 0; t < ntaps; t++) tp[t] = taps[t] + p * step[t];
      done = k_dw_body_avx512(d, tp, ntaps, y + p * C);
    }
    return done;
  }
  /* 3x3: five pairs of taps (the last one's second weight zero, its tap
   * read twice, as the body does) */
  enum { PAIRS = 5 };
  const int16_t *w = d->wpack;
  const __m512 lo_f = _mm512_set1_ps((float)(d->qmin - d->zy)),
               hi_f = _mm512_set1_ps((float)(d->qmax - d->zy));
  const __m512i zp = _mm512_set1_epi32(d->rq ? d->rq->zout : d->zy);
  const __m512i i0 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0),
                i1 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
  int64_t c = 0;
  /* each tap row's taps adjacent columns and moving 1 or 2 a pixel:
   * stride 1 or 2, dilation 1 (a row in the padding reads zrow, not moving) */
  const int sw = d->sw;
  bool cols = sw == 1 || sw == 2;
  int64_t cs[3];
  for (int ky = 0; ky < 3 && cols; ky++) {
    cs[ky] = step[3 * ky] == 0 ? 0 : C;
    for (int kx = 0; kx < 3; kx++)
      cols = cols && step[3 * ky + kx] == sw * cs[ky] && taps[3 * ky + kx] == taps[3 * ky] + kx * cs[ky];
  }
  if (cols) {
    const int8_t *r[3] = {taps[0], taps[3], taps[6]};
    c = dw_row3(d, r, cs, sw, n, y);
    w += c / 32 * PAIRS * 64;
  }
  for (; c + 32 <= C; c += 32, w += PAIRS * 64) {
    __m512i wl[PAIRS], wh[PAIRS];
    for (int q = 0; q < PAIRS; q++)
      wl[q] = _mm512_loadu_si512(w + q * 64), wh[q] = _mm512_loadu_si512(w + q * 64 + 32);
    const __m512i b0 = _mm512_loadu_si512(d->bias + c), b1 = _mm512_loadu_si512(d->bias + c + 16);
    const __m512 s0 = _mm512_loadu_ps(d->scale + c), s1 = _mm512_loadu_ps(d->scale + c + 16);
    for (int64_t p = 0; p < n; p++) {
      __m512i lo = _mm512_setzero_si512(), hv = _mm512_setzero_si512();
#pragma GCC unroll 5
      for (int q = 0; q < PAIRS; q++) {
        const int ta = 2 * q, tb = 2 * q + 1 < 9 ? 2 * q + 1 : 2 * q;
        const int8_t *pa = taps[ta] + p * step[ta] + c, *pb = taps[tb] + p * step[tb] + c;
        __m512i xa = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)pa));
        __m512i xb = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i *)(const void *)pb));
        lo = dw_dot(lo, _mm512_unpacklo_epi16(xa, xb), wl[q]);
        hv = dw_dot(hv, _mm512_unpackhi_epi16(xa, xb), wh[q]);
      }
      __m512i a0 = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i0, hv), b0);
      __m512i a1 = _mm512_add_epi32(_mm512_permutex2var_epi64(lo, i1, hv), b1);
      int8_t *yp = y + p * C + c;
      _mm_storeu_si128((__m128i *)(void *)yp, dw_requant16(a0, s0, lo_f, hi_f, zp, d->rq));
      _mm_storeu_si128((__m128i *)(void *)(yp + 16), dw_requant16(a1, s1, lo_f, hi_f, zp, d->rq));
    }
  }
  if (c + 16 <= C) {
    for (int64_t p = 0; p < n; p++) {
      for (int t = 0; t < 9; t++) tp[t] = taps[t] + p * step[t];
      dw_block16(d, tp, 9, c, w, 32, 16, y + p * C);
    }
    c += 16;
  }
  return c;
}

int64_t k_dw_row_avx512vnni(const k_dwconv_s8_desc *d, const int8_t *const *taps, const int64_t *step,
                            int ntaps, int64_t n, int8_t *y) {
  return dw_row(d, taps, step, ntaps, n, y, true);
}
#endif
