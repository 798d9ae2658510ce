/* 4-byte transposes with NEON: 4x4 blocks through registers (two rounds of
 * TRN, 32-bit then 64-bit lanes). A plain loop reads or writes with a large
 * stride; this reads 4 rows and writes 4 rows per block, full 16-byte
 * vectors. The elements are moved as 32-bit integers (no float NaN
 * handling can touch them). NEON is the aarch64 baseline: no flags. */
#include "simd.h"

#if defined(__aarch64__)
#include <arm_neon.h>

static inline uint32x4_t trn64(uint32x4_t a, uint32x4_t b, bool hi) {
  const uint64x2_t x = vreinterpretq_u64_u32(a), y = vreinterpretq_u64_u32(b);
  return vreinterpretq_u32_u64(hi ? vtrn2q_u64(x, y) : vtrn1q_u64(x, y));
}

static inline void block4(const uint32_t *s, int64_t ss, uint32_t *d, int64_t ds) {
  const uint32x4_t r0 = vld1q_u32(s), r1 = vld1q_u32(s + ss), r2 = vld1q_u32(s + 2 * ss),
                   r3 = vld1q_u32(s + 3 * ss);
  /* t0 = r0[0] r1[0] r0[2] r1[2], t1 = r0[1] r1[1] r0[3] r1[3], t2/t3 from r2, r3 */
  const uint32x4_t t0 = vtrn1q_u32(r0, r1), t1 = vtrn2q_u32(r0, r1), t2 = vtrn1q_u32(r2, r3),
                   t3 = vtrn2q_u32(r2, r3);
  vst1q_u32(d, trn64(t0, t2, false));
  vst1q_u32(d + ds, trn64(t1, t3, false));
  vst1q_u32(d + 2 * ds, trn64(t0, t2, true));
  vst1q_u32(d + 3 * ds, trn64(t1, t3, true));
}

void k_transpose4_neon(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C) {
  const uint32_t *s = src;
  uint32_t *d = dst;
  /* dst[i][j] = src[i + j*sc]: source row j, column i */
  int64_t R4 = R & ~(int64_t)3, C4 = C & ~(int64_t)3;
  for (int64_t j = 0; j < C4; j += 4)
    for (int64_t i = 0; i < R4; i += 4) block4(s + j * sc + i, sc, d + i * dd + j, dd);
  for (int64_t i = 0; i < R; i++)
    for (int64_t j = i < R4 ? C4 : 0; j < C; j++) d[i * dd + j] = s[i + j * sc];
}
#else
void k_transpose4_neon(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C) {
  (void)src, (void)sc, (void)dst, (void)dd, (void)R, (void)C;
}
#endif
