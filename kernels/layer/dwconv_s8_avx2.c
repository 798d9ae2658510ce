/* k_dwconv_s8's AVX2 body (dwconv_s8.c): 16 channels at a time, int8
 * widened to int16, two taps per madd (products of at most 2^14, pairs of
 * at most 2^15 in int32), filter packed by k_dwconv_s8_pack. */
#include "qgemm.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>

#include "dwconv_s8_ymm.h"

int64_t k_dw_body_avx2(const k_dwconv_s8_desc *d, const int8_t *const *taps, int ntaps, int8_t *y) {
  const int64_t C = d->C, pairs = (ntaps + 1) / 2;
  const int16_t *w = d->wpack;
  int64_t c = 0;
  while (c + 16 <= C) {
    const int64_t halves = c + 32 <= C ? 2 : 1, pitch = 32 * halves;
    for (int64_t h = 0; h < halves; h++)
      dw_block16(d, taps, ntaps, c + 16 * h, w + 16 * h, pitch, 16 * halves, y);
    w += pairs * pitch;
    c += 16 * halves;
  }
  return c;
}
#endif
