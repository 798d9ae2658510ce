/* The int8 product's AVX-512 VNNI microkernel (see qgemm.h): 6 rows x 2
 * panels (32 columns) of int32 sums by vpdpbusd, which multiplies unsigned
 * by signed bytes: the activations are flipped to unsigned (x + 128) and
 * each group's sums start at -(zr + 128) * colsum (qgemm.h has the float
 * arithmetic, XNNPACK's). */
#include "qgemm.h"

/* built with its ISA flags on x86-64 only (see CMakeLists.txt) */
#if defined(__AVX512VNNI__)
#include <immintrin.h>

#define MAXR 6
#define NPMAX 2 /* panels per tile; a tile of one panel runs the one-panel body */

/* acc += a (unsigned bytes) . b (signed bytes), in place: GCC turns the
 * intrinsic on an array of accumulators into a register copy around every
 * vpdpbusd (twice the instructions of the inner loop). */
static inline __m512i dpbusd(__m512i acc, __m512i a, __m512i b) {
#if defined(__GNUC__) && !defined(__clang__)
  __asm__("vpdpbusd %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
  return acc;
#else
  return _mm512_dpbusd_epi32(acc, a, b);
#endif
}

/* A pair of 4-k steps of 4-bit weights (qgemm.h) into the rows' 16x sums:
 * each nibble taken as itself x 16 by a shift and a mask (XNNPACK's way);
 * tail: the row's last 1..7 bytes, zero-padded (the padded weights are 0). */
static inline __attribute__((always_inline)) void w4_pair(__m512i (*acc)[NPMAX], const int8_t *const *a,
                                                          const int8_t *const *w, int64_t k, int64_t K,
                                                          const int MR, const int NP, const bool tail) {
  const __m512i hi4 = _mm512_set1_epi8((char)0xF0), flip = _mm512_set1_epi32((int)0x80808080u);
  __m512i bl[NPMAX], bh[NPMAX];
#pragma GCC unroll 2
  for (int j = 0; j < NP; j++) {
    const __m512i v = _mm512_load_si512((const void *)(w[j] + k * (K_QNR / 2)));
    bl[j] = _mm512_and_si512(_mm512_slli_epi32(v, 4), hi4);
    bh[j] = _mm512_and_si512(v, hi4);
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; i++) {
    int64_t v;
    if (tail)
      v = _mm_cvtsi128_si64(
          _mm512_castsi512_si128(_mm512_maskz_loadu_epi8((__mmask64)((1ull << (K - k)) - 1), a[i] + k)));
    else memcpy(&v, a[i] + k, 8);
    const __m512i a0 = _mm512_xor_si512(_mm512_set1_epi32((int32_t)v), flip);
    const __m512i a1 = _mm512_xor_si512(_mm512_set1_epi32((int32_t)(v >> 32)), flip);
#pragma GCC unroll 2
    for (int j = 0; j < NP; j++) acc[i][j] = dpbusd(dpbusd(acc[i][j], a0, bl[j]), a1, bh[j]);
  }
}

/* One body per row count MR (a constant once inlined): a decode step's
 * single row costs one row's work, not six. W4: 4-bit weights, a pair of
 * k steps per 64-byte load (w4_pair), so the sums are 16x and the group's
 * start too, shifted back (exactly: every term is a multiple of 16) before
 * the float part. */
static inline __attribute__((always_inline)) void ukr(const k_qtile *t, const int MR, const int NP,
                                                      const bool W4) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k, K4 = K / 4 * 4;
  const int8_t *a[MAXR];
  __m512i zu[MAXR];
  for (int i = 0; i < MR; i++) {
    a[i] = t->a + i * t->sa;
    zu[i] = _mm512_set1_epi32(k_qzr(p, t->qp[i].zero_point) + 128);
  }
  int64_t panel[NPMAX];
  const int8_t *w[NPMAX];
  for (int j = 0; j < NP; j++) {
    panel[j] = t->panel + (j < t->np ? j : 0);
    w[j] = k_qw_panel(p, panel[j]);
  }
  const __m512i flip = _mm512_set1_epi32((int)0x80808080u);
  __m512 f[MAXR][NPMAX];
#pragma GCC unroll 2
  for (int j = 0; j < NP; j++) {
    const __m512 ksum = _mm512_loadu_ps(k_qcol(p, panel[j]) + K_QNR);
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
      f[i][j] = _mm512_mul_ps(ksum, _mm512_set1_ps((float)(t->qp[i].zero_point + p->zoff)));
  }
  for (int64_t g = 0; g < p->groups; g++) {
    const int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K, k1f = k1 < K4 ? k1 : K4;
    __m512i acc[MAXR][NPMAX];
    __m512i cs[NPMAX];
#pragma GCC unroll 2
    for (int j = 0; j < NP; j++) cs[j] = _mm512_loadu_si512(k_qcsum(p, panel[j]) + g * K_QNR);
    if (t->c8 || p->blockwise) {
      /* static int8 (one zero point for every row) or blockwise (zr is
       * -zoff for every row): one start per panel */
#pragma GCC unroll 2
      for (int j = 0; j < NP; j++) {
        const __m512i z0 = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(zu[0], cs[j]));
#pragma GCC unroll 8
        for (int i = 0; i < MR; i++) acc[i][j] = z0;
      }
    } else {
#pragma GCC unroll 8
      for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int j = 0; j < NP; j++)
          acc[i][j] = _mm512_sub_epi32(_mm512_setzero_si512(), _mm512_mullo_epi32(zu[i], cs[j]));
    }
    int64_t k = k0;
    if (W4) {
#pragma GCC unroll 8
      for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int j = 0; j < NP; j++) acc[i][j] = _mm512_slli_epi32(acc[i][j], 4);
      for (; k + 8 <= k1; k += 8) w4_pair(acc, a, w, k, K, MR, NP, false);
      if (k < k1) w4_pair(acc, a, w, k, K, MR, NP, true);
