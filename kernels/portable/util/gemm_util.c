/* Register-tiled float32 matrix product (see gemm_util.h).
 *
 * Output tiles of MR x NR values stay in registers while K is walked. For
 * every NR-wide column panel, up to KC rows of b are first copied into a
 * small stack buffer so the inner loop reads b contiguously whatever its
 * strides (and without touching a new page per row); all row blocks of a
 * then reuse that panel from L1. When K exceeds KC, partial sums are kept in
 * c between chunks; alpha and the bias are applied after the last chunk. */
#include "gemm_util.h"

#define MR 4
#define NR 8
#define KC 512

typedef float v4f __attribute__((vector_size(16)));

void kg_sgemm(int64_t M, int64_t N, int64_t K, const float *a, int64_t sa0, int64_t sa1, const float *b,
              int64_t sb0, int64_t sb1, float *c, int64_t sc0, int64_t sc1, const float *bias, int64_t sbias0,
              int64_t sbias1, float alpha, float beta) {
  _Alignas(64) float bp[KC * NR];
  for (int64_t j = 0; j < N; j += NR) {
    int64_t nr = N - j < NR ? N - j : NR;
    int64_t k0 = 0;
    do { /* at least once, so K == 0 still writes alpha * 0 + beta * bias */
      int64_t kc = K - k0 < KC ? K - k0 : KC;
      bool first = k0 == 0, last = k0 + kc >= K;
      for (int64_t k = 0; k < kc; k++)
        for (int64_t q = 0; q < NR; q++) bp[k * NR + q] = q < nr ? b[(k0 + k) * sb0 + (j + q) * sb1] : 0.0f;
      for (int64_t i = 0; i < M; i += MR) {
        int64_t mr = M - i < MR ? M - i : MR;
        float acc[MR][NR];
        for (int r = 0; r < MR; r++)
          for (int q = 0; q < NR; q++) acc[r][q] = (!first && r < mr && q < nr) ? c[(i + r) * sc0 + (j + q) * sc1] : 0.0f;
        if (mr == MR && kc > 0) {
          /* full tile in 8 vector registers (GCC/Clang vector extensions) */
          const float *a0 = a + i * sa0 + k0 * sa1, *a1 = a0 + sa0, *a2 = a1 + sa0, *a3 = a2 + sa0;
          v4f c00, c01, c10, c11, c20, c21, c30, c31;
          memcpy(&c00, acc[0], 16);
          memcpy(&c01, acc[0] + 4, 16);
          memcpy(&c10, acc[1], 16);
          memcpy(&c11, acc[1] + 4, 16);
          memcpy(&c20, acc[2], 16);
          memcpy(&c21, acc[2] + 4, 16);
          memcpy(&c30, acc[3], 16);
          memcpy(&c31, acc[3] + 4, 16);
          for (int64_t k = 0; k < kc; k++) {
            v4f b0, b1;
            memcpy(&b0, bp + k * NR, 16);
            memcpy(&b1, bp + k * NR + 4, 16);
            float s0 = a0[k * sa1], s1 = a1[k * sa1], s2 = a2[k * sa1], s3 = a3[k * sa1];
            v4f x0 = {s0, s0, s0, s0}, x1 = {s1, s1, s1, s1}, x2 = {s2, s2, s2, s2}, x3 = {s3, s3, s3, s3};
            c00 += x0 * b0;
            c01 += x0 * b1;
            c10 += x1 * b0;
            c11 += x1 * b1;
            c20 += x2 * b0;
            c21 += x2 * b1;
            c30 += x3 * b0;
            c31 += x3 * b1;
          }
          memcpy(acc[0], &c00, 16);
          memcpy(acc[0] + 4, &c01, 16);
          memcpy(acc[1], &c10, 16);
          memcpy(acc[1] + 4, &c11, 16);
          memcpy(acc[2], &c20, 16);
          memcpy(acc[2] + 4, &c21, 16);
          memcpy(acc[3], &c30, 16);
          memcpy(acc[3] + 4, &c31, 16);
        } else {
          for (int64_t k = 0; k < kc; k++)
            for (int64_t r = 0; r < mr; r++) {
              float x = a[(i + r) * sa0 + (k0 + k) * sa1];
              for (int q = 0; q < NR; q++) acc[r][q] += x * bp[k * NR + q];
            }
        }
        for (int64_t r = 0; r < mr; r++)
          for (int64_t q = 0; q < nr; q++) {
            float v = acc[r][q];
            if (last) {
              if (alpha != 1.0f) v *= alpha;
              if (bias && beta != 0.0f) v += beta * bias[(i + r) * sbias0 + (j + q) * sbias1];
            }
            c[(i + r) * sc0 + (j + q) * sc1] = v;
          }
      }
      k0 += kc;
    } while (k0 < K);
  }
}
