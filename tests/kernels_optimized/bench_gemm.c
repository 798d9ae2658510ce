/* GFLOP/s of the optimized aten::mm.out on square float32 matrices, with
 * the pool at 1 thread and at every thread, best of several runs. Not a
 * test (timings): run by hand or by kernels/optimized/measure.py to put
 * the library's GEMM next to the machine's sgemm peak.
 *   bench_gemm [N...]   (default 128 256 512 1024 2048)
 *   bench_gemm conv     (the 3x3 convolutions of resnet_tiny) */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_optimized.h>
#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double bench(int64_t n, size_t threads) {
  pte_threadpool_set_threads(threads);
  int64_t sz[2] = {n, n};
  pte_tensor a, b, c;
  float *da = malloc((size_t)(n * n) * 4), *db = malloc((size_t)(n * n) * 4),
        *dc = malloc((size_t)(n * n) * 4);
  for (int64_t i = 0; i < n * n; i++) da[i] = (float)(i % 7) * 0.1f, db[i] = (float)(i % 5) * 0.2f;
  pte_tensor_init(&a, PTE_FLOAT32, 2, sz, da);
  pte_tensor_init(&b, PTE_FLOAT32, 2, sz, db);
  pte_tensor_init(&c, PTE_FLOAT32, 2, sz, dc);
  pte_value v[4] = {{PTE_TAG_TENSOR, 0, {.tensor = &a}},
                    {PTE_TAG_TENSOR, 0, {.tensor = &b}},
                    {PTE_TAG_TENSOR, 0, {.tensor = &c}},
                    {PTE_TAG_TENSOR, 0, {.tensor = &c}}};
  pte_value *args[4] = {&v[0], &v[1], &v[2], &v[3]};
  const pte_kernel *k = pte_operator_find("aten::mm.out", NULL);
  size_t bytes = k->scratch_size(args, 4);
  pte_method *m = calloc(1, sizeof *m);
  m->scratch = malloc(bytes);
  m->scratch_size = bytes;
  pte_kernel_ctx ctx = {m, "aten::mm.out", NULL};
  double best = 1e30, budget = now() + 1.0;
  for (int r = 0; r < 50 && (r < 3 || now() < budget); r++) {
    double t0 = now();
    if (k->fn(&ctx, args, 4)) {
      fprintf(stderr, "mm failed: %s\n", pte_last_error());
      exit(1);
    }
    double t = now() - t0;
    if (t < best) best = t;
  }
  free(m->scratch);
  free(m);
  free(da), free(db), free(dc);
  return 2.0 * (double)n * (double)n * (double)n / best * 1e-9;
}

/* One convolution, N x C x H x W, OC x C x KS x KS, padding (KS-1)/2:
 * microseconds (wall, or this thread's CPU time when `cpu`). */
static double bench_conv_k(int64_t C, int64_t OC, int64_t H, int64_t s, int64_t KS, int cpu, int reps,
                           size_t threads) {
  pte_threadpool_set_threads(threads);
  const int64_t pad = (KS - 1) / 2;
  int64_t xs[4] = {1, C, H, H}, ws[4] = {OC, C, KS, KS}, OH = (H + 2 * pad - KS) / s + 1,
          ys[4] = {1, OC, OH, OH};
  pte_tensor x, w, y;
  float *dx = calloc((size_t)(C * H * H), 4), *dw = calloc((size_t)(OC * C * 9), 4),
        *dy = calloc((size_t)(OC * OH * OH), 4);
  pte_tensor_init(&x, PTE_FLOAT32, 4, xs, dx);
  pte_tensor_init(&w, PTE_FLOAT32, 4, ws, dw);
  pte_tensor_init(&y, PTE_FLOAT32, 4, ys, dy);
  pte_value items[6] = {{PTE_TAG_INT, 0, {.i = s}},   {PTE_TAG_INT, 0, {.i = s}},
                        {PTE_TAG_INT, 0, {.i = pad}}, {PTE_TAG_INT, 0, {.i = pad}},
                        {PTE_TAG_INT, 0, {.i = 1}},   {PTE_TAG_INT, 0, {.i = 1}}};
  pte_value *ip[6] = {&items[0], &items[1], &items[2], &items[3], &items[4], &items[5]};
  pte_value zero = {PTE_TAG_INT, 0, {.i = 0}};
  pte_value *zp[2] = {&zero, &zero};
  pte_value v[11] = {{PTE_TAG_TENSOR, 0, {.tensor = &x}},
                     {PTE_TAG_TENSOR, 0, {.tensor = &w}},
                     {PTE_TAG_NONE, 0, {.i = 0}},
                     {PTE_TAG_INT_LIST, 2, {.items = ip}},
                     {PTE_TAG_INT_LIST, 2, {.items = ip + 2}},
                     {PTE_TAG_INT_LIST, 2, {.items = ip + 4}},
                     {PTE_TAG_BOOL, 0, {.b = false}},
                     {PTE_TAG_INT_LIST, 2, {.items = zp}},
                     {PTE_TAG_INT, 0, {.i = 1}},
                     {PTE_TAG_TENSOR, 0, {.tensor = &y}},
                     {PTE_TAG_TENSOR, 0, {.tensor = &y}}};
  pte_value *args[11];
  for (int i = 0; i < 11; i++) args[i] = &v[i];
  const pte_kernel *k = pte_operator_find("aten::convolution.out", NULL);
  size_t bytes = k->scratch_size(args, 11);
  pte_method *m = calloc(1, sizeof *m);
  m->scratch = malloc(bytes + 64);
  m->scratch_size = bytes + 64;
  pte_kernel_ctx ctx = {m, "aten::convolution.out", NULL};
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = cpu ? cpu_now() : now();
    if (k->fn(&ctx, args, 11)) {
      fprintf(stderr, "conv failed: %s\n", pte_last_error());
      exit(1);
    }
    double t = (cpu ? cpu_now() : now()) - t0;
    if (t < best) best = t;
  }
  free(m->scratch);
  free(m);
  free(dx), free(dw), free(dy);
  return best * 1e6;
}