#pragma GCC unroll 8
      for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
        for (int j = 0; j < NP; j++) acc[i][j] = _mm512_srai_epi32(acc[i][j], 4);
      k = k1;
    }
    for (; k < k1f; k += 4) {
      __m512i b[NPMAX];
#pragma GCC unroll 2
      for (int j = 0; j < NP; j++) b[j] = _mm512_load_si512((const void *)(w[j] + k * K_QNR));
#pragma GCC unroll 8
      for (int i = 0; i < MR; i++) {
        int32_t v;
        memcpy(&v, a[i] + k, 4);
        __m512i av = _mm512_xor_si512(_mm512_set1_epi32(v), flip);
#pragma GCC unroll 2
        for (int j = 0; j < NP; j++) acc[i][j] = dpbusd(acc[i][j], av, b[j]);
      }
    }
    if (k < k1) {
      /* the row's last 1..3 bytes: zero-padded (the padded weights are 0) */
      __m512i b[NPMAX];
      for (int j = 0; j < NP; j++) b[j] = _mm512_load_si512((const void *)(w[j] + k * K_QNR));
      /* a masked load (no fault past the row; a call to memcpy per row
       * cost the 27-byte rows of a 3-channel 3x3 stem a third of its time) */
      const __mmask64 tm = (__mmask64)((1ull << (K - k)) - 1);
      for (int i = 0; i < MR; i++) {
        __m512i av = _mm512_xor_si512(
            _mm512_broadcastd_epi32(_mm512_castsi512_si128(_mm512_maskz_loadu_epi8(tm, a[i] + k))), flip);
        for (int j = 0; j < NP; j++) acc[i][j] = dpbusd(acc[i][j], av, b[j]);
      }
    }
    __m512 sc[NPMAX];
#pragma GCC unroll 2
    for (int j = 0; j < NP; j++) sc[j] = _mm512_loadu_ps(k_qscale(p, panel[j]) + g * K_QNR);
#pragma GCC unroll 8
    for (int i = 0; i < MR; i++)
