/* bench_sgemm_xnnpack: this machine's fp32 GEMM rate through XNNPACK's
 * fully-connected operator (Debian's libXNNPACK), for the roofline.
 *
 *   bench_sgemm_xnnpack [N] [THREADS] [REPS]
 *
 * Computes C[N x N] = A[N x N] * B^T with B an N x N weight matrix, REPS
 * times after one warm-up, and prints one JSON line: the best and the median
 * GFLOP/s (2 N^3 floating-point operations per product). */
#define _POSIX_C_SOURCE 200809L
#include <pthreadpool.h>
#include <xnnpack.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 1024;
  size_t threads = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 1;
  int reps = argc > 3 ? atoi(argv[3]) : 10;
  if (n < 16 || n > 8192 || threads < 1 || reps < 1 || reps > 1000) {
    fprintf(stderr, "usage: bench_sgemm_xnnpack [N 16..8192] [THREADS] [REPS]\n");
    return 2;
  }
  if (xnn_initialize(NULL) != xnn_status_success) {
    fprintf(stderr, "xnn_initialize failed (unsupported CPU?)\n");
    return 1;
  }
  float *a = malloc(n * n * sizeof(float)), *b = malloc(n * n * sizeof(float)),
        *c = malloc(n * n * sizeof(float));
  double *gflops = malloc((size_t)reps * sizeof(double));
  if (!a || !b || !c || !gflops) return 1;
  for (size_t i = 0; i < n * n; i++) {
    a[i] = (float)((i * 7919u) % 1000u) / 1000.0f - 0.5f;
    b[i] = (float)((i * 104729u) % 1000u) / 1000.0f - 0.5f;
  }
  pthreadpool_t pool = threads > 1 ? pthreadpool_create(threads) : NULL;
  xnn_operator_t op = NULL;
  if (xnn_create_fully_connected_nc_f32(n, n, n, n, b, NULL, -INFINITY, INFINITY, 0, &op) !=
          xnn_status_success ||
      xnn_setup_fully_connected_nc_f32(op, n, a, c, pool) != xnn_status_success ||
      xnn_run_operator(op, pool) != xnn_status_success) {
    fprintf(stderr, "XNNPACK fully-connected operator failed\n");
    return 1;
  }
  for (int r = 0; r < reps; r++) {
    double t0 = now_s();
    xnn_run_operator(op, pool);
    gflops[r] = 2.0 * (double)n * (double)n * (double)n / (now_s() - t0) * 1e-9;
  }
  qsort(gflops, (size_t)reps, sizeof(double), cmp_double);
  printf(
      "{\"library\": \"XNNPACK (Debian libXNNPACK, fully-connected f32)\", \"n\": %zu, \"threads\": %zu, "
      "\"best_gflops\": %.3f, \"median_gflops\": %.3f, \"check\": %.6g}\n",
      n, threads, gflops[reps - 1], gflops[reps / 2], (double)c[n * n / 2]);
  xnn_delete_operator(op);
  if (pool) pthreadpool_destroy(pool);
  free(a);
  free(b);
  free(c);
  free(gflops);
  return 0;
}
