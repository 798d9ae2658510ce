/* k_lut_s8's AVX-512 VBMI body (built with -mavx512vbmi): two two-table
 * byte permutes (128 entries each, chosen by bit 6 of the index), then the
 * index's top bit picks between them. */
#include "klayer.h"

#if defined(__x86_64__)
#include <immintrin.h>

void k_lut_s8_vbmi(const int8_t *x, int8_t *y, size_t n, const int8_t *table);

/* n a multiple of 64 */
void k_lut_s8_vbmi(const int8_t *x, int8_t *y, size_t n, const int8_t *table) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  for (size_t i = 0; i < n; i += 64) {
    const __m512i u = _mm512_xor_si512(_mm512_loadu_si512(x + i), flip); /* x + 128 */
    const __m512i lo = _mm512_permutex2var_epi8(t0, u, t1), hi = _mm512_permutex2var_epi8(t2, u, t3);
    _mm512_storeu_si512(y + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(u), lo, hi));
  }
}
#endif