#pragma GCC unroll 2
      for (int j = 0; j < NP; j++) f[i][j] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(acc[i][j]), sc[j], f[i][j]);
  }
  const __m512 lo = _mm512_set1_ps(t->lo), hi = _mm512_set1_ps(t->hi);
  if (t->c8) {
    /* the int8 epilogue in registers (k_qstore_s8's arithmetic, and
     * k_requant_s8's after it when rq is set) */
    const k_requant_s8_params *rq = t->rq;
    const __m512 rs = _mm512_set1_ps(rq ? rq->scale : 1.0f), ri = _mm512_set1_ps(rq ? rq->inv : 1.0f),
                 rlo = _mm512_set1_ps(rq ? (float)(-128 - rq->zout) : 0.0f),
                 rhi = _mm512_set1_ps(rq ? (float)(127 - rq->zout) : 0.0f);
    const __m512i z = _mm512_set1_epi32(rq ? rq->zout : t->zp8);
    for (int j = 0; j < NP && j < t->np; j++) {
      const __m512 bias = _mm512_loadu_ps(k_qbias(p, panel[j])), cs = _mm512_loadu_ps(k_qcol(p, panel[j]));
      const int cols = j == t->np - 1 ? t->nc : K_QNR;
      const __mmask16 m = (__mmask16)((1u << cols) - 1);
      for (int i = 0; i < MR; i++) {
        __m512 v = _mm512_add_ps(_mm512_mul_ps(f[i][j], cs), bias); /* row scale 1 */
        if (t->clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
        __m512i q = _mm512_cvtps_epi32(v); /* the default rounding: half to even */
        if (rq) {
          __m512 u = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(q), rs), ri);
          q = _mm512_cvtps_epi32(_mm512_min_ps(_mm512_max_ps(u, rlo), rhi));
        }
        _mm512_mask_cvtsepi32_storeu_epi8(t->c8 + i * t->sc8 + j * K_QNR, m, _mm512_add_epi32(q, z));
      }
    }
    return;
  }
  for (int j = 0; j < NP && j < t->np; j++) {
    const __m512 bias = _mm512_loadu_ps(k_qbias(p, panel[j])), cs = _mm512_loadu_ps(k_qcol(p, panel[j]));
    const int cols = j == t->np - 1 ? t->nc : K_QNR;
    const __mmask16 m = (__mmask16)((1u << cols) - 1);
    for (int i = 0; i < MR; i++) {
      __m512 v = _mm512_fmadd_ps(_mm512_mul_ps(f[i][j], _mm512_set1_ps(t->qp[i].scale)), cs, bias);
      if (t->clamp) v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
      _mm512_mask_storeu_ps(t->c + i * t->sc + j * K_QNR, m, v);
    }
  }
}

static inline __attribute__((always_inline)) void by_rows(const k_qtile *t, const int NP, const bool W4) {
  switch (t->mr) {
    case 1: ukr(t, 1, NP, W4); break;
    case 2: ukr(t, 2, NP, W4); break;
    case 3: ukr(t, 3, NP, W4); break;
    case 4: ukr(t, 4, NP, W4); break;
    case 5: ukr(t, 5, NP, W4); break;
    default: ukr(t, MAXR, NP, W4);
  }
}

static void ukr_w(const k_qtile *t, const bool W4) {
  /* one panel (N = 16, or an odd count's last): half the sums, not both
   * panels' with the second thrown away */
  if (t->np == 1) by_rows(t, 1, W4);
  else by_rows(t, 2, W4);
}

void k_qukr_avx512vnni(const k_qtile *t) {
  if (t->p->wbits == 4) ukr_w(t, true);
  else ukr_w(t, false);
}

/* qd8 rows (see qgemm.h): min/max_ps return their second operand when the
 * first is NaN, so NaN neither widens the range nor leaves it */
void k_qminmax_avx512(int64_t K, const float *x, float *lo, float *hi) {
  __m512 l = _mm512_setzero_ps(), h = _mm512_setzero_ps();
  int64_t k = 0;
  for (; k + 16 <= K; k += 16) {
    __m512 v = _mm512_loadu_ps(x + k);
    l = _mm512_min_ps(v, l);
    h = _mm512_max_ps(v, h);
  }
  if (k < K) {
    __m512 v = _mm512_maskz_loadu_ps((__mmask16)((1u << (K - k)) - 1), x + k);
    l = _mm512_min_ps(v, l);
    h = _mm512_max_ps(v, h);
  }
  *lo = _mm512_reduce_min_ps(l);
  *hi = _mm512_reduce_max_ps(h);
}

