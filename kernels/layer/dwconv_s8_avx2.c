/* k_dwconv_s8's AVX2 body (dwconv_s8.c): 16 channels at a time, int8
 * widened to int16 products (|x w| <= 2^14 fits), summed in int32. */
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
  const __m256 lo = _mm256_set1_ps((float)(d->qmin - d->zy)), hi = _mm256_set1_ps((float)(d->qmax - d->zy));
  const __m256i zp = _mm256_set1_epi32(d->zy);
  int64_t c = 0;
  for (; c + 16 <= C; c += 16) {
    __m256i a0 = _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c));
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(const void *)(d->bias + c + 8));
    const int8_t *w = d->w + c;
    for (int t = 0; t < ntaps; t++, w += C) {
      __m256i xv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(taps[t] + c)));
      __m256i wv = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)w));
      __m256i p = _mm256_mullo_epi16(xv, wv);
      a0 = _mm256_add_epi32(a0, _mm256_cvtepi16_epi32(_mm256_castsi256_si128(p)));
      a1 = _mm256_add_epi32(a1, _mm256_cvtepi16_epi32(_mm256_extracti128_si256(p, 1)));
    }
    __m256 s0 = _mm256_loadu_ps(d->scale + c), s1 = _mm256_loadu_ps(d->scale + c + 8);
    __m128i q = _mm_packs_epi16(dw_requant8(a0, s0, lo, hi, zp), dw_requant8(a1, s1, lo, hi, zp));
    _mm_storeu_si128((__m128i *)(void *)(y + c), q);
  }
  return c;
}
#endif
