/* Internal to libpterun_llm: the custom operators' table entries and the
 * per-instruction-set inner loops of attention. */
#ifndef PTERUN_LLM_OPS_H
#define PTERUN_LLM_OPS_H

#include <pterun/llm.h>

#include "klayer.h"

/* Each op file ends with one or more of these, each on one line (CMake
 * collects them into register.c's table). */
#define PTE_LLM_KERNEL(fn, opname, accepts, scratch) \
  const pte_kernel pte_llm_kernel_##fn = {opname, fn, accepts, scratch};

/* The vector loops of attention, built once per instruction set
 * (attn_generic.c, attn_avx2.c) and chosen at run time. */
typedef struct llm_vec {
  float (*dot)(const float *a, const float *b, int64_t n);
  /* y[0..n) += a * x[0..n) */
  void (*axpy)(float *y, const float *x, float a, int64_t n);
} llm_vec;

float llm_dot_generic(const float *a, const float *b, int64_t n);
void llm_axpy_generic(float *y, const float *x, float a, int64_t n);
float llm_dot_avx2(const float *a, const float *b, int64_t n);
void llm_axpy_avx2(float *y, const float *x, float a, int64_t n);

const llm_vec *llm_vec_get(void);

#endif
