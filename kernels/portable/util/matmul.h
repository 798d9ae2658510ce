/* Reference matrix products shared by mm, addmm, bmm, linear and convolution. */
#ifndef PTERUN_MATMUL_H
#define PTERUN_MATMUL_H

#include "kernel_util.h"

/* c[M,N] = alpha * a[M,K] @ b[K,N] + beta * bias (bias may be NULL; strides in
 * elements, bias strides may be 0 to broadcast). All of one dtype (float32,
 * float64, float16, bfloat16 or an integer type). float32 goes to the kernel
 * layer's k_sgemm (accumulating in float, like ATen's BLAS path), on the
 * calling thread: the portable kernels never start the pool, so executing
 * on them allocates nothing; the other floats accumulate in double, integers in int64. */
void k_gemm(int32_t dtype, int64_t M, int64_t N, int64_t K, const void *a, int64_t sa0, int64_t sa1,
            const void *b, int64_t sb0, int64_t sb1, void *c, int64_t sc0, int64_t sc1, const void *bias,
            int64_t sbias0, int64_t sbias1, double alpha, double beta);

/* out = alpha * a @ b + beta * bias, for 2-D tensors already checked by the caller. */
pte_status k_matmul(pte_kernel_ctx *ctx, const pte_tensor *a, const pte_tensor *b, pte_tensor *out,
                    const pte_tensor *bias, const int64_t *bias_strides, double alpha, double beta);

#endif
