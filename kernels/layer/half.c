/* IEEE binary16 and bfloat16 <-> binary32 (klayer.h): the one copy the
 * kernel families share (portable casts, the quantized kernels' 16-bit
 * scales, the XNNPACK delegate's fp16 graphs run in fp32). Scalar bit
 * manipulation, exact widening; narrowing rounds to nearest even without a
 * data-dependent branch on the rounding (it dominated f32 -> f16 casts). */
#include <string.h>

#include "klayer.h"

float k_half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h >> 15) << 31;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu, bits;
  if (e == 0x1fu) {
    bits = sign | 0x7f800000u | (m << 13); /* inf, NaN (payload kept) */
  } else if (e) {
    bits = sign | ((e + 112u) << 23) | (m << 13); /* rebias 15 -> 127 */
  } else {
    /* zero or subnormal half: m * 2^-24, exact in float */
    float f = (float)m * 0x1p-24f;
    memcpy(&bits, &f, 4);
    bits |= sign;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t k_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = x & 0x80000000u;
  x ^= sign;
  uint32_t o;
  if (x >= 0x47800000u) { /* >= 65536, inf or NaN */
    o = x > 0x7f800000u ? 0x7e00u : 0x7c00u;
  } else if (x < 0x38800000u) {         /* below the smallest normal half: let the FPU round */
    const uint32_t half_u = 126u << 23; /* 0.5f: its ulp is the subnormal half's, 2^-24 */
    float fx, half;
    memcpy(&fx, &x, 4);
    memcpy(&half, &half_u, 4);
    fx += half;
    uint32_t r;
    memcpy(&r, &fx, 4);
    o = r - half_u;
  } else {
    const uint32_t odd = (x >> 13) & 1u;
    x += ((uint32_t)(15 - 127) << 23) + 0xfffu + odd; /* rebias, round half to even */
    o = x >> 13;                                      /* a carry into the exponent gives inf */
  }
  return (uint16_t)(o | (sign >> 16));
}

float k_bf16_to_float(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t k_float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* NaN stays NaN, quiet */
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

void k_f16_to_f32(float *dst, const uint16_t *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = k_half_to_float(src[i]);
}

void k_f32_to_f16(uint16_t *dst, const float *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = k_float_to_half(src[i]);
}
