/* k_dwconv_s8's AVX2 body (dwconv_s8.c): 16 channels at a time, int8
 * widened to int16, two taps per madd (products of at most 2^14, pairs
 * of at most 2^15 in int32), filter packed by k_dwconv_s8_pack. */
#include "qgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

static inline __m128i dw_requant8(__m256i acc, __m256 s, __m256 lo, __m256 hi, __m256i zp) {
  __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), s);
  v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
  __m256i t = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp); /* default rounding: half to even */
  return _mm_packs_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

int64_t k_dw_body_avx2(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y) {
  const int64_t C = d->C;
  const __m256 lo_f = _mm256_set1_ps((float)(d->qmin - d->zy)),
               hi_f = _mm256_set1_ps((float)(d->qmax - d->zy));
  const __m256i zp = _mm256_set1_epi32(d->zy);
  const int pairs = (ntaps + 1) / 2;
  const int16_t *w = d->wpack;
  int64_t c = 0;
  for (; c + 16 <= C; c += 16) {
    /* pairs of taps through madd: each int32 lane sums two products */
    __m256i lo = _mm256_setzero_si256(), hi = _mm256_setzero_si256();
    for (int p = 0; p < pairs; p++, w += 32) {
      const int8_t *pa = taps[2 * p] + c, *pb = (2 * p + 1 < ntaps ? taps[2 * p + 1] : taps[2 * p]) + c;
      __m256i xa = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)pa));
      __m256i xb = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)pb));
      lo = _mm256_add_epi32(lo, _mm256_madd_epi16(_mm256_unpacklo_epi16(xa, xb),
                                                  _mm256_loadu_si256((const __m256i *)(const void *)w)));
      hi = _mm256_add_epi32(hi,
                            _mm256_madd_epi16(_mm256_unpackhi_epi16(xa, xb),
                                              _mm256_loadu_si256((const __m256i *)(const void *)(w + 16))));
    }
    __m256i a0 = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x20),
                                  _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c)));
    __m256i a1 = _mm256_add_epi32(_mm256_permute2x128_si256(lo, hi, 0x31),
                                  _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c + 8)));
    __m256 s0 = _mm256_loadu_ps(d->scale + c), s1 = _mm256_loadu_ps(d->scale + c + 8);
    __m128i q = _mm_packs_epi16(dw_requant8(a0, s0, lo_f, hi_f, zp), dw_requant8(a1, s1, lo_f, hi_f, zp));
    _mm_storeu_si128((__m128i *)(void *)(y + c), q);
  }
  return c;
}
#endif
