/* Not a test (timings): the 1-thread sgemm peak of this CPU and k_sgemm on
 * the shapes of real layers, as a share of it. Thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID), best of several runs, so other processes on a
 * shared machine cost wall time but not the figures.
 *   bench_sgemm_shapes           the table
 *   bench_sgemm_shapes M N K t   one shape (t: 0 dense B, 1 B transposed)
 * With PTERUN_BENCH_PACKED=1 in the environment B is packed once first
 * (k_sgemm_pack_b: a constant weight as kernels_optimized packs it at load).
 * With PTERUN_BENCH_THREADS=n (n > 1) the products run on n threads and are
 * timed in wall time (CLOCK_MONOTONIC): on a busy machine, a loose figure. */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "simd.h"

static int bench_threads = 1;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(bench_threads > 1 ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__x86_64__)
#include <immintrin.h>
/* Register-only FMAs: 16 independent accumulators, more than both FMA
 * ports times the FMA latency need, no loads. */
__attribute__((target("avx512f"), noinline)) static float peak_loop(int64_t iters, float s) {
  __m512 acc[16], m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(s * 1e-9f);
  for (int i = 0; i < 16; i++) acc[i] = _mm512_set1_ps((float)i);
  for (int64_t it = 0; it < iters; it++) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; i++) acc[i] = _mm512_fmadd_ps(acc[i], m, a);
  }
  __m512 t = acc[0];
  for (int i = 1; i < 16; i++) t = _mm512_add_ps(t, acc[i]);
  return _mm512_reduce_add_ps(t);
}
/* The same on 8-float vectors, for CPUs without AVX-512 (the AVX2 path's
 * peak; the AVX-512 loop would fault there). */
__attribute__((target("avx2,fma"), noinline)) static float peak_loop_avx2(int64_t iters, float s) {
  __m256 acc[12], m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(s * 1e-9f);
  for (int i = 0; i < 12; i++) acc[i] = _mm256_set1_ps((float)i);
  for (int64_t it = 0; it < iters; it++) {
#pragma GCC unroll 12
    for (int i = 0; i < 12; i++) acc[i] = _mm256_fmadd_ps(acc[i], m, a);
  }
  __m256 t = acc[0];
  for (int i = 1; i < 12; i++) t = _mm256_add_ps(t, acc[i]);
  float f[8];
  _mm256_storeu_ps(f, t);
  return f[0] + f[7];
}
static double peak_gflops(void) {
  const int64_t iters = 20000000;
  const bool wide = k_isa_get() == K_ISA_AVX512;
  double best = 1e30;
  volatile float sink = 0;
  for (int r = 0; r < 3; r++) {
    double t0 = cpu_now();
    sink += wide ? peak_loop(iters, (float)r) : peak_loop_avx2(iters, (float)r);
    double t = cpu_now() - t0;
    if (t < best) best = t;
  }
  (void)sink;
  return (double)iters * (wide ? 16.0 * 16.0 : 12.0 * 8.0) * 2.0 / best * 1e-9;
}
#else
static double peak_gflops(void) { return 0.0; }
#endif

/* GFLOP/s of C[M,N] = A[M,K] @ B (B [K,N], or [N,K] read transposed when
 * bt), with the caller scratch the optimized kernels pass. */
static double run(int64_t M, int64_t N, int64_t K, int bt) {
  float *a = malloc((size_t)(M * K) * 4), *b = malloc((size_t)(K * N) * 4), *c = malloc((size_t)(M * N) * 4);
  for (int64_t i = 0; i < M * K; i++) a[i] = (float)(i % 7) * 0.1f;
  for (int64_t i = 0; i < K * N; i++) b[i] = (float)(i % 5) * 0.2f;
  size_t bytes = k_sgemm_scratch(M, N, K) + 64;
  void *scratch = NULL;
  if (posix_memalign(&scratch, 64, bytes)) exit(1);
  k_sgemm_desc g = {.M = M,
                    .N = N,
                    .K = K,
                    .a = a,
                    .sa0 = K,
                    .sa1 = 1,
                    .b = b,
                    .sb0 = bt ? 1 : N,
                    .sb1 = bt ? K : 1,
                    .c = c,
                    .sc0 = N,
                    .alpha = 1.0f,
                    .beta = 1.0f,
                    .scratch = scratch,
                    .scratch_bytes = bytes,
                    .parallel = true};
  float *pre = NULL;
  const char *packed = getenv("PTERUN_BENCH_PACKED");
  if (packed && !strcmp(packed, "1")) {
    if (posix_memalign((void **)&pre, 64, k_sgemm_packed_b_floats(N, K) * sizeof(float))) exit(1);
    k_sgemm_pack_b(b, g.sb0, g.sb1, N, K, pre);
    g.b_packed = pre;
  }
  double flops = 2.0 * (double)M * (double)N * (double)K, best = 1e30, spent = 0;
  for (int r = 0; r < 200 && (r < 3 || spent < 0.3); r++) {
    double t0 = cpu_now();
    k_sgemm(&g);
    double t = cpu_now() - t0;
    spent += t;
    if (t < best) best = t;
  }
  free(scratch);
  free(a), free(b), free(c), free(pre);
  return flops / best * 1e-9;
}