static double bench_conv(int64_t C, int64_t OC, int64_t H, int64_t s, size_t threads) {
  return bench_conv_k(C, OC, H, s, 3, 0, 2000, threads);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "resnet18")) { /* its convolutions, 1 thread, thread CPU time */
    pte_kernels_optimized_register();
    static const int64_t cfg[][6] = {
        {3, 64, 224, 2, 7, 1},   {64, 64, 56, 1, 3, 4},   {64, 128, 56, 2, 3, 1},  {128, 128, 28, 1, 3, 3},
        {64, 128, 56, 2, 1, 1},  {128, 256, 28, 2, 3, 1}, {256, 256, 14, 1, 3, 3}, {128, 256, 28, 2, 1, 1},
        {256, 512, 14, 2, 3, 1}, {512, 512, 7, 1, 3, 3},  {256, 512, 14, 2, 1, 1}};
    double total = 0, flops_all = 0;
    for (int i = 0; i < 11; i++) {
      const int64_t *c = cfg[i], OH = (c[2] + 2 * ((c[4] - 1) / 2) - c[4]) / c[3] + 1;
      double us = bench_conv_k(c[0], c[1], c[2], c[3], c[4], 1, 20, 1);
      double fl = 2.0 * (double)(c[1] * OH * OH * c[0] * c[4] * c[4]);
      total += us * (double)c[5], flops_all += fl * (double)c[5];
      printf("C%lld OC%lld %lldx%lld k%lld s%lld x%lld: %.0f us %.1f GFLOP/s\n", (long long)c[0],
             (long long)c[1], (long long)c[2], (long long)c[2], (long long)c[4], (long long)c[3],
             (long long)c[5], us, fl / us * 1e-3);
    }
    printf("all convolutions: %.2f ms, %.1f GFLOP/s\n", total * 1e-3, flops_all / total * 1e-3);
    return 0;
  }
  if (argc > 2 && !strcmp(argv[1], "conv1")) { /* one config, the pool as the environment sets it */
    pte_kernels_optimized_register();
    printf("%.1f us\n", bench_conv(16, 16, 32, 1, (size_t)atoll(argv[2])));
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "conv")) {
    pte_kernels_optimized_register();
    static const int64_t cfg[][4] = {
        {16, 16, 32, 1}, {16, 32, 32, 2}, {32, 32, 16, 1}, {32, 64, 16, 2}, {64, 64, 8, 1}};
    for (int i = 0; i < 5; i++)
      printf("conv C%lld OC%lld %lldx%lld s%lld: 1 thread %.1f us, %zu threads %.1f us\n",
             (long long)cfg[i][0], (long long)cfg[i][1], (long long)cfg[i][2], (long long)cfg[i][2],
             (long long)cfg[i][3], bench_conv(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], 1),
             pte_threadpool_threads(), bench_conv(cfg[i][0], cfg[i][1], cfg[i][2], cfg[i][3], 0));
    return 0;
  }
  pte_kernels_optimized_register();
  int64_t sizes[16] = {128, 256, 512, 1024, 2048};
  int ns = 5;
  if (argc > 1) {
    ns = 0;
    for (int i = 1; i < argc && ns < 16; i++) sizes[ns++] = atoll(argv[i]);
  }
  size_t all = pte_threadpool_threads();
  printf("isa %s\n", pte_kernels_optimized_isa());
  for (int i = 0; i < ns; i++)
    printf("n=%lld gflops_1t=%.1f gflops_%zut=%.1f\n", (long long)sizes[i], bench(sizes[i], 1), all,
           bench(sizes[i], all));
  return 0;
}
