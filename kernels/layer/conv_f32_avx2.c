/* AVX2/FMA output row of k_conv_f32 (conv_f32.c): conv_f32_impl.h with 8
 * lanes and 6 pixels a tile (12 accumulators, two filter vectors and the
 * broadcast: 15 of the 16 ymm registers). */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

#define CV_T __m256
#define CV_W 8
#define CV_PX 6
#define CV_NAME k_conv_f32_row_avx2

/* lanes below `left` set */
static inline __m256i cv_mask(int64_t left) {
  const int32_t k = left >= 8 ? 8 : left <= 0 ? 0 : (int32_t)left;
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(k), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static inline __m256 cv_load_n(const float *p, int64_t n) {
  return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, cv_mask(n));
}
static inline void cv_store_n(float *p, int64_t n, __m256 v) {
  if (n >= 8) _mm256_storeu_ps(p, v);
  else _mm256_maskstore_ps(p, cv_mask(n), v);
}
#define cv_set1(f) _mm256_set1_ps(f)
#define cv_bcast(p) _mm256_broadcast_ss(p)
#define cv_load(p) _mm256_loadu_ps(p)
#define cv_fma(a, b, c) _mm256_fmadd_ps(a, b, c)
#define cv_clamp(v, lo, hi) _mm256_min_ps(hi, _mm256_max_ps(lo, v))

#include "conv_f32_impl.h"
#else
/* Built without AVX2/FMA support in the compiler: never selected. */
void k_conv_f32_row_avx2(const k_conv_f32_desc *d, int64_t n, int64_t oy) { (void)d, (void)n, (void)oy; }
#endif