typedef struct shape {
  const char *name;
  int64_t M, N, K;
  int bt;
} shape;

static const shape shapes[] = {
    /* ResNet-18 convolutions as im2col GEMMs: OC x pixels x (IC*KH*KW) */
    {"resnet conv1 7x7s2", 64, 12544, 147, 0},
    {"resnet l1 3x3", 64, 3136, 576, 0},
    {"resnet l2 3x3", 128, 784, 1152, 0},
    {"resnet l3 3x3", 256, 196, 2304, 0},
    {"resnet l4 3x3", 512, 49, 4608, 0},
    {"resnet l2 ds 1x1", 128, 784, 64, 0},
    {"resnet l4 ds 1x1", 512, 49, 256, 0},
    /* MobileNetV2 1x1 convolutions: OC x pixels x IC */
    {"mbv2 expand 16->96 112^2", 96, 12544, 16, 0},
    {"mbv2 project 144->24 56^2", 24, 3136, 144, 0},
    {"mbv2 expand 24->144 56^2", 144, 3136, 24, 0},
    {"mbv2 expand 64->384 14^2", 384, 196, 64, 0},
    {"mbv2 project 384->96 14^2", 96, 196, 384, 0},
    {"mbv2 expand 160->960 7^2", 960, 49, 160, 0},
    {"mbv2 last 320->1280 7^2", 1280, 49, 320, 0},
    /* transformer linears: tokens x out x in, weight [out, in] */
    {"vit qkv", 197, 576, 192, 1},
    {"vit mlp up", 197, 768, 192, 1},
    {"vit mlp down", 197, 192, 768, 1},
    {"bert qkv-ish", 128, 256, 256, 1},
    {"bert ffn up", 128, 1024, 256, 1},
    {"bert ffn down", 128, 256, 1024, 1},
    {"gpt2 c_attn", 64, 768, 256, 1},
    {"gpt2 ffn up", 64, 1024, 256, 1},
    {"decode 1x1024x1024", 1, 1024, 1024, 1},
    {"decode 1x4096x1024", 1, 4096, 1024, 1},
    {"256x1024x1024", 256, 1024, 1024, 1},
    {"256x4096x1024", 256, 4096, 1024, 1},
    {"128x1024x4096", 128, 1024, 4096, 1},
    {"256x1024x1024 dense", 256, 1024, 1024, 0},
};

int main(int argc, char **argv) {
  pte_threadpool_set_threads(1);
  double peak = peak_gflops();
  const char *th = getenv("PTERUN_BENCH_THREADS");
  if (th && atoi(th) > 1) {
    bench_threads = atoi(th);
    pte_threadpool_set_threads((size_t)bench_threads);
  }
  if (argc == 3 && !strcmp(argv[1], "ukr")) { /* the microkernel alone, operands in L1 */
    int64_t kc = atoll(argv[2]);
    float *a = aligned_alloc(64, (size_t)kc * 8 * 4), *b = aligned_alloc(64, (size_t)kc * 32 * 4), c[8 * 32];
    for (int64_t i = 0; i < kc * 8; i++) a[i] = 0.001f;
    for (int64_t i = 0; i < kc * 32; i++) b[i] = 0.001f;
    k_tile_epi e = {1.0f, 0.0f, NULL, NULL, true};
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
      double t0 = cpu_now();
      for (int i = 0; i < 100000; i++) k_ukr_avx512_8x32(kc, a, b, c, 32, &e);
      double t = cpu_now() - t0;
      if (t < best) best = t;
    }
    double gf = 100000.0 * 2.0 * 8 * 32 * (double)kc / best * 1e-9;
    printf("ukr kc=%lld %.1f GFLOP/s %.1f%% (c %g)\n", (long long)kc, gf, 100.0 * gf / peak, c[0]);
    return 0;
  }
  if (argc == 5) {
    double gf = run(atoll(argv[1]), atoll(argv[2]), atoll(argv[3]), atoi(argv[4]));
    printf("%.1f GFLOP/s %.1f%% of %.1f\n", gf, 100.0 * gf / peak, peak);
    return 0;
  }
  printf("isa %d, measured 1-thread peak %.1f GFLOP/s (thread CPU time)\n", (int)k_isa_get(), peak);
  printf("| shape | M | N | K | B | GFLOP/s | %% of peak |\n|---|---|---|---|---|---|---|\n");
  double sum = 0;
  int n = (int)(sizeof shapes / sizeof shapes[0]);
  for (int i = 0; i < n; i++) {
    const shape *s = &shapes[i];
    double gf = run(s->M, s->N, s->K, s->bt);
    sum += gf / peak;
    printf("| %s | %lld | %lld | %lld | %s | %.1f | %.0f |\n", s->name, (long long)s->M, (long long)s->N,
           (long long)s->K, s->bt ? "T" : "N", gf, 100.0 * gf / peak);
  }
  printf("mean %.0f%% of peak\n", 100.0 * sum / n);
  return 0;
}
