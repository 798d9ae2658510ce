/* Not a test (timings): k_qgemm_s8 (the static int8 product of the native
 * int8 convolutions) on MobileNetV2's and ResNet-18's 1x1 / im2col shapes
 * at the pool's size (PTERUN_NUM_THREADS), wall time per call: median and
 * best of repeats, with and without a fused requantization table.
 *   bench_qgemm_s8_shapes [M N K] */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "klayer.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void run(int64_t M, int64_t N, int64_t K, bool table) {
  int8_t *w = malloc((size_t)(N * K)), *a = malloc((size_t)(M * K)), *c = malloc((size_t)(M * N));
  float *s = malloc((size_t)N * sizeof *s), *bias = malloc((size_t)N * sizeof *bias);
  for (int64_t i = 0; i < N * K; i++) w[i] = (int8_t)(i * 7 % 255 - 127);
  for (int64_t i = 0; i < M * K; i++) a[i] = (int8_t)(i * 13 % 255 - 127);
  for (int64_t i = 0; i < N; i++) s[i] = 0.001f, bias[i] = (float)(i % 5);
  k_qgemm_weights qw = {.N = N, .K = K, .bits = K_QW_INT8, .data = w, .scale = s, .bias = bias};
  size_t bytes = k_qgemm_packed_size(&qw, NULL);
  void *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
  const k_qgemm_packed *p = buf ? k_qgemm_pack(&qw, buf, bytes, NULL) : NULL;
  if (!p) {
    printf("pack failed\n");
    return;
  }
  static int8_t tab[256];
  k_requant_s8_params rq = {.zin = 3, .zout = -2, .scale = 0.9f, .inv = 1.1f, .table = tab};
  k_requant_s8_table(&rq, tab);
  k_qgemm_s8_desc d = {.M = M,
                       .w = p,
                       .a = a,
                       .sa = K,
                       .a_zero_point = -1,
                       .c = c,
                       .sc = N,
                       .c_zero_point = 4,
                       .qmin = -128,
                       .qmax = 127,
                       .rq = table ? &rq : NULL,
                       .parallel = true};
  double t[41];
  for (int r = 0; r < 5; r++) k_qgemm_s8(&d);
  int reps = 41;
  for (int r = 0; r < reps; r++) {
    double t0 = now();
    int inner = 5;
    for (int i = 0; i < inner; i++) k_qgemm_s8(&d);
    t[r] = (now() - t0) / inner;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  printf("M %6lld N %5lld K %5lld %-6s median %8.1f us  best %8.1f us  %6.1f Gop/s\n", (long long)M,
         (long long)N, (long long)K, table ? "table" : "", t[reps / 2] * 1e6, t[0] * 1e6,
         2.0 * M * N * K / t[0] * 1e-9);
  free(w), free(a), free(c), free(s), free(bias), free(buf);
}

int main(int argc, char **argv) {
  printf("%zu thread(s)\n", pte_threadpool_threads());
  if (argc == 4) {
    run(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), true);
    run(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), false);
    return 0;
  }
  static const int64_t shapes[][3] = {
      {12544, 96, 16},
      {12544, 16, 32},
      {3136, 144, 24},
      {3136, 24, 144},
      {784, 192, 32},
      {784, 32, 192},
      {196, 384, 64},
      {196, 64, 384},
      {49, 960, 160},
      {49, 1280, 320},
      /* ResNet-18 (im2col K = 9 C) */
      {3136, 64, 576},
      {784, 128, 1152},
      {196, 256, 2304},
      {49, 512, 4608},
      {12544, 64, 147},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
    run(shapes[i][0], shapes[i][1], shapes[i][2], true);
  return 0;
}
