/* A register-tiled float32 matrix product for mm, bmm and addmm (family B).
 * Other dtypes use k_gemm from matmul.h. */
#ifndef PTERUN_GEMM_UTIL_H
#define PTERUN_GEMM_UTIL_H

#include "kernel_util.h"

/* c[M,N] = alpha * a[M,K] @ b[K,N] + beta * bias (bias may be NULL; strides
 * in elements, bias strides may be 0 to broadcast). float32, accumulating in
 * float like ATen's BLAS path. */
void kg_sgemm(int64_t M, int64_t N, int64_t K, const float *a, int64_t sa0, int64_t sa1, const float *b,
              int64_t sb0, int64_t sb1, float *c, int64_t sc0, int64_t sc1, const float *bias, int64_t sbias0,
              int64_t sbias1, float alpha, float beta);

#endif
