/* 4-byte transposes with AVX2: 8x8 blocks through registers (unpack,
 * shuffle, 128-bit permute), the standard in-register transpose. A plain
 * loop either reads or writes with a large stride; this reads 8 rows and
 * writes 8 rows per block, every access a full 32-byte vector. Compiled
 * with -mavx2; only called when the CPU has it. */
#include "simd.h"

#if defined(__AVX2__)
#include <immintrin.h>

static inline void block8(const float *s, int64_t ss, float *d, int64_t ds) {
  __m256 r0 = _mm256_loadu_ps(s + 0 * ss), r1 = _mm256_loadu_ps(s + 1 * ss), r2 = _mm256_loadu_ps(s + 2 * ss),
         r3 = _mm256_loadu_ps(s + 3 * ss), r4 = _mm256_loadu_ps(s + 4 * ss), r5 = _mm256_loadu_ps(s + 5 * ss),
         r6 = _mm256_loadu_ps(s + 6 * ss), r7 = _mm256_loadu_ps(s + 7 * ss);
  __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3),
         t3 = _mm256_unpackhi_ps(r2, r3), t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5),
         t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE),
         u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE),
         u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE),
         u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  _mm256_storeu_ps(d + 0 * ds, _mm256_permute2f128_ps(u0, u4, 0x20));
  _mm256_storeu_ps(d + 1 * ds, _mm256_permute2f128_ps(u1, u5, 0x20));
  _mm256_storeu_ps(d + 2 * ds, _mm256_permute2f128_ps(u2, u6, 0x20));
  _mm256_storeu_ps(d + 3 * ds, _mm256_permute2f128_ps(u3, u7, 0x20));
  _mm256_storeu_ps(d + 4 * ds, _mm256_permute2f128_ps(u0, u4, 0x31));
  _mm256_storeu_ps(d + 5 * ds, _mm256_permute2f128_ps(u1, u5, 0x31));
  _mm256_storeu_ps(d + 6 * ds, _mm256_permute2f128_ps(u2, u6, 0x31));
  _mm256_storeu_ps(d + 7 * ds, _mm256_permute2f128_ps(u3, u7, 0x31));
}

void k_transpose4_avx2(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C) {
  const float *s = src;
  float *d = dst;
  /* dst[i][j] = src[i + j*sc]: source row j, column i */
  int64_t R8 = R & ~(int64_t)7, C8 = C & ~(int64_t)7;
  for (int64_t j = 0; j < C8; j += 8)
    for (int64_t i = 0; i < R8; i += 8) block8(s + j * sc + i, sc, d + i * dd + j, dd);
  for (int64_t i = 0; i < R; i++)
    for (int64_t j = i < R8 ? C8 : 0; j < C; j++) d[i * dd + j] = s[i + j * sc];
}
#else
void k_transpose4_avx2(const void *src, int64_t sc, void *dst, int64_t dd, int64_t R, int64_t C) {
  (void)src, (void)sc, (void)dst, (void)dd, (void)R, (void)C;
}
#endif
