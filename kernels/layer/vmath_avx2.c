/* AVX2+FMA instance of vmath_impl.h (built with -mavx2 -mfma). */
#include "klayer.h"

#if defined(__x86_64__)
#include <immintrin.h>

typedef __m256 VF;
typedef __m256 VM;
#define VW 8
#define vset(c) _mm256_set1_ps(c)
#define vload(p) _mm256_loadu_ps(p)
#define vstore(p, v) _mm256_storeu_ps(p, v)
#define vadd _mm256_add_ps
#define vsub _mm256_sub_ps
#define vmul _mm256_mul_ps
#define vdiv _mm256_div_ps
#define vfma _mm256_fmadd_ps
#define vmin _mm256_min_ps
#define vmax _mm256_max_ps
#define vabs(a) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a)
#define vcopysign(m, s) \
  _mm256_or_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), m), _mm256_and_ps(_mm256_set1_ps(-0.0f), s))
#define vlt(a, b) _mm256_cmp_ps(a, b, _CMP_LT_OQ)
#define vgt(a, b) _mm256_cmp_ps(a, b, _CMP_GT_OQ)
#define vnan(a) _mm256_cmp_ps(a, a, _CMP_UNORD_Q)
#define vsel(m, a, b) _mm256_blendv_ps(b, a, m)
#define vall(m) (_mm256_movemask_ps(m) == 0xFF)
#define vmullo _mm256_fmsub_ps
#define vpow2i(n) \
  _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23))
/* the first k < 8 lanes of p (the others pad) */
#define VM_LANES(k) _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(k)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7))
#define vload_pad(p, k, pad) \
  _mm256_blendv_ps(vset(pad), _mm256_maskload_ps(p, VM_LANES(k)), _mm256_castsi256_ps(VM_LANES(k)))
#define vstore_n(p, k, v) _mm256_maskstore_ps(p, VM_LANES(k), v)
#define VM_TABLE k_vmath_avx2
static inline float vhsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}
extern const k_vmath_ops k_vmath_avx2;
static inline float vhmax(__m256 v) {
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}
#include "vmath_impl.h"
#endif