void k_qconvert_avx512(int64_t K, const float *x, float inv, int32_t zp, int8_t *q) {
  const __m512 s = _mm512_set1_ps(inv), zmin = _mm512_set1_ps((float)(-128 - zp)),
               zmax = _mm512_set1_ps((float)(127 - zp));
  const __m512i z = _mm512_set1_epi32(zp);
  for (int64_t k = 0; k < K; k += 16) {
    const __mmask16 m = K - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (K - k)) - 1);
    __m512 v = _mm512_mul_ps(_mm512_maskz_loadu_ps(m, x + k), s);
    v = _mm512_min_ps(_mm512_max_ps(v, zmin), zmax);
    /* the default rounding mode: half to even, as rintf */
    __m512i i = _mm512_add_epi32(_mm512_cvtps_epi32(v), z);
    _mm512_mask_cvtsepi32_storeu_epi8(q + k, m, i);
  }
}

/* n a multiple of 64 (see k_requant_s8): the converts' float operations,
 * rounding in the default mode (half to even, as nearbyintf) */
void k_requant_s8_avx512(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout) {
  const __m512i zi = _mm512_set1_epi32(zin), zo = _mm512_set1_epi32(zout);
  const __m512 s = _mm512_set1_ps(scale), r = _mm512_set1_ps(inv), lo = _mm512_set1_ps((float)(-128 - zout)),
               hi = _mm512_set1_ps((float)(127 - zout));
  for (size_t i = 0; i < n; i += 16) {
    __m512i q =
        _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(y + i))), zi);
    __m512 v = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(q), s), r);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm_storeu_si128((__m128i *)(void *)(y + i),
                     _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v), zo)));
  }
}
/* n a multiple of 16 (see k_quantize_s8): NaN lanes zeroed, so they land on zp */
void k_quantize_s8_avx512(const float *x, int8_t *y, size_t n, float inv, int32_t zp) {
  const __m512 s = _mm512_set1_ps(inv), lo = _mm512_set1_ps((float)(-128 - zp)),
               hi = _mm512_set1_ps((float)(127 - zp));
  const __m512i z = _mm512_set1_epi32(zp);
  for (size_t i = 0; i < n; i += 16) {
    __m512 v = _mm512_mul_ps(_mm512_loadu_ps(x + i), s);
    v = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), v);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    _mm_storeu_si128((__m128i *)(void *)(y + i),
                     _mm512_cvtsepi32_epi8(_mm512_add_epi32(_mm512_cvtps_epi32(v), z)));
  }
}

void k_dequantize_s8_avx512(const int8_t *x, float *y, size_t n, int32_t zp, float scale) {
  const __m512i z = _mm512_set1_epi32(zp);
  const __m512 s = _mm512_set1_ps(scale);
  for (size_t i = 0; i < n; i += 16) {
    __m512i q =
        _mm512_sub_epi32(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(const void *)(x + i))), z);
    _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_cvtepi32_ps(q), s));
  }
}

/* its own target: the rest of this file runs on AVX-512 VNNI CPUs without
 * VBMI (Cascade Lake) */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void k_qtable_s8_avx512vbmi(int8_t *y, size_t n,
                                                                                   const int8_t *table) {
  /* bytes 0..127 index the table's upper half, the negative ones its lower */
  const __m512i t0 = _mm512_loadu_si512(table + 128), t1 = _mm512_loadu_si512(table + 192),
                t2 = _mm512_loadu_si512(table), t3 = _mm512_loadu_si512(table + 64);
  for (size_t i = 0; i < n; i += 64) {
    const __mmask64 m = n - i >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << (n - i)) - 1);
    const __m512i x = _mm512_maskz_loadu_epi8(m, y + i);
    const __m512i pos = _mm512_permutex2var_epi8(t0, x, t1), neg = _mm512_permutex2var_epi8(t2, x, t3);
    _mm512_mask_storeu_epi8(y + i, m, _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), pos, neg));
  }
}
#endif
