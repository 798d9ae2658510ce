/* AVX-512 output row of k_dwconv_f32 (dwconv_f32.c): the body of
 * dwconv_f32_body.h at 16 lanes, the last block masked by a mask register. */
#include "simd.h"

#if defined(__AVX512F__)
#include <immintrin.h>

#define DW_V __m512
#define DW_M __mmask16
#define DW_N 16
#define DW_MASK(left) ((left) >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (left)) - 1u))
#define DW_LOAD(m, p) _mm512_maskz_loadu_ps(m, p)
#define DW_LOADU(p) _mm512_loadu_ps(p)
#define DW_STORE(p, m, v) _mm512_mask_storeu_ps(p, m, v)
#define DW_STOREU(p, v) _mm512_storeu_ps(p, v)
#define DW_SET1 _mm512_set1_ps
#define DW_ZERO _mm512_setzero_ps
#define DW_FMA _mm512_fmadd_ps
#define DW_MIN _mm512_min_ps
#define DW_MAX _mm512_max_ps
#define DW_ROW k_dwconv_f32_row_avx512
#include "dwconv_f32_body.h"
#else
/* Built without AVX-512 support in the compiler: never selected. */
void k_dwconv_f32_row_avx512(const k_dwconv_f32_desc *d, int64_t n, int64_t oy) {
  (void)d, (void)n, (void)oy;
}
#endif
