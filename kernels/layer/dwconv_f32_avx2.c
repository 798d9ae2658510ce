/* AVX2/FMA output row of k_dwconv_f32 (dwconv_f32.c): the body of
 * dwconv_f32_body.h at 8 lanes, the last block's lanes selected by an
 * integer mask (vmaskmovps: masked-off lanes neither read nor written). */
#include "simd.h"

#if defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>

static inline __m256i dw_mask8(int64_t left) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(left > 8 ? 8 : left)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

#define DW_V __m256
#define DW_M __m256i
#define DW_N 8
#define DW_MASK(left) dw_mask8(left)
#define DW_LOAD(m, p) _mm256_maskload_ps(p, m)
#define DW_LOADU(p) _mm256_loadu_ps(p)
#define DW_STORE(p, m, v) _mm256_maskstore_ps(p, m, v)
#define DW_STOREU(p, v) _mm256_storeu_ps(p, v)
#define DW_SET1 _mm256_set1_ps
#define DW_ZERO _mm256_setzero_ps
#define DW_FMA _mm256_fmadd_ps
#define DW_MIN _mm256_min_ps
#define DW_MAX _mm256_max_ps
#define DW_ROW k_dwconv_f32_row_avx2
#include "dwconv_f32_body.h"
#else
/* Built without AVX2 support in the compiler: never selected. */
void k_dwconv_f32_row_avx2(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) { (void)d, (void)n, (void)oy; }
#endif
