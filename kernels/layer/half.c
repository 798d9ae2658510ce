/* IEEE binary16 <-> binary32 over arrays (the XNNPACK delegate runs fp16
 * graphs in fp32 and converts at its boundary). Scalar bit manipulation:
 * exact both ways, float -> half rounds to nearest even, NaN stays NaN
 * (quiet), overflow goes to infinity. */
#include <string.h>

#include "klayer.h"

static float h2f(uint16_t h) {
  const uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0x1fu) {
    bits = sign | 0x7f800000u | (m << 13); /* inf, NaN (payload kept) */
  } else if (e) {
    bits = sign | ((e + 112u) << 23) | (m << 13); /* rebias 15 -> 127 */
  } else if (m) {
    /* Subnormal half: m * 2^-24, exact in float. */
    float f = (float)m * 0x1p-24f;
    memcpy(&bits, &f, 4);
    bits |= sign;
  } else {
    bits = sign;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t f2h(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  const uint32_t a = x & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x1ffu)); /* NaN, quiet */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);                       /* rounds past 65504: inf */
  if (a < 0x38800000u) {
    /* Below the smallest normal half: multiples of 2^-24, ties to even
     * (the float addition rounds as the hardware does). */
    float v;
    memcpy(&v, &a, 4);
    float r = v + 0.5f; /* 0.5 = 2^23 * 2^-24: the unit in the last place becomes 2^-24 */
    uint32_t rb;
    memcpy(&rb, &r, 4);
    return (uint16_t)(sign | (rb - 0x3f000000u));
  }
  uint32_t h = ((a >> 13) - (112u << 10)); /* exponent rebias, mantissa truncated */
  const uint32_t rest = a & 0x1fffu;
  h += rest > 0x1000u || (rest == 0x1000u && (h & 1u)); /* ties to even; a carry bumps the exponent */
  return (uint16_t)(sign | h);
}

void k_f16_to_f32(float *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = h2f(src[i]);
}

void k_f32_to_f16(uint16_t *dst, const float *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = f2h(src[i]);
}
