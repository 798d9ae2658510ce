/* AVX-512F instance of vmath_impl.h (built with -mavx512f). */
#include "klayer.h"

#if defined(__x86_64__)
#include <immintrin.h>

typedef __m512 VF;
typedef __mmask16 VM;
#define VW 16
#define vset(c) _mm512_set1_ps(c)
#define vload(p) _mm512_loadu_ps(p)
#define vstore(p, v) _mm512_storeu_ps(p, v)
#define vadd _mm512_add_ps
#define vsub _mm512_sub_ps
#define vmul _mm512_mul_ps
#define vdiv _mm512_div_ps
#define vfma _mm512_fmadd_ps
#define vmin _mm512_min_ps
#define vmax _mm512_max_ps
/* AVX-512F has no float and/or: through the integer registers */
#define VM_BITS(a) _mm512_castps_si512(a)
#define VM_SIGN _mm512_set1_epi32((int)0x80000000u)
#define vabs(a) _mm512_castsi512_ps(_mm512_andnot_si512(VM_SIGN, VM_BITS(a)))
#define vcopysign(m, s) \
  _mm512_castsi512_ps(  \
      _mm512_or_si512(_mm512_andnot_si512(VM_SIGN, VM_BITS(m)), _mm512_and_si512(VM_SIGN, VM_BITS(s))))
#define vlt(a, b) _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ)
#define vgt(a, b) _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ)
#define vnan(a) _mm512_cmp_ps_mask(a, a, _CMP_UNORD_Q)
#define vsel(m, a, b) _mm512_mask_blend_ps(m, b, a)
#define vmullo _mm512_fmsub_ps
#define vpow2i(n) \
  _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23))
/* v * 2^n (n integral) in one instruction, denormal results rounded once */
#define vscalef _mm512_scalef_ps
#define vall(m) ((m) == (VM)0xFFFF)
/* the first k < 16 lanes of p (the others pad) */
#define vload_pad(p, k, pad) _mm512_mask_loadu_ps(vset(pad), (VM)((1u << (k)) - 1), p)
#define vstore_n(p, k, v) _mm512_mask_storeu_ps(p, (VM)((1u << (k)) - 1), v)
#define vhsum(v) _mm512_reduce_add_ps(v)
#define vhmax(v) _mm512_reduce_max_ps(v)
#define VM_TABLE k_vmath_avx512
extern const k_vmath_ops k_vmath_avx512;
#include "vmath_impl.h"
#endif
