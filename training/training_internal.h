/* Shared between the training library's files (hidden symbols). */
#ifndef PTERUN_TRAINING_INTERNAL_H
#define PTERUN_TRAINING_INTERNAL_H

#include <pterun/training.h>

/* Element i of a float tensor as double, and stored back rounded to its
 * dtype: one code path for float32 and float64. */
static inline double tr_get(const pte_tensor *t, int64_t i) {
  return t->dtype == PTE_FLOAT32 ? (double)((const float *)t->data)[i] : ((const double *)t->data)[i];
}
static inline void tr_set(pte_tensor *t, int64_t i, double v) {
  if (t->dtype == PTE_FLOAT32) ((float *)t->data)[i] = (float)v;
  else ((double *)t->data)[i] = v;
}
/* v rounded to the dtype (torch casts scalars to the tensor's dtype). */
static inline double tr_round(int32_t dtype, double v) { return dtype == PTE_FLOAT32 ? (double)(float)v : v; }
static inline bool tr_is_float(int32_t dtype) { return dtype == PTE_FLOAT32 || dtype == PTE_FLOAT64; }

#endif
