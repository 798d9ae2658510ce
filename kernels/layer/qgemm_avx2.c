/* The int8 product's AVX2 microkernel (see qgemm.h): up to 16 rows x 1
 * panel (16 columns). Without VNNI, bytes widen to int16 and vpmaddwd sums
 * pairs exactly (vpmaddubsw would saturate): each register holds 4 columns
 * x 2 partial sums, folded together at the end of a group. A tile of more
 * than two rows widens its panel's weights and its rows once per chunk of
 * k into L1 buffers that every pair of rows then reads (widening in the
 * loop took as many shuffles as there were multiplies), the pairs' sums
 * kept on the stack between chunks. On Zen 3 the loop then runs at about
 * one vpmaddwd + vpaddd pair a cycle (16 multiply-adds), as the old one
 * did on large products: the gain is on short K and in the epilogue. */
#include "qgemm.h"

/* built with its ISA flags on x86-64 only (see CMakeLists.txt) */
#if defined(__AVX2__)
#include <immintrin.h>
#include <string.h>

#include "qgemm_ymm.h"

#define MR 16
/* k per chunk of widened weights: 16 columns x KC int16 = 8 KB */
#define KC 256

/* 4 bytes of a row as int16, repeated: a broadcast load (no shuffle) then
 * vpmovsxbw (what memcpy and _mm_set1_epi32 made was vmovd, vpshufd and
 * vpmovsxbw). The bytes go through a float copy, not a float pointer: the
 * row is not 4-byte aligned (_mm_broadcast_ss dereferences its float *). */
static inline __m256i bcast4(const int8_t *a) {
  float f;
  memcpy(&f, a, sizeof f);
  return _mm256_cvtepi8_epi16(_mm_castps_si128(_mm_set1_ps(f)));
}

/* Rows (1 or 2) of a tile over 4-k steps at k .. kf (the sums in acc, rows x
 * 4 registers, are read and written back). Wide: activations (a16, rows of
 * int16 from the chunk's first k) and weights (wb) already widened, k from
 * 0, zero-padded past K; the broadcast is then a load alone. Otherwise
 * int8 rows (a8) and the packed panel (w) at k, then at ke the row's last
 * 1..3 bytes, zero-padded (the padded weights are 0). */
static inline __attribute__((always_inline)) void run(__m256i (*acc)[4], const int rows,
                                                      const int16_t *const *a16, const int16_t *wb,
                                                      const int8_t *const *a8, const int8_t *w, int64_t k,
                                                      int64_t kf, int64_t ke, int64_t K, const bool wide) {
  __m256i s[2][4];
#pragma GCC unroll 2
  for (int i = 0; i < rows; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) s[i][j] = acc[i][j];
  for (; k < kf; k += 4) {
    __m256i av[2];
#pragma GCC unroll 2
    for (int i = 0; i < rows; i++) {
      if (wide) {
        int64_t v;
        memcpy(&v, a16[i] + k, 8);
        av[i] = _mm256_set1_epi64x(v);
      } else {
        av[i] = bcast4(a8[i] + k);
      }
    }
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) {
      const __m256i b =
          wide
              ? _mm256_load_si256((const __m256i *)(const void *)(wb + k * K_QNR + j * 16))
              : _mm256_cvtepi8_epi16(_mm_load_si128((const __m128i *)(const void *)(w + k * K_QNR + j * 16)));
#pragma GCC unroll 2
      for (int i = 0; i < rows; i++) s[i][j] = _mm256_add_epi32(s[i][j], _mm256_madd_epi16(b, av[i]));
    }
  }
  if (!wide && k < ke) {
    __m256i av[2];
    for (int i = 0; i < rows; i++) av[i] = _mm256_cvtepi8_epi16(_mm_set1_epi32(k_qload_tail(a8[i], k, K)));
    for (int j = 0; j < 4; j++) {
      const __m256i b =
          _mm256_cvtepi8_epi16(_mm_load_si128((const __m128i *)(const void *)(w + k * K_QNR + j * 16)));
      for (int i = 0; i < rows; i++) s[i][j] = _mm256_add_epi32(s[i][j], _mm256_madd_epi16(b, av[i]));
    }
  }
#pragma GCC unroll 2
  for (int i = 0; i < rows; i++)
#pragma GCC unroll 4
    for (int j = 0; j < 4; j++) acc[i][j] = s[i][j];
}

/* Bytes [k, ke) of a row of K as int16 into d, whole 16s, zero past K
 * (reads stay inside the row) */
