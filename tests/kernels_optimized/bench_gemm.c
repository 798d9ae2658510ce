/* GFLOP/s of the optimized aten::mm.out on square float32 matrices, with
 * the pool at 1 thread and at every thread, best of several runs. Not a
 * test (timings): run by hand or by kernels/optimized/measure.py to put
 * the library's GEMM next to the machine's sgemm peak.
 *   bench_gemm [N...]   (default 128 256 512 1024 2048) */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_optimized.h>
#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "method.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double bench(int64_t n, size_t threads) {
  pte_threadpool_set_threads(threads);
  int64_t sz[2] = {n, n};
  pte_tensor a, b, c;
  float *da = malloc((size_t)(n * n) * 4), *db = malloc((size_t)(n * n) * 4), *dc = malloc((size_t)(n * n) * 4);
  for (int64_t i = 0; i < n * n; i++) da[i] = (float)(i % 7) * 0.1f, db[i] = (float)(i % 5) * 0.2f;
  pte_tensor_init(&a, PTE_FLOAT32, 2, sz, da);
  pte_tensor_init(&b, PTE_FLOAT32, 2, sz, db);
  pte_tensor_init(&c, PTE_FLOAT32, 2, sz, dc);
  pte_value v[4] = {{PTE_TAG_TENSOR, 0, {.tensor = &a}}, {PTE_TAG_TENSOR, 0, {.tensor = &b}},
                    {PTE_TAG_TENSOR, 0, {.tensor = &c}}, {PTE_TAG_TENSOR, 0, {.tensor = &c}}};
  pte_value *args[4] = {&v[0], &v[1], &v[2], &v[3]};
  const pte_kernel *k = pte_operator_find("aten::mm.out", NULL);
  size_t bytes = k->scratch_size(args, 4);
  pte_method *m = calloc(1, sizeof *m);
  m->scratch = malloc(bytes);
  m->scratch_size = bytes;
  pte_kernel_ctx ctx = {m, "aten::mm.out"};
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

int main(int argc, char **argv) {
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
