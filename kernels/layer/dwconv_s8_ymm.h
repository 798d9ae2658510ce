/* k_dwconv_s8's 16-channel block in AVX2 (dwconv_s8_avx2.c, and the last
 * block of dwconv_s8_avx512.c): two taps per madd, weights as
 * k_dwconv_s8_pack lays them out. Include after <immintrin.h>. */
#ifndef PTERUN_DWCONV_S8_YMM_H
#define PTERUN_DWCONV_S8_YMM_H

/* rq (NULL: none) requantizes again as k_requant_s8 of the stored value;
 * zp is then its zout */
static inline __m128i dw_requant8(__m256i acc, __m256 s, __m256 lo, __m256 hi, __m256i zp,
                                  const k_requant_s8_params *rq) {
  __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), s);
  v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
  __m256i r = _mm256_cvtps_epi32(v); /* default rounding: half to even */
  if (rq) {
    v = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(r), _mm256_set1_ps(rq->scale)),
                      _mm256_set1_ps(rq->inv));
    v = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps((float)(-128 - rq->zout))),
                      _mm256_set1_ps((float)(127 - rq->zout)));
    r = _mm256_cvtps_epi32(v);
  }
  __m256i t = _mm256_add_epi32(r, zp);
  return _mm_packs_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

/* Channels c .. c + 15; w: this half's unpacklo weights of the first pair,
 * `pitch` int16 per pair, the unpackhi ones `hi` further. */
static inline void dw_block16(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int64_t c,
                              const int16_t *w, int64_t pitch, int64_t hi, int8_t *y) {
  __m256i lo = _mm256_setzero_si256(), hv = _mm256_setzero_si256();
  for (int t = 0; t < ntaps; t += 2, w += pitch) {
    const int8_t *pa = taps[t] + c, *pb = (t + 1 < ntaps ? taps[t + 1] : taps[t]) + c;
    __m256i xa = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)pa));
    __m256i xb = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)pb));
    lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb),
                                                _mm256_loadu_si256((const __m256i *)(const void *)w)));
    hv = _mm256_add_epi32(hv, _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb),
                                                _mm256_loadu_si256((const __m256i *)(const void *)(w + hi))));
  }
  const __m256 lo_f = _mm256_set1_ps((float)(d->qmin - d->zy)),
               hi_f = _mm256_set1_ps((float)(d->qmax - d->zy));
  const __m256i zp = _mm256_set1_epi32(d->rq ? d->rq->zout : d->zy);
  __m256i a0 = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hv, 0x20),
                                _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c)));
  __m256i a1 = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hv, 0x31),
                                _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c + 8)));
  __m256 s0 = _mm256_loadu_ps(d->scale + c), s1 = _mm256_loadu_ps(d->scale + c + 8);
  _mm_storeu_si128((__m128i *)(void *)(y + c), _mm_packs_epi16(dw_requant8(a0, s0, lo_f, hi_f, zp, d->rq),
                                                               dw_requant8(a1, s1, lo_f, hi_f, zp, d->rq)));
}

#endif