static void widen_row(const int8_t *a, int64_t k, int64_t ke, int64_t K, int16_t *d) {
  int64_t o = 0;
  for (; k + o + 16 <= K && o < ke - k; o += 16)
    _mm256_storeu_si256((__m256i *)(void *)(d + o),
                        _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(a + k + o))));
  if (o < ke - k) {
    int8_t tmp[16] = {0};
    memcpy(tmp, a + k + o, (size_t)(K - k - o < 16 ? K - k - o : 16));
    _mm256_storeu_si256((__m256i *)(void *)(d + o),
                        _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(void *)tmp)));
  }
}

static inline __attribute__((always_inline)) void body_k_qukr_avx2(const k_qtile *t, const bool wide) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k, K4 = K / 4 * 4;
  const int mr = t->mr;
  const int8_t *a[MR];
  for (int i = 0; i < mr; i++) a[i] = t->a + i * t->sa;
  const int8_t *w = k_qw_panel(p, t->panel);
  const int32_t *csum = k_qcsum(p, t->panel);
  const float *scale = k_qscale(p, t->panel);
  /* the chunk widened: weights (8 KB) and the tile's rows (8 KB; widen_row
   * stores whole 16s, which KC is) */
  _Alignas(32) int16_t wb[KC * K_QNR];
  _Alignas(32) int16_t ab[MR * KC];
  const int16_t *a16[MR];
  for (int i = 0; i < mr; i++) a16[i] = ab + i * KC;
  __m256i acc[MR][4];
  __m256 f[MR][2];
  k_qf_init_ymm(t, f);
  for (int64_t g = 0; g < p->groups; g++) {
    const int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K;
    for (int i = 0; i < mr; i++)
      for (int j = 0; j < 4; j++) acc[i][j] = _mm256_setzero_si256();
    /* chunks start at multiples of 4 (glen and KC are) */
    for (int64_t kc = k0; kc < k1; kc += wide ? KC : k1 - k0) {
      const int64_t ke = wide && kc + KC < k1 ? kc + KC : k1, kf = ke < K4 ? ke : K4;
      int i = 0;
      if (wide) {
        const int64_t n4 = (ke + 3) / 4 * 4 - kc;
        for (int64_t b = 0; b < n4 * K_QNR; b += 16)
          _mm256_store_si256(
              (__m256i *)(void *)(wb + b),
              _mm256_cvtepi8_epi16(_mm_load_si128((const __m128i *)(const void *)(w + kc * K_QNR + b))));
        for (int r = 0; r < mr; r++) widen_row(a[r], kc, ke, K, ab + r * KC);
        for (; i + 2 <= mr; i += 2) run(acc + i, 2, a16 + i, wb, NULL, NULL, 0, n4, n4, K, true);
        if (i < mr) run(acc + i, 1, a16 + i, wb, NULL, NULL, 0, n4, n4, K, true);
      } else {
        for (; i + 2 <= mr; i += 2) run(acc + i, 2, NULL, NULL, a + i, w, kc, kf, ke, K, false);
        if (i < mr) run(acc + i, 1, NULL, NULL, a + i, w, kc, kf, ke, K, false);
      }
    }
    const __m256i cs0 = _mm256_loadu_si256((const __m256i *)(const void *)(csum + g * K_QNR));
    const __m256i cs1 = _mm256_loadu_si256((const __m256i *)(const void *)(csum + g * K_QNR + 8));
    const __m256 sc0 = _mm256_loadu_ps(scale + g * K_QNR), sc1 = _mm256_loadu_ps(scale + g * K_QNR + 8);
    for (int i = 0; i < mr; i++) {
      /* 4 registers of [c, c] pairs (columns 4j .. 4j+3) -> 2 of 8 columns in order */
      __m256i s0 = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[i][0], acc[i][1]), 0xD8);
      __m256i s1 = _mm256_permute4x64_epi64(_mm256_hadd_epi32(acc[i][2], acc[i][3]), 0xD8);
      const __m256i za = _mm256_set1_epi32(k_qzr(p, t->qp[i].zero_point));
      s0 = _mm256_sub_epi32(s0, _mm256_mullo_epi32(za, cs0));
      s1 = _mm256_sub_epi32(s1, _mm256_mullo_epi32(za, cs1));
      f[i][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s0), sc0, f[i][0]);
      f[i][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s1), sc1, f[i][1]);
    }
  }
  k_qstore_ymm(t, f);
}

void k_qukr_avx2(const k_qtile *t) {
  /* one or two rows (a decode step's) use each weight once: widened in
   * the loop, no buffer */
  if (t->mr <= 2) body_k_qukr_avx2(t, false);
  else body_k_qukr_avx2(t, true);
}

