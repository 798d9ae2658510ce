/* Not a test (timings): k_wino_conv F(2x2) and F(4x4) against an im2col
 * product with the filter packed once (what the XNNPACK delegate runs
 * otherwise) on ResNet-18's 3x3 stride-1 layers, NHWC and NCHW. Best of
 * several runs of process CPU time (so other processes cost wall time but
 * not the figures) and wall time.
 *   bench_winograd [threads] */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "klayer.h"

static double now(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct im2col_job {
  const float *x;
  float *col;
  int64_t H, W, C;
} im2col_job;

static void im2col_rows(void *ctx, size_t b, size_t e) {
  const im2col_job *j = ctx;
  for (size_t r = b; r < e; r++) {
    int64_t oy = (int64_t)r / j->W, ox = (int64_t)r % j->W;
    float *d = j->col + (int64_t)r * 9 * j->C;
    for (int kh = 0; kh < 3; kh++)
      for (int kw = 0; kw < 3; kw++, d += j->C) {
        int64_t iy = oy + kh - 1, ix = ox + kw - 1;
        if (iy < 0 || iy >= j->H || ix < 0 || ix >= j->W) memset(d, 0, (size_t)j->C * sizeof(float));
        else memcpy(d, j->x + (iy * j->W + ix) * j->C, (size_t)j->C * sizeof(float));
      }
  }
}

int main(int argc, char **argv) {
  size_t threads = argc > 1 ? (size_t)atoi(argv[1]) : 1;
  pte_threadpool_set_threads(threads);
  static const int64_t shapes[][2] = {{64, 56}, {128, 28}, {256, 14}, {512, 7}};
  printf("threads %zu: ms CPU (wall) per conv, best of 15\n", threads);
  printf("%-10s %16s %16s %16s %16s %16s\n", "layer", "im2col+gemm", "F2 nhwc", "F4 nhwc", "F2 nchw",
         "F4 nchw");
  for (int s = 0; s < 4; s++) {
    const int64_t C = shapes[s][0], H = shapes[s][1], W = H, K = 9 * C;
    float *x = malloc((size_t)(H * W * C) * sizeof(float)), *w = malloc((size_t)(C * K) * sizeof(float));
    float *y = malloc((size_t)(H * W * C) * sizeof(float)),
          *col = malloc((size_t)(H * W * K) * sizeof(float));
    float *bias = calloc((size_t)C, sizeof(float));
    for (int64_t i = 0; i < H * W * C; i++) x[i] = (float)(i % 17) * 0.1f - 0.8f;
    for (int64_t i = 0; i < C * K; i++) w[i] = (float)(i % 13) * 0.01f - 0.06f;
    float *wp = aligned_alloc(64, (k_sgemm_packed_b_floats(C, K) * sizeof(float) + 63) & ~(size_t)63);
    k_sgemm_pack_b(w, 1, K, C, K, wp);
    size_t gsb = k_sgemm_scratch(H * W, C, K);
    void *gs = aligned_alloc(64, (gsb + 63) & ~(size_t)63);
    double best[5][2];
    for (int v = 0; v < 5; v++) best[v][0] = best[v][1] = 1e30;
    k_wino_plan plan[2];
    float *u[2][2];
    void *ws[2];
    size_t wsb[2];
    for (int m = 0; m < 2; m++) {
      k_wino_plan_init(&plan[m], C, C, H, W, H, W, 1, 1, m ? 4 : 2);
      for (int l = 0; l < 2; l++) {
        u[m][l] = aligned_alloc(64, (plan[m].u_floats * sizeof(float) + 63) & ~(size_t)63);
        /* filter [OC][kh][kw][C] (NHWC) or [OC][C][kh][kw] */
        if (l == 0) k_wino_pack(&plan[m], w, K, 1, 3 * C, C, u[m][l]);
        else k_wino_pack(&plan[m], w, K, 9, 3, 1, u[m][l]);
      }
      wsb[m] = k_wino_scratch(&plan[m]);
      ws[m] = malloc(wsb[m]);
    }
    for (int rep = 0; rep < 15; rep++)
      for (int v = 0; v < 5; v++) {
        double c0 = now(CLOCK_PROCESS_CPUTIME_ID), w0 = now(CLOCK_MONOTONIC);
        if (v == 0) {
          im2col_job j = {x, col, H, W, C};
          k_parallel_for((size_t)(H * W), (double)(H * W * K), im2col_rows, &j);
          k_sgemm_desc g = {.M = H * W,
                            .N = C,
                            .K = K,
                            .a = col,
                            .sa0 = K,
                            .sa1 = 1,
                            .b = w,
                            .sb0 = 1,
                            .sb1 = K,
                            .c = y,
                            .sc0 = C,
                            .sc1 = 1,
                            .alpha = 1,
                            .beta = 1,
                            .col_bias = bias,
                            .scratch = gs,
                            .scratch_bytes = gsb,
                            .parallel = true,
                            .b_packed = wp};
          k_sgemm(&g);
        } else {
          const int m = (v - 1) % 2, nchw = v >= 3;
          k_wino_desc d = {&plan[m],
                           1,
                           x,
                           H * W * C,
                           nchw ? H * W : 1,
                           nchw ? W : W * C,
                           nchw ? 1 : C,
                           y,
                           H * W * C,
                           nchw ? H * W : 1,
                           nchw ? W : W * C,
                           nchw ? 1 : C,
                           u[m][nchw],
                           bias,
                           false,
                           0,
                           0,
                           ws[m],
                           wsb[m],
                           true};
          k_wino_conv(&d);
        }
        double c = now(CLOCK_PROCESS_CPUTIME_ID) - c0, wl = now(CLOCK_MONOTONIC) - w0;
        if (c < best[v][0]) best[v][0] = c;
        if (wl < best[v][1]) best[v][1] = wl;
      }
    char name[32];
    snprintf(name, sizeof name, "%lldch@%lld", (long long)C, (long long)H);
    printf("%-10s", name);
    for (int v = 0; v < 5; v++) printf("   %6.3f (%6.3f)", best[v][0] * 1e3, best[v][1] * 1e3);
    printf("\n");
    free(x), free(w), free(y), free(col), free(bias), free(wp), free(gs);
    for (int m = 0; m < 2; m++) free(u[m][0]), free(u[m][1]), free(ws[m]);
  }
  return 0;
}
