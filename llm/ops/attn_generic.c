/* Attention's vector loops for any CPU: four independent partial sums the
 * compiler keeps in one SSE register. */
#include "llm_ops.h"

float llm_dot_generic(const float *a, const float *b, int64_t n) {
  float acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    for (int l = 0; l < 4; l++) acc[l] += a[i + l] * b[i + l];
  float s = (acc[0] + acc[2]) + (acc[1] + acc[3]);
  for (; i < n; i++) s += a[i] * b[i];
  return s;
}

void llm_axpy_generic(float *y, const float *x, float a, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] += a * x[i];
}

const llm_vec *llm_vec_get(void) {
  static const llm_vec generic = {llm_dot_generic, llm_axpy_generic};
#if defined(__x86_64__)
  static const llm_vec avx2 = {llm_dot_avx2, llm_axpy_avx2};
  if (k_isa_get() >= K_ISA_AVX2) return &avx2;
#endif
  return &generic;
}