/* qd8 rows (see qgemm.h): min/max_ps return their second operand when the
 * first is NaN, so NaN neither widens the range nor leaves it */
void k_qminmax_avx2(int64_t K, const float *x, float *lo, float *hi) {
  __m256 l = _mm256_setzero_ps(), h = _mm256_setzero_ps();
  int64_t k = 0;
  for (; k + 8 <= K; k += 8) {
    __m256 v = _mm256_loadu_ps(x + k);
    l = _mm256_min_ps(v, l);
    h = _mm256_max_ps(v, h);
  }
  float lb[8], hb[8];
  _mm256_storeu_ps(lb, l);
  _mm256_storeu_ps(hb, h);
  float a = lb[0], b = hb[0];
  for (int i = 1; i < 8; i++) {
    a = lb[i] < a ? lb[i] : a;
    b = hb[i] > b ? hb[i] : b;
  }
  for (; k < K; k++) {
    a = x[k] < a ? x[k] : a;
    b = x[k] > b ? x[k] : b;
  }
  *lo = a, *hi = b;
}

void k_qconvert_avx2(int64_t K, const float *x, float inv, int32_t zp, int8_t *q) {
  const __m256 s = _mm256_set1_ps(inv), zmin = _mm256_set1_ps((float)(-128 - zp)),
               zmax = _mm256_set1_ps((float)(127 - zp));
  const __m256i z = _mm256_set1_epi32(zp);
  int64_t k = 0;
  for (; k + 8 <= K; k += 8) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + k), s);
    v = _mm256_min_ps(_mm256_max_ps(v, zmin), zmax);
    /* the default rounding mode: half to even, as rintf */
    __m256i i = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64((__m128i *)(void *)(q + k), _mm_packs_epi16(w, w));
  }
  for (; k < K; k++) {
    float v = x[k] * inv;
    v = v > (float)(-128 - zp) ? v : (float)(-128 - zp);
    v = v < (float)(127 - zp) ? v : (float)(127 - zp);
    q[k] = (int8_t)(_mm_cvtss_si32(_mm_set_ss(v)) + zp);
  }
}

/* n a multiple of 32 (see k_requant_s8), as the AVX-512 body */
void k_requant_s8_avx2(int8_t *y, size_t n, int32_t zin, float scale, float inv, int32_t zout) {
  const __m256i zi = _mm256_set1_epi32(zin), zo = _mm256_set1_epi32(zout);
  const __m256 s = _mm256_set1_ps(scale), r = _mm256_set1_ps(inv), lo = _mm256_set1_ps((float)(-128 - zout)),
               hi = _mm256_set1_ps((float)(127 - zout));
  for (size_t i = 0; i < n; i += 8) {
    __m256i q =
        _mm256_sub_epi32(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(y + i))), zi);
    __m256 v = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), s), r);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    __m256i t = _mm256_add_epi32(_mm256_cvtps_epi32(v), zo);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    _mm_storel_epi64((__m128i *)(void *)(y + i), _mm_packs_epi16(w, w));
  }
}
/* n a multiple of 8 (see k_quantize_s8), as the AVX-512 body */
void k_quantize_s8_avx2(const float *x, int8_t *y, size_t n, float inv, int32_t zp) {
  const __m256 s = _mm256_set1_ps(inv), lo = _mm256_set1_ps((float)(-128 - zp)),
               hi = _mm256_set1_ps((float)(127 - zp));
  const __m256i z = _mm256_set1_epi32(zp);
  for (size_t i = 0; i < n; i += 8) {
    __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + i), s);
    v = _mm256_and_ps(v, _mm256_cmp_ps(v, v, _CMP_ORD_Q));
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);
    __m256i t = _mm256_add_epi32(_mm256_cvtps_epi32(v), z);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
    _mm_storel_epi64((__m128i *)(void *)(y + i), _mm_packs_epi16(w, w));
  }
}

void k_dequantize_s8_avx2(const int8_t *x, float *y, size_t n, int32_t zp, float scale) {
  const __m256i z = _mm256_set1_epi32(zp);
  const __m256 s = _mm256_set1_ps(scale);
  for (size_t i = 0; i < n; i += 8) {
    __m256i q =
        _mm256_sub_epi32(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(x + i))), z);
    _mm256_storeu_ps(y + i, _mm256_mul_ps(_mm256_cvtepi32_ps(q), s));
  }
}
#endif
