/* Reference matrix products (see matmul.h). */
#include "matmul.h"

#define JCHUNK 256

/* alpha/beta arrive as doubles: a hostile program's huge ones saturate
 * instead of overflowing the conversion. */
static int64_t sat_i64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

void k_gemm(int32_t dtype, int64_t M, int64_t N, int64_t K, const void *a, int64_t sa0, int64_t sa1,
            const void *b, int64_t sb0, int64_t sb1, void *c, int64_t sc0, int64_t sc1, const void *bias,
            int64_t sbias0, int64_t sbias1, double alpha, double beta) {
  if (dtype == PTE_FLOAT32) {
    k_sgemm_desc g = {.M = M,
                      .N = N,
                      .K = K,
                      .a = a,
                      .sa0 = sa0,
                      .sa1 = sa1,
                      .b = b,
                      .sb0 = sb0,
                      .sb1 = sb1,
                      .c = c,
                      .sc0 = sc0,
                      .sc1 = sc1,
                      .alpha = (float)alpha,
                      .beta = (float)beta};
    /* a broadcast row or column is a bias vector the microkernels add */
    if (!bias || beta == 0)
      ;
    else if (sbias0 == 0 && (sbias1 == 1 || N == 1)) g.col_bias = bias;
    else if (sbias1 == 0 && (sbias0 == 1 || M == 1)) g.row_bias = bias;
    else g.bias = bias, g.sbias0 = sbias0, g.sbias1 = sbias1;
    k_sgemm(&g);
    return;
  }
  if (k_is_float(dtype)) {
    double acc[JCHUNK];
    for (int64_t i = 0; i < M; i++) {
      for (int64_t j0 = 0; j0 < N; j0 += JCHUNK) {
        int64_t nj = N - j0 < JCHUNK ? N - j0 : JCHUNK;
        for (int64_t j = 0; j < nj; j++) acc[j] = 0;
        for (int64_t k = 0; k < K; k++) {
          double aik = k_get_d(a, dtype, i * sa0 + k * sa1);
          for (int64_t j = 0; j < nj; j++) acc[j] += aik * k_get_d(b, dtype, k * sb0 + (j0 + j) * sb1);
        }
        for (int64_t j = 0; j < nj; j++) {
          double v = alpha * acc[j];
          if (bias && beta != 0) v += beta * k_get_d(bias, dtype, i * sbias0 + (j0 + j) * sbias1);
          k_set_d(c, dtype, i * sc0 + (j0 + j) * sc1, v);
        }
      }
    }
    return;
  }
  int64_t ia = sat_i64(alpha), ib = sat_i64(beta);
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      uint64_t acc = 0;
      for (int64_t k = 0; k < K; k++)
        acc +=
            (uint64_t)k_get_i(a, dtype, i * sa0 + k * sa1) * (uint64_t)k_get_i(b, dtype, k * sb0 + j * sb1);
      uint64_t v = (uint64_t)ia * acc;
      if (bias && ib != 0) v += (uint64_t)ib * (uint64_t)k_get_i(bias, dtype, i * sbias0 + j * sbias1);
      k_set_i(c, dtype, i * sc0 + j * sc1, (int64_t)v);
    }
  }
}

pte_status k_matmul(pte_kernel_ctx *ctx, const pte_tensor *a, const pte_tensor *b, pte_tensor *out,
                    const pte_tensor *bias, const int64_t *bias_strides, double alpha, double beta) {
  if (!k_is_supported(a->dtype) || a->dtype == PTE_BOOL)
    return K_FAIL("matrix products are not supported for %s", pte_dtype_name(a->dtype));
  k_gemm(a->dtype, a->sizes[0], b->sizes[1], a->sizes[1], a->data, a->strides[0], a->strides[1], b->data,
         b->strides[0], b->strides[1], out->data, out->strides[0], out->strides[1], bias ? bias->data : NULL,
         bias ? bias_strides[0] : 0, bias ? bias_strides[1] : 0, alpha, beta);
  return PTE_OK;
}
