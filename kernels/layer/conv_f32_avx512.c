/* AVX-512 output row of k_conv_f32 (conv_f32.c): conv_f32_impl.h with 16
 * lanes and 8 pixels a tile (16 of the 32 zmm registers accumulate). */
#include "simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#define CV_T __m512
#define CV_W 16
#define CV_PX 8
#define CV_NAME k_conv_f32_row_avx512

static inline __mmask16 cv_mask(int64_t left) {
  return left >= 16 ? (__mmask16)0xffff : left <= 0 ? (__mmask16)0 : (__mmask16)((1u << left) - 1u);
}
#define cv_set1(f) _mm512_set1_ps(f)
#define cv_bcast(p) _mm512_set1_ps(*(p))
#define cv_load(p) _mm512_loadu_ps(p)
#define cv_fma(a, b, c) _mm512_fmadd_ps(a, b, c)
#define cv_load_n(p, n) _mm512_maskz_loadu_ps(cv_mask(n), p)
#define cv_store_n(p, n, v) _mm512_mask_storeu_ps(p, cv_mask(n), v)
#define cv_clamp(v, lo, hi) _mm512_min_ps(hi, _mm512_max_ps(lo, v))

#include "conv_f32_impl.h"
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_conv_f32_row_avx512(const k_conv_f32_desc *d, int64_t n, int64_t oy) { (void)d, (void)n, (void)oy; }
#endif
