/* The float start and epilogue the two 256-bit int8 microkernels share
 * (qgemm_avx2.c, qgemm_avxvnni.c, each built with its own ISA flags):
 * rows of two 8-column float accumulators, started at ksum * (zp + zoff),
 * at the end times the row's activation scale, times the column scale plus
 * the packed bias (qgemm.h has why), clamped, stored (a partial panel
 * through a buffer) as floats or, for static int8 (k_qtile.c8, the AVX2
 * kernel), as int8. */
#ifndef PTERUN_QGEMM_YMM_H
#define PTERUN_QGEMM_YMM_H

#include <immintrin.h>
#include <string.h>

#include "qgemm.h"

/* Static int8 (t->c8): k_qstore_s8's arithmetic (and k_requant_s8's after
 * it when rq is set) on the clamped floats, in registers: the row scale is
 * 1, so the product above is exact and the floats those of the float path. */
static inline void k_qstore8_ymm(const k_qtile *t, int i, __m256 v0, __m256 v1) {
  const k_requant_s8_params *rq = t->rq;
  __m256i q0 = _mm256_cvtps_epi32(v0), q1 = _mm256_cvtps_epi32(v1); /* the default rounding: half to even */
  if (rq) {
    const __m256 rs = _mm256_set1_ps(rq->scale), ri = _mm256_set1_ps(rq->inv),
                 rlo = _mm256_set1_ps((float)(-128 - rq->zout)),
                 rhi = _mm256_set1_ps((float)(127 - rq->zout));
    v0 = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q0), rs), ri);
    v1 = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q1), rs), ri);
    q0 = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v0, rlo), rhi));
    q1 = _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(v1, rlo), rhi));
  }
  const __m256i z = _mm256_set1_epi32(rq ? rq->zout : t->zp8);
  /* in range already: the saturating packs change nothing */
  const __m256i w =
      _mm256_permute4x64_epi64(_mm256_packs_epi32(_mm256_add_epi32(q0, z), _mm256_add_epi32(q1, z)), 0xD8);
  const __m128i b = _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
  int8_t *c = t->c8 + i * t->sc8;
  if (t->nc == K_QNR) {
    _mm_storeu_si128((__m128i *)(void *)c, b);
  } else {
    int8_t tmp[K_QNR];
    _mm_storeu_si128((__m128i *)(void *)tmp, b);
    memcpy(c, tmp, (size_t)t->nc);
  }
}

static inline void k_qf_init_ymm(const k_qtile *t, __m256 (*f)[2]) {
  const float *ksum = k_qcol(t->p, t->panel) + K_QNR;
  const __m256 k0 = _mm256_loadu_ps(ksum), k1 = _mm256_loadu_ps(ksum + 8);
  for (int i = 0; i < t->mr; i++) {
    const __m256 z = _mm256_set1_ps((float)(t->qp[i].zero_point + t->p->zoff));
    f[i][0] = _mm256_mul_ps(k0, z), f[i][1] = _mm256_mul_ps(k1, z);
  }
}

static inline void k_qstore_ymm(const k_qtile *t, __m256 (*f)[2]) {
  const k_qgemm_packed *p = t->p;
  const float *bias = k_qbias(p, t->panel), *col = k_qcol(p, t->panel);
  const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
  const __m256 s0 = _mm256_loadu_ps(col), s1 = _mm256_loadu_ps(col + 8);
  const __m256 lo = _mm256_set1_ps(t->lo), hi = _mm256_set1_ps(t->hi);
  for (int i = 0; i < t->mr; i++) {
    __m256 v0, v1;
    if (t->c8) { /* row scale 1 */
      v0 = _mm256_add_ps(_mm256_mul_ps(f[i][0], s0), b0), v1 = _mm256_add_ps(_mm256_mul_ps(f[i][1], s1), b1);
    } else {
      const __m256 sa = _mm256_set1_ps(t->qp[i].scale);
      v0 = _mm256_fmadd_ps(_mm256_mul_ps(f[i][0], sa), s0, b0);
      v1 = _mm256_fmadd_ps(_mm256_mul_ps(f[i][1], sa), s1, b1);
    }
    if (t->clamp) {
      v0 = _mm256_min_ps(_mm256_max_ps(v0, lo), hi);
      v1 = _mm256_min_ps(_mm256_max_ps(v1, lo), hi);
    }
    if (t->c8) {
      k_qstore8_ymm(t, i, v0, v1);
      continue;
    }
    float *c = t->c + i * t->sc;
    if (t->nc == K_QNR) {
      _mm256_storeu_ps(c, v0);
      _mm256_storeu_ps(c + 8, v1);
    } else {
      float tmp[K_QNR];
      _mm256_storeu_ps(tmp, v0);
      _mm256_storeu_ps(tmp + 8, v1);
      memcpy(c, tmp, sizeof(float) * (size_t)t->nc);
    }
  }
}

#endif
