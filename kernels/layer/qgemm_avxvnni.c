/* The int8 product's AVX-VNNI microkernel (see qgemm.h), for AVX2 CPUs
 * with the VEX-encoded vpdpbusd (Alder Lake and later) but no AVX-512: 3
 * rows x 1 panel (two registers of 8 columns), all sums in registers.
 * vpdpbusd multiplies unsigned by signed bytes, so the activations are
 * flipped to unsigned (x + 128) and each group's sums start at -(zr + 128)
 * * colsum, as in the AVX-512 kernel. */
#include "qgemm.h"

/* built with its ISA flags on x86-64 only (see CMakeLists.txt) */
#if defined(__AVXVNNI__)
#include <immintrin.h>

#include "qgemm_ymm.h"

#define MR 3

/* acc += a (unsigned bytes) . b (signed bytes), in place (GCC copies the
 * accumulators around the intrinsic, as in qgemm_avx512.c). */
static inline __m256i dpbusd(__m256i acc, __m256i a, __m256i b) {
#if defined(__GNUC__) && !defined(__clang__)
  __asm__("%{vex%} vpdpbusd %2, %1, %0" : "+x"(acc) : "x"(a), "x"(b));
  return acc;
#else
  return _mm256_dpbusd_avx_epi32(acc, a, b);
#endif
}

static inline __attribute__((always_inline)) void body_k_qukr_avxvnni(const k_qtile *t, const int mr) {
  const k_qgemm_packed *p = t->p;
  const int64_t K = p->k, K4 = K / 4 * 4;
  const int8_t *a[MR];
  __m256i zu[MR];
  for (int i = 0; i < mr; i++) {
    a[i] = t->a + i * t->sa;
    zu[i] = _mm256_set1_epi32(k_qzr(p, t->qp[i].zero_point) + 128);
  }
  const int8_t *w = k_qw_panel(p, t->panel);
  const int32_t *csum = k_qcsum(p, t->panel);
  const float *scale = k_qscale(p, t->panel);
  const __m256i flip = _mm256_set1_epi32((int)0x80808080u);
  __m256 f[MR][2];
  k_qf_init_ymm(t, f);
  for (int64_t g = 0; g < p->groups; g++) {
    const int64_t k0 = g * p->glen, k1 = k0 + p->glen < K ? k0 + p->glen : K, k1f = k1 < K4 ? k1 : K4;
    const __m256i cs0 = _mm256_loadu_si256((const __m256i *)(const void *)(csum + g * K_QNR));
    const __m256i cs1 = _mm256_loadu_si256((const __m256i *)(const void *)(csum + g * K_QNR + 8));
    __m256i acc[MR][2];
#pragma GCC unroll 3
    for (int i = 0; i < mr; i++) {
      acc[i][0] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(zu[i], cs0));
      acc[i][1] = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_mullo_epi32(zu[i], cs1));
    }
    int64_t k = k0;
    for (; k < k1f; k += 4) {
      /* the panel's 4 k x 16 columns: columns 0-7 then 8-15 */
      const __m256i b0 = _mm256_load_si256((const __m256i *)(const void *)(w + k * K_QNR));
      const __m256i b1 = _mm256_load_si256((const __m256i *)(const void *)(w + k * K_QNR + 32));
#pragma GCC unroll 3
      for (int i = 0; i < mr; i++) {
        int32_t v;
        memcpy(&v, a[i] + k, 4);
        const __m256i av = _mm256_xor_si256(_mm256_set1_epi32(v), flip);
        acc[i][0] = dpbusd(acc[i][0], av, b0);
        acc[i][1] = dpbusd(acc[i][1], av, b1);
      }
    }
    if (k < k1) {
      /* the row's last 1..3 bytes, zero-padded (the padded weights are 0) */
      const __m256i b0 = _mm256_load_si256((const __m256i *)(const void *)(w + k * K_QNR));
      const __m256i b1 = _mm256_load_si256((const __m256i *)(const void *)(w + k * K_QNR + 32));
      for (int i = 0; i < mr; i++) {
        const __m256i av = _mm256_xor_si256(_mm256_set1_epi32(k_qload_tail(a[i], k, K)), flip);
        acc[i][0] = dpbusd(acc[i][0], av, b0);
        acc[i][1] = dpbusd(acc[i][1], av, b1);
      }
    }
    const __m256 sc0 = _mm256_loadu_ps(scale + g * K_QNR), sc1 = _mm256_loadu_ps(scale + g * K_QNR + 8);
#pragma GCC unroll 3
    for (int i = 0; i < mr; i++) {
      f[i][0] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[i][0]), sc0, f[i][0]);
      f[i][1] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(acc[i][1]), sc1, f[i][1]);
    }
  }
  k_qstore_ymm(t, f);
}

void k_qukr_avxvnni(const k_qtile *t) {
  /* one body per row count: a tile of fewer rows (a decode step's one)
   * computes only its rows */
  switch (t->mr) {
    case 1: body_k_qukr_avxvnni(t, 1); break;
    case 2: body_k_qukr_avxvnni(t, 2); break;
    default: body_k_qukr_avxvnni(t, MR);
  }
}
#endif
