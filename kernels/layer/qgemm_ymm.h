/* The epilogue the two 256-bit int8 microkernels share (qgemm_avx2.c,
 * qgemm_avxvnni.c, each built with its own ISA flags): rows of two
 * 8-column float accumulators times the row's activation scale, plus the
 * packed bias, clamped, stored (a partial panel through a buffer). */
#ifndef PTERUN_QGEMM_YMM_H
#define PTERUN_QGEMM_YMM_H

#include <immintrin.h>
#include <string.h>

#include "qgemm.h"

static inline void k_qstore_ymm(const k_qtile *t, __m256 (*f)[2]) {
  const k_qgemm_packed *p = t->p;
  const float *bias = k_qbias(p, t->panel);
  const __m256 b0 = _mm256_loadu_ps(bias), b1 = _mm256_loadu_ps(bias + 8);
  const __m256 lo = _mm256_set1_ps(t->lo), hi = _mm256_set1_ps(t->hi);
  for (int i = 0; i < t->mr; i++) {
    const __m256 sa = _mm256_set1_ps(t->qp[i].scale);
    __m256 v0 = _mm256_fmadd_ps(f[i][0], sa, b0), v1 = _mm256_fmadd_ps(f[i][1], sa, b1);
    if (t->clamp) {
      v0 = _mm256_min_ps(_mm256_max_ps(v0, lo), hi);
      v1 = _mm256_min_ps(_mm256_max_ps(v1, lo), hi);
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
