/* The kernel layer (kernels/layer/klayer.h) on its own: the float32 GEMM
 * against a double reference over edge shapes, strides, bias forms,
 * accumulation, clamps, scratch or stack buffers, serial and on a pool of
 * 1 and 3 threads (ctest runs it once per instruction set), batches with
 * broadcasting, the parallel-for's coverage, and the argument and output
 * helpers' answers. */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <stdatomic.h>
#include <stdint.h>

#include "../common/test_util.h"
#include "klayer.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static float frand(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (float)((g_rng >> 40) & 0xffff) / 32768.0f - 1.0f;
}
static int64_t irand(int64_t n) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return (int64_t)((g_rng >> 33) % (uint64_t)n);
}

enum { BIAS_NONE, BIAS_ROW, BIAS_COL, BIAS_MATRIX, BIAS_SCALAR, BIAS_KINDS };

typedef struct gcase {
  int64_t M, N, K;
  bool ta, tb; /* A / B stored transposed */
  int64_t csc; /* C column stride (1 or 2) */
  int bias;
  float alpha, beta;
  bool accumulate, clamp;
  int scratch; /* 0: none (stack), 1: the minimum, 2: a parallel run's */
  bool parallel;
  bool packed;    /* B through a pack callback */
  bool prepacked; /* B also packed once by k_sgemm_pack_b */
} gcase;

typedef struct packer {
  const float *b;
  int64_t sb0, sb1;
} packer;

static void pack_cb(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                    float *dst) {
  const packer *p = user;
  for (int64_t k = 0; k < kc; k++)
    for (int64_t j = 0; j < NR; j++)
      dst[k * NR + j] = j < nr ? p->b[(k0 + k) * p->sb0 + (j0 + j) * p->sb1] : 0.0f;
}

static float *g_scratch_buf;

/* Elements of C checked against the reference: every one, or under
 * emulation and sanitizers, where the double sum costs most of the run, a
 * diagonal stripe of every PTERUN_TEST_CHECK_STEP-th (CMake sets it) and the
 * last row and column: an odd step still meets every row and column, so
 * every position in a microkernel's tile, every panel and thread band. */
static int64_t g_check_step = 1;

static bool checked(int64_t i, int64_t j, int64_t M, int64_t N) {
  return (i + j) % g_check_step == 0 || i == M - 1 || j == N - 1;
}

/* The largest error of C against a double sum, as a share of its bound. */
static TEST_REFERENCE double gemm_worst(const gcase *t, const float *a, const float *b, const float *bias,
                                        int64_t bs0, int64_t bs1, const float *c0, const float *c) {
  const int64_t M = t->M, N = t->N, K = t->K;
  double worst = 0;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      if (!checked(i, j, M, N)) continue;
      double s = 0, mag = 0;
      for (int64_t k = 0; k < K; k++) {
        double p = (double)a[t->ta ? k * M + i : i * K + k] * (double)b[t->tb ? j * K + k : k * N + j];
        s += p;
        mag += fabs(p);
      }
      double v = (double)t->alpha * s;
      mag *= fabs((double)t->alpha);
      if (t->bias != BIAS_NONE && t->beta != 0.0f) {
        double bv = t->bias == BIAS_SCALAR ? bias[0] : bias[i * bs0 + j * bs1];
        v += (double)t->beta * bv;
        mag += fabs((double)t->beta * bv);
      }
      double old = c0[i * N * t->csc + j * t->csc];
      if (t->accumulate) v += old, mag += fabs(old);
      if (t->clamp) v = v < -0.5 ? -0.5 : v > 0.75 ? 0.75 : v;
      double got = c[i * N * t->csc + j * t->csc];
      double bound = 4e-7 * (double)(K + 4) * mag + 1e-30;
      double e = fabs(got - v) / bound;
      if (!(e <= worst)) worst = e; /* NaN counts as worst */
    }
  return worst;
}

/* Runs one case; returns the worst error relative to its bound (> 1 fails). */
static double gemm_check(const gcase *t) {
  const int64_t M = t->M, N = t->N, K = t->K;
  float *a = malloc(sizeof(float) * (size_t)(M * K + 1)), *b = malloc(sizeof(float) * (size_t)(K * N + 1));
  float *c = malloc(sizeof(float) * (size_t)(M * N * t->csc + 1)),
        *c0 = malloc(sizeof(float) * (size_t)(M * N * t->csc + 1));
  float *bias = malloc(sizeof(float) * (size_t)(M * N + M + N + 1));
  for (int64_t i = 0; i < M * K; i++) a[i] = frand();
  for (int64_t i = 0; i < K * N; i++) b[i] = frand();
  for (int64_t i = 0; i < M * N * t->csc; i++) c[i] = c0[i] = frand();
  for (int64_t i = 0; i < M * N + M + N; i++) bias[i] = frand();
  k_sgemm_desc g = {.M = M,
                    .N = N,
                    .K = K,
                    .a = a,
                    .b = b,
                    .c = c,
                    .alpha = t->alpha,
                    .beta = t->beta,
                    .accumulate = t->accumulate,
                    .parallel = t->parallel};
  if (t->ta) g.sa0 = 1, g.sa1 = M;
  else g.sa0 = K, g.sa1 = 1;
  if (t->tb) g.sb0 = 1, g.sb1 = K;
  else g.sb0 = N, g.sb1 = 1;
  g.sc0 = N * t->csc, g.sc1 = t->csc;
  int64_t bs0 = 0, bs1 = 0;
  switch (t->bias) {
    case BIAS_ROW: g.row_bias = bias, bs0 = 1; break;
    case BIAS_COL: g.col_bias = bias, bs1 = 1; break;
    case BIAS_MATRIX: g.bias = bias, g.sbias0 = N, g.sbias1 = 1, bs0 = N, bs1 = 1; break;
    case BIAS_SCALAR: g.bias = bias, g.sbias0 = 0, g.sbias1 = 0; break;
    default: break;
  }
  if (t->clamp) g.clamp = true, g.lo = -0.5f, g.hi = 0.75f;
  packer pk = {b, g.sb0, g.sb1};
  if (t->packed) g.pack_b = pack_cb, g.pack_user = &pk, g.b = NULL;
  float *pre = NULL;
  if (t->prepacked) {
    /* NaN in the padding and past the end: must never be read */
    size_t floats = k_sgemm_packed_b_floats(N, K);
    pre = aligned_alloc(64, sizeof(float) * (floats + 16));
    for (size_t i = 0; i < floats + 16; i++) pre[i] = NAN;
    k_sgemm_pack_b(b, g.sb0, g.sb1, N, K, pre);
    g.b_packed = pre;
  }
  /* with scratch the packed B is all that is read, at every shape: the
   * dense B (a weight whose pages were given back) is NaN here */
  float *nanb = NULL;
  if (t->prepacked && t->scratch && !t->packed && K > 0) {
    nanb = malloc(sizeof(float) * (size_t)(K * N + 1));
    for (int64_t i = 0; i < K * N; i++) nanb[i] = NAN;
    g.b = nanb;
  }
  if (t->scratch) {
    g.scratch = g_scratch_buf;
    g.scratch_bytes = t->scratch == 1 ? k_sgemm_scratch_min(M, N, K) : k_sgemm_scratch(M, N, K);
  }
  k_sgemm(&g);
  double worst = gemm_worst(t, a, b, bias, bs0, bs1, c0, c);
  /* columns between C's (csc 2) stay untouched */
  for (int64_t i = 0; i < M * N * t->csc; i++)
    if (t->csc == 2 && i % 2 == 1 && c[i] != c0[i]) worst = 1e9;
  free(a), free(b), free(c), free(c0), free(bias), free(pre), free(nanb);
  return worst;
}

static void gemm_cases(size_t threads) {
  CHECK_OK(pte_threadpool_set_threads(threads));
  static const int64_t Ms[] = {1, 2, 3, 8, 9, 33, 70};
  static const int64_t Ns[] = {1, 5, 7, 16, 24, 33, 70, 300}; /* 7: a vector of 3 at the edge */
  static const int64_t Ks[] = {0, 1, 7, 130, 300};
  int fails = 0, runs = 0;
  for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
    for (size_t ni = 0; ni < sizeof Ns / sizeof *Ns; ni++)
      for (size_t ki = 0; ki < sizeof Ks / sizeof *Ks; ki++)
        for (int rep = 0; rep < 3; rep++) {
          gcase t = {Ms[mi],
                     Ns[ni],
                     Ks[ki],
                     irand(2),
                     irand(2),
                     1 + irand(2),
                     (int)irand(BIAS_KINDS),
                     irand(3) ? 1.0f : 0.5f,
                     irand(3) ? 1.0f : (irand(2) ? 0.0f : -2.0f),
                     irand(4) == 0,
                     irand(4) == 0,
                     (int)irand(3),
                     irand(2) != 0,
                     irand(4) == 0,
                     irand(2) != 0};
          double e = gemm_check(&t);
          runs++;
          if (e > 1.0) {
            if (fails++ < 5)
              fprintf(stderr,
                      "  M=%lld N=%lld K=%lld ta=%d tb=%d csc=%lld bias=%d alpha=%g beta=%g acc=%d clamp=%d "
                      "scratch=%d par=%d packed=%d prepacked=%d: error %.3g of its bound\n",
                      (long long)t.M, (long long)t.N, (long long)t.K, t.ta, t.tb, (long long)t.csc, t.bias,
                      t.alpha, t.beta, t.accumulate, t.clamp, t.scratch, t.parallel, t.packed, t.prepacked,
                      e);
          }
        }
  CHECK(fails == 0, "%d of %d products (isa %s, %zu threads) off the reference", fails, runs,
        k_isa_name(k_isa_get()), threads);
}

TEST(gemm_serial_pool) { gemm_cases(1); }
TEST(gemm_two_threads) { gemm_cases(2); }
TEST(gemm_three_threads) { gemm_cases(3); }

/* Split products whose last column panel is narrow (the chunks end at equal
 * columns), with caller scratch, dense, transposed and packed B, at 1, 2
 * and 3 threads. */
TEST(gemm_narrow_last_panel) {
  static const int64_t shapes[][3] = {
      {512, 49, 256}, {256, 196, 128}, {130, 33, 300}, {64, 785, 40}, {17, 100, 700}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int mode = 0; mode < 3; mode++) {
        gcase t = {shapes[s][0], shapes[s][1], shapes[s][2], false, mode == 1, 1,         BIAS_ROW, 1.0f,
                   1.0f,         false,        false,        2,     true,      mode == 2, false};
        double e = gemm_check(&t);
        CHECK(e <= 1.0, "%lldx%lldx%lld mode %d, %zu threads: error %.3g of its bound", (long long)t.M,
              (long long)t.N, (long long)t.K, mode, threads[ti], e);
      }
  }
}

/* A decode step's products: one to eight rows over a wide B packed at load
 * (A read in place at any width up to four rows by the few-row kernel, the
 * 8-row tile above), each also unpacked (the dot and axpy paths), with
 * caller scratch, biases, accumulation and clamps, at 1, 2 and 3 threads. */
TEST(gemm_few_rows_wide_prepacked) {
  static const int64_t Ms[] = {1, 2, 3, 4, 5, 8};
  static const int64_t NKs[][2] = {{1100, 300}, {2100, 520}, {1057, 7}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
      for (size_t s = 0; s < sizeof NKs / sizeof *NKs; s++)
        for (int mode = 0; mode < 4; mode++) {
          const bool pre = mode & 1, tb = mode & 2;
          gcase t = {Ms[mi],
                     NKs[s][0],
                     NKs[s][1],
                     false,
                     tb,
                     1,
                     (int)irand(BIAS_KINDS),
                     1.0f,
                     irand(2) ? 1.0f : 0.5f,
                     irand(4) == 0,
                     irand(4) == 0,
                     2,
                     true,
                     false,
                     pre};
          double e = gemm_check(&t);
          CHECK(e <= 1.0,
                "%lldx%lldx%lld tb=%d prepacked=%d bias=%d acc=%d clamp=%d, %zu threads: error %.3g",
                (long long)t.M, (long long)t.N, (long long)t.K, tb, pre, t.bias, t.accumulate, t.clamp,
                threads[ti], e);
        }
  }
}

/* A read in place (rows contiguous; AVX2 does so up to 256 columns), or
 * packed from contiguous rows (AVX2 by register transposes, past 256
 * columns), against the same A stored transposed, which is always packed
 * by the scalar loop: the microkernels' FMAs run in the same order every
 * way, so C must match bit for bit, over
 * odd sizes, partial tiles of rows and columns, several K slices, B dense,
 * transposed and packed at load (one or two rows over it: AVX2's rows
 * kernel, two panels a call), row bias, clamp, at 1, 2 and 3 threads. */
TEST(gemm_a_in_place_matches_packed) {
  static const int64_t shapes[][3] = {{1, 200, 300},  {5, 49, 523},   {37, 256, 257}, {70, 24, 1024},
                                      {197, 192, 65}, {64, 257, 300}, {37, 300, 257}, {9, 520, 70},
                                      {2, 1000, 300}, {1, 40, 1280},  {2, 16, 9},     {49, 1280, 70},
                                      {16, 1100, 40}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int mode = 0; mode < 3; mode++) {
        const int64_t M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        /* two rows over B transposed: A in place takes the dot products,
         * packed A the tile (sums in other orders) */
        if (M == 2 && mode == 1) continue;
        float *a = malloc(sizeof(float) * (size_t)(M * K)), *at = malloc(sizeof(float) * (size_t)(M * K));
        float *b = malloc(sizeof(float) * (size_t)(K * N)), *rb = malloc(sizeof(float) * (size_t)M);
        float *c1 = malloc(sizeof(float) * (size_t)(M * N)), *c2 = malloc(sizeof(float) * (size_t)(M * N));
        for (int64_t i = 0; i < M * K; i++) a[i] = frand();
        for (int64_t i = 0; i < M; i++)
          for (int64_t k = 0; k < K; k++) at[k * M + i] = a[i * K + k];
        for (int64_t i = 0; i < K * N; i++) b[i] = frand();
        for (int64_t i = 0; i < M; i++) rb[i] = frand();
        const bool tb = mode == 1;
        k_sgemm_desc g = {.M = M,
                          .N = N,
                          .K = K,
                          .a = a,
                          .sa0 = K,
                          .sa1 = 1,
                          .b = b,
                          .sb0 = tb ? 1 : N,
                          .sb1 = tb ? K : 1,
                          .c = c1,
                          .sc0 = N,
                          .alpha = 1.0f,
                          .beta = 1.0f,
                          .row_bias = rb,
                          .clamp = mode == 2,
                          .lo = -0.5f,
                          .hi = 0.75f,
                          .scratch = g_scratch_buf,
                          .scratch_bytes = k_sgemm_scratch(M, N, K),
                          .parallel = true};
        float *pre = NULL;
        if (mode == 2) {
          pre = aligned_alloc(64, sizeof(float) * (k_sgemm_packed_b_floats(N, K) + 16));
          k_sgemm_pack_b(b, g.sb0, g.sb1, N, K, pre);
          g.b_packed = pre;
        }
        k_sgemm(&g);
        k_sgemm_desc h = g;
        h.a = at, h.sa0 = 1, h.sa1 = M, h.c = c2;
        k_sgemm(&h);
        int64_t diff = 0;
        for (int64_t i = 0; i < M * N; i++) diff += memcmp(&c1[i], &c2[i], sizeof(float)) != 0;
        CHECK(diff == 0, "%lldx%lldx%lld mode %d, isa %s, %zu threads: %lld elements differ", (long long)M,
              (long long)N, (long long)K, mode, k_isa_name(k_isa_get()), threads[ti], (long long)diff);
        free(a), free(at), free(b), free(rb), free(c1), free(c2), free(pre);
      }
  }
}

/* 1x1 convolutions' products (MobileNetV2's): many rows read in place, few
 * columns (a partial panel: 16, 24, 40), short K, the column bias and the
 * clamp (ReLU6) in the kernel's masked store, accumulating or not, B packed
 * at load or not, at 1, 2 and 3 threads. */
TEST(gemm_pointwise_shapes) {
  static const int64_t shapes[][3] = {
      {1000, 16, 32}, {784, 24, 96}, {333, 144, 24}, {300, 40, 16}, {129, 8, 64}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int mode = 0; mode < 4; mode++) {
        gcase t = {shapes[s][0], shapes[s][1], shapes[s][2], false, false, 1,     BIAS_COL, 1.0f,
                   1.0f,         mode == 3,    mode != 1,    2,     true,  false, mode >= 2};
        double e = gemm_check(&t);
        CHECK(e <= 1.0, "%lldx%lldx%lld mode %d, %zu threads: error %.3g of its bound", (long long)t.M,
              (long long)t.N, (long long)t.K, mode, threads[ti], e);
      }
  }
}

/* k_dwconv_f32 against a double reference: 3x3 stride 1 and 2 (the
 * AVX-512 and AVX2 rows' register path: its 4-pixel sweep, and the edges
 * and remainders a pixel at a time, four channel blocks at once and one),
 * other kernel sizes and dilations (a pixel at a time), channel counts off
 * the 16- and 8-lane vectors (a masked last block, alone or after full
 * ones; the last three shapes: edges over several groups of four blocks),
 * padding on any side, with and without bias and clamp, at 1, 2 and 3
 * threads. */
static TEST_REFERENCE double dw_check(int64_t N, int64_t H, int64_t W, int64_t C, int32_t kh, int32_t kw,
                                      int32_t s, int32_t dil, int32_t pt, int32_t pl, int32_t pb, int32_t pr,
                                      bool bias, bool clamp) {
  const int64_t OH = (H + pt + pb - ((int64_t)(kh - 1) * dil + 1)) / s + 1,
                OW = (W + pl + pr - ((int64_t)(kw - 1) * dil + 1)) / s + 1;
  float *x = malloc((size_t)(N * H * W * C) * 4), *w = malloc((size_t)(kh * kw * C) * 4),
        *b = malloc((size_t)C * 4), *y = malloc((size_t)(N * OH * OW * C + 1) * 4);
  for (int64_t i = 0; i < N * H * W * C; i++) x[i] = frand();
  for (int64_t i = 0; i < kh * kw * C; i++) w[i] = frand();
  for (int64_t i = 0; i < C; i++) b[i] = frand();
  y[N * OH * OW * C] = 12345.0f; /* past the end: must stay */
  const k_dwconv_f32_desc d = {N,
                               H,
                               W,
                               C,
                               OH,
                               OW,
                               kh,
                               kw,
                               s,
                               s,
                               dil,
                               dil,
                               pt,
                               pl,
                               x,
                               w,
                               bias ? b : NULL,
                               y,
                               clamp ? -0.25f : -INFINITY,
                               clamp ? 0.5f : INFINITY,
                               true};
  k_dwconv_f32(&d);
  double worst = y[N * OH * OW * C] == 12345.0f ? 0.0 : 1e9;
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++)
        for (int64_t c = 0; c < C; c++) {
          double r = bias ? b[c] : 0.0, mag = fabs(r);
          for (int32_t ky = 0; ky < kh; ky++)
            for (int32_t kx = 0; kx < kw; kx++) {
              const int64_t iy = oy * s + ky * dil - pt, ix = ox * s + kx * dil - pl;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              const double p = (double)x[((n * H + iy) * W + ix) * C + c] * w[(ky * kw + kx) * C + c];
              r += p, mag += fabs(p);
            }
          if (clamp) r = r < -0.25 ? -0.25 : r > 0.5 ? 0.5 : r;
          const double e = fabs((double)y[((n * OH + oy) * OW + ox) * C + c] - r) / (mag * 4e-6 + 1e-30);
          if (e > worst) worst = e;
        }
  free(x), free(w), free(b), free(y);
  return worst;
}

TEST(dwconv_f32_reference) {
  static const int32_t shapes[][10] = {/* H, W, C, kh, kw, stride, dilation, pad top, left, bottom/right */
                                       {12, 13, 32, 3, 3, 1, 1, 1, 1, 1}, {13, 12, 96, 3, 3, 2, 1, 0, 0, 1},
                                       {9, 17, 7, 3, 3, 1, 1, 0, 0, 0},   {8, 8, 33, 3, 3, 2, 1, 1, 1, 1},
                                       {10, 9, 16, 5, 5, 1, 1, 2, 2, 2},  {11, 10, 24, 3, 3, 1, 2, 2, 2, 2},
                                       {6, 7, 1, 1, 3, 1, 1, 0, 1, 1},    {3, 3, 20, 3, 3, 1, 1, 1, 1, 1},
                                       {5, 40, 48, 3, 3, 1, 1, 0, 2, 0},  {7, 11, 9, 3, 3, 2, 1, 1, 1, 0},
                                       {6, 21, 15, 3, 3, 1, 1, 1, 1, 1},  {5, 9, 5, 3, 3, 1, 1, 1, 1, 1},
                                       {7, 7, 80, 3, 3, 1, 1, 1, 1, 1},   {14, 14, 136, 3, 3, 2, 1, 0, 0, 1},
                                       {6, 10, 72, 5, 5, 1, 1, 2, 2, 2}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
      for (int mode = 0; mode < 4; mode++) {
        const int32_t *t = shapes[i];
        /* bottom and right pads from the last column; the first two modes pad them unequally */
        const int32_t pb = mode & 1 ? t[9] : 0, pr = t[9];
        const double e = dw_check(1 + (mode == 3), t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], pb,
                                  pr, mode != 1, mode >= 2);
        CHECK(e <= 1.0, "dwconv %dx%dx%d k%dx%d s%d d%d mode %d, %zu threads: error %.3g of its bound", t[0],
              t[1], t[2], t[3], t[4], t[5], t[6], mode, threads[ti], e);
      }
  }
}

/* k_conv_f32 against a double reference, and under AVX2 and AVX-512
 * bit for bit against an FMA-a-tap float sum: MobileNetV2's stem, 3x3
 * stride 2 of 3 channels, and ResNet's 7x7 stride 2 (the rows' 8- and
 * 6-pixel paths and checked edges), output
 * channels off the 32-channel block (masked tails, a second block), other
 * kernels, strides and dilations, padding on any side (rows of taps
 * outside the image), with and without bias and clamp, NHWC and NCHW
 * input, at 1, 2 and 3 threads. */
static TEST_REFERENCE double conv_check(int64_t N, int64_t H, int64_t W, int64_t C, int64_t OC, int32_t kh,
                                        int32_t kw, int32_t s, int32_t dil, int32_t pt, int32_t pl,
                                        int32_t pb, int32_t pr, bool bias, bool clamp, bool nchw) {
  const int64_t OH = (H + pt + pb - ((int64_t)(kh - 1) * dil + 1)) / s + 1,
                OW = (W + pl + pr - ((int64_t)(kw - 1) * dil + 1)) / s + 1, K = kh * kw * C;
  float *x = malloc((size_t)(N * H * W * C) * 4), *w = malloc((size_t)(OC * K) * 4),
        *wp = malloc(k_conv_f32_packed(OC, K) * 4), *b = malloc((size_t)OC * 4),
        *y = malloc((size_t)(N * OH * OW * OC + 1) * 4);
  for (int64_t i = 0; i < N * H * W * C; i++) x[i] = frand();
  for (int64_t i = 0; i < OC * K; i++) w[i] = frand();
  for (int64_t i = 0; i < OC; i++) b[i] = frand();
  k_conv_f32_pack(w, OC, K, wp);
  /* the same image in planes for the NCHW reading */
  float *xc = malloc((size_t)(N * H * W * C) * 4);
  for (int64_t n = 0; n < N; n++)
    for (int64_t i = 0; i < H * W; i++)
      for (int64_t c = 0; c < C; c++) xc[(n * C + c) * H * W + i] = x[(n * H * W + i) * C + c];
  y[N * OH * OW * OC] = 12345.0f; /* past the end: must stay */
  const k_conv_f32_desc d = {.N = N,
                             .H = H,
                             .W = W,
                             .C = C,
                             .OH = OH,
                             .OW = OW,
                             .OC = OC,
                             .kh = kh,
                             .kw = kw,
                             .sh = s,
                             .sw = s,
                             .dh = dil,
                             .dw = dil,
                             .pt = pt,
                             .pl = pl,
                             .x = nchw ? xc : x,
                             .w = wp,
                             .bias = bias ? b : NULL,
                             .y = y,
                             .lo = clamp ? -0.25f : -INFINITY,
                             .hi = clamp ? 0.5f : INFINITY,
                             .nchw = nchw,
                             .parallel = true};
  k_conv_f32(&d);
  const bool fma_exact = k_isa_get() == K_ISA_AVX2 || k_isa_get() == K_ISA_AVX512;
  double worst = y[N * OH * OW * OC] == 12345.0f ? 0.0 : 1e9;
  for (int64_t n = 0; n < N; n++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++)
        for (int64_t o = 0; o < OC; o++) {
          double r = bias ? b[o] : 0.0, mag = fabs(r);
          float f = bias ? b[o] : 0.0f; /* the vector bodies' sum: an FMA a tap, in tap order */
          for (int32_t ky = 0; ky < kh; ky++)
            for (int32_t kx = 0; kx < kw; kx++) {
              const int64_t iy = oy * s + ky * dil - pt, ix = ox * s + kx * dil - pl;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              for (int64_t c = 0; c < C; c++) {
                const float xv = x[((n * H + iy) * W + ix) * C + c], wv = w[o * K + (ky * kw + kx) * C + c];
                const double p = (double)xv * wv;
                r += p, mag += fabs(p), f = fmaf(xv, wv, f);
              }
            }
          if (clamp) r = r < -0.25 ? -0.25 : r > 0.5 ? 0.5 : r;
          if (clamp) f = f < -0.25f ? -0.25f : f > 0.5f ? 0.5f : f;
          const float got = y[((n * OH + oy) * OW + ox) * OC + o];
          const double e = fabs((double)got - r) / (mag * 4e-6 + 1e-30);
          if (e > worst) worst = e;
          /* AVX2 and AVX-512 (every tile width, edge or interior pixel)
           * give the same bits as this */
          if (fma_exact && memcmp(&got, &f, sizeof f)) worst = 1e9;
        }
  free(x), free(xc), free(w), free(wp), free(b), free(y);
  return worst;
}

TEST(conv_f32_reference) {
  static const int32_t shapes[][11] = {
      /* H, W, C, OC, kh, kw, stride, dilation, pad top, left, bottom/right */
      {29, 37, 3, 32, 3, 3, 2, 1, 0, 0, 1},
      {20, 21, 3, 32, 3, 3, 2, 1, 1, 1, 1},
      {9, 30, 3, 17, 3, 3, 1, 1, 1, 1, 1},
      {8, 27, 4, 40, 3, 3, 1, 1, 0, 2, 0},
      {10, 23, 2, 64, 5, 5, 1, 2, 3, 3, 3},
      {12, 19, 7, 8, 2, 2, 2, 1, 0, 0, 0},
      {3, 3, 1, 5, 3, 3, 1, 1, 2, 2, 2},
      {7, 40, 1, 48, 1, 7, 1, 1, 0, 3, 3},
      /* ResNet's stem, 7x7 stride 2 pad 3, on a small image (AVX2's
       * 6-pixel tiles, the last one overlapping); channel counts on and
       * off AVX2's 16-channel blocks */
      {19, 31, 3, 64, 7, 7, 2, 1, 3, 3, 3},
      {13, 26, 3, 20, 7, 7, 2, 1, 3, 3, 2},
      {11, 17, 5, 8, 3, 3, 1, 1, 1, 1, 1}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t ti = 0; ti < 3; ti++) {
    CHECK_OK(pte_threadpool_set_threads(threads[ti]));
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
      for (int mode = 0; mode < 8; mode++) {
        const int32_t *t = shapes[i];
        const int32_t pb = mode & 1 ? t[10] : 0, pr = t[10], m = mode & 3;
        const double e = conv_check(1 + (m == 3), t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9],
                                    pb, pr, m != 1, m >= 2, mode >= 4);
        CHECK(e <= 1.0, "conv %dx%dx%d->%d k%dx%d s%d d%d mode %d, %zu threads: error %.3g of its bound",
              t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], mode, threads[ti], e);
      }
  }
}

/* Chunk bounds: from 0 to every item, never decreasing, and equal columns
 * within one item's width. */
TEST(chunk_first_balances_columns) {
  static const int64_t cases[][4] = {
      {14, 2, 32, 4}, {16, 8, 32, 17}, {7, 1, 32, 5}, {1, 1, 32, 3}, {9, 3, 8, 8}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    int64_t items = cases[i][0], per = cases[i][1], unit = cases[i][2], last = cases[i][3];
    for (int64_t chunks = 1; chunks <= 5; chunks++) {
      int64_t prev = 0;
      double total = (double)(items - per) * (double)unit + (double)per * (double)last;
      CHECK(k_chunk_first(0, chunks, items, per, unit, last) == 0, "chunk 0 starts at 0");
      CHECK(k_chunk_first(chunks, chunks, items, per, unit, last) == items, "the last chunk ends at %lld",
            (long long)items);
      for (int64_t c = 1; c <= chunks; c++) {
        int64_t it = k_chunk_first(c, chunks, items, per, unit, last);
        CHECK(it >= prev && it <= items, "chunk %lld of %lld starts at %lld after %lld", (long long)c,
              (long long)chunks, (long long)it, (long long)prev);
        double cols = 0;
        for (int64_t k = prev; k < it; k++) cols += k < items - per ? (double)unit : (double)last;
        CHECK(cols <= total / (double)chunks + (double)unit, "chunk %lld of %lld: %g columns of %g",
              (long long)c, (long long)chunks, cols, total);
        prev = it;
      }
    }
  }
}

/* Products big enough to split over the pool, stack and scratch paths. */
TEST(gemm_large_parallel) {
  CHECK_OK(pte_threadpool_set_threads(3));
  for (int s = 0; s < 3; s++)
    for (int tb = 0; tb < 2; tb++) {
      gcase t = {150,  260,   270,    false, tb != 0, 1,     BIAS_COL, 1.0f,
                 1.0f, false, s == 1, s,     true,    false, s == 2};
      double e = gemm_check(&t);
      CHECK(e <= 1.0, "scratch mode %d tb %d: error %.3g of its bound", s, tb, e);
      gcase r = {3, 4000, 300, false, false, 1, BIAS_ROW, 1.0f, 1.0f, false, false, s, true, false, true};
      e = gemm_check(&r);
      CHECK(e <= 1.0, "few rows, scratch mode %d: error %.3g of its bound", s, e);
    }
}

/* B packed at load on the shapes of real layers (ViT, BERT, GPT-2, a
 * decode step's single row): M 1..256, K and N 64..4096, B as a linear's
 * transposed weight and as a [K, N] matrix, bias row fused, 1 and 3
 * threads. */
TEST(gemm_prepacked_layer_shapes) {
  static const int64_t Ms[] = {1, 3, 64, 197, 256};
  static const int64_t NK[][2] = {{64, 3072}, {768, 256}, {4096, 64}, {576, 192}, {1000, 192}};
  for (int th = 1; th <= 3; th += 2) {
    CHECK_OK(pte_threadpool_set_threads((size_t)th));
    for (size_t mi = 0; mi < sizeof Ms / sizeof *Ms; mi++)
      for (size_t s = 0; s < sizeof NK / sizeof *NK; s++)
        for (int tb = 0; tb < 2; tb++) {
          gcase t = {Ms[mi], NK[s][0], NK[s][1], false, tb != 0, 1,     BIAS_COL, 1.0f,
                     1.0f,   false,    false,    2,     true,    false, true};
          double e = gemm_check(&t);
          CHECK(e <= 1.0, "M=%lld N=%lld K=%lld tb=%d, %d threads: error %.3g of its bound", (long long)t.M,
                (long long)t.N, (long long)t.K, tb, th, e);
        }
  }
  CHECK_OK(pte_threadpool_set_threads(1));
}

/* beta == 0 must not read the bias (ATen: NaN in self does not leak). */
TEST(gemm_beta_zero_ignores_bias) {
  float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, 0, 1, 1, 1}, c[4], nanb[4];
  for (int i = 0; i < 4; i++) nanb[i] = NAN;
  for (int kind = 0; kind < 3; kind++) {
    k_sgemm_desc g = {.M = 2,
                      .N = 2,
                      .K = 3,
                      .a = a,
                      .sa0 = 3,
                      .sa1 = 1,
                      .b = b,
                      .sb0 = 2,
                      .sb1 = 1,
                      .c = c,
                      .sc0 = 2,
                      .alpha = 1.0f,
                      .beta = 0.0f};
    if (kind == 0) g.row_bias = nanb;
    if (kind == 1) g.col_bias = nanb;
    if (kind == 2) g.bias = nanb, g.sbias0 = 2, g.sbias1 = 1;
    k_sgemm(&g);
    CHECK(c[0] == 4 && c[1] == 5 && c[2] == 10 && c[3] == 11, "bias kind %d: %g %g %g %g", kind, c[0], c[1],
          c[2], c[3]);
  }
}

/* Batches with a broadcast operand equal the products one by one. */
TEST(gemm_batched_broadcast) {
  CHECK_OK(pte_threadpool_set_threads(3));
  enum { B0 = 3, B1 = 4, M = 5, N = 7, K = 6 };
  static float a[B0 * B1 * M * K], b[B1 * K * N], c[B0 * B1 * M * N], want[B0 * B1 * M * N];
  for (size_t i = 0; i < sizeof a / sizeof *a; i++) a[i] = frand();
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) b[i] = frand();
  for (int par = 0; par < 2; par++) {
    for (int i = 0; i < B0; i++)
      for (int j = 0; j < B1; j++) {
        k_sgemm_desc one = {.M = M,
                            .N = N,
                            .K = K,
                            .a = a + (i * B1 + j) * M * K,
                            .sa0 = K,
                            .sa1 = 1,
                            .b = b + j * K * N,
                            .sb0 = N,
                            .sb1 = 1,
                            .c = want + (i * B1 + j) * M * N,
                            .sc0 = N,
                            .alpha = 1.0f};
        k_sgemm(&one);
      }
    int64_t sizes[2] = {B0, B1}, sa[2] = {B1 * M * K, M * K}, sb[2] = {0, K * N}, sc[2] = {B1 * M * N, M * N};
    k_sgemm_desc g = {.M = M,
                      .N = N,
                      .K = K,
                      .a = a,
                      .sa0 = K,
                      .sa1 = 1,
                      .b = b,
                      .sb0 = N,
                      .sb1 = 1,
                      .c = c,
                      .sc0 = N,
                      .alpha = 1.0f,
                      .parallel = par != 0};
    memset(c, 0, sizeof c);
    k_sgemm_batched(&g, 2, sizes, sa, sb, sc);
    CHECK(memcmp(c, want, sizeof c) == 0, "batched (parallel %d) differs from one by one", par);
  }
}

/* Batches big enough to split, of products that do not divide evenly over
 * the threads (row bands), at 1, 2 and 3 threads against one by one. */
TEST(gemm_batched_row_bands) {
  static const int64_t shapes[][4] = {
      {3, 197, 197, 64}, {5, 40, 300, 90}, {2, 130, 64, 200}, {7, 9, 256, 300}};
  static const size_t threads[] = {1, 2, 3};
  for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
    const int64_t B = shapes[si][0], M = shapes[si][1], N = shapes[si][2], K = shapes[si][3];
    float *a = malloc(sizeof(float) * (size_t)(B * M * K)), *b = malloc(sizeof(float) * (size_t)(B * K * N));
    float *c = malloc(sizeof(float) * (size_t)(B * M * N)),
          *want = malloc(sizeof(float) * (size_t)(B * M * N));
    float *rb = malloc(sizeof(float) * (size_t)M);
    for (int64_t i = 0; i < B * M * K; i++) a[i] = frand();
    for (int64_t i = 0; i < B * K * N; i++) b[i] = frand();
    for (int64_t i = 0; i < M; i++) rb[i] = frand();
    k_sgemm_desc g = {.M = M,
                      .N = N,
                      .K = K,
                      .a = a,
                      .sa0 = K,
                      .sa1 = 1,
                      .b = b,
                      .sb0 = N,
                      .sb1 = 1,
                      .c = want,
                      .sc0 = N,
                      .alpha = 1.0f,
                      .beta = 1.0f,
                      .row_bias = rb};
    for (int64_t i = 0; i < B; i++) {
      k_sgemm_desc one = g;
      one.a += i * M * K, one.b += i * K * N, one.c += i * M * N;
      k_sgemm(&one);
    }
    int64_t sizes[1] = {B}, sa[1] = {M * K}, sb[1] = {K * N}, sc[1] = {M * N};
    for (size_t ti = 0; ti < 3; ti++) {
      CHECK_OK(pte_threadpool_set_threads(threads[ti]));
      k_sgemm_desc all = g;
      all.c = c, all.parallel = true;
      for (int64_t i = 0; i < B * M * N; i++) c[i] = NAN;
      k_sgemm_batched(&all, 1, sizes, sa, sb, sc);
      double worst = 0;
      for (int64_t i = 0; i < B * M * N; i++) {
        double e = fabs((double)c[i] - (double)want[i]) / (1e-5 * (double)K + 1e-30);
        if (!(e <= worst)) worst = e;
      }
      CHECK(worst <= 1.0, "%lldx%lldx%lldx%lld at %zu threads: error %.3g of its bound", (long long)B,
            (long long)M, (long long)N, (long long)K, threads[ti], worst);
    }
    /* With caller scratch (the delegate's batch matmul): every product
     * packs in its thread's slice, as one serial product on scratch of its
     * own does, bit for bit; scratch too small for a slice falls back to
     * the stack, within the bound. */
    size_t min = k_sgemm_scratch_min(M, N, K), bytes = k_sgemm_batched_scratch(M, N, K);
    float *scr = aligned_alloc(64, bytes), *one_scr = aligned_alloc(64, min);
    for (int64_t i = 0; i < B; i++) {
      k_sgemm_desc one = g;
      one.a += i * M * K, one.b += i * K * N, one.c += i * M * N;
      one.scratch = one_scr, one.scratch_bytes = min;
      k_sgemm(&one);
    }
    for (size_t ti = 0; ti < 3; ti++) {
      CHECK_OK(pte_threadpool_set_threads(threads[ti]));
      for (int small = 0; small < 2; small++) {
        k_sgemm_desc all = g;
        all.c = c, all.parallel = true;
        all.scratch = scr;
        all.scratch_bytes = small ? min / 2 : bytes;
        for (int64_t i = 0; i < B * M * N; i++) c[i] = NAN;
        k_sgemm_batched(&all, 1, sizes, sa, sb, sc);
        double worst = 0;
        for (int64_t i = 0; i < B * M * N; i++) {
          double e = small ? fabs((double)c[i] - (double)want[i]) / (1e-5 * (double)K + 1e-30)
                           : (c[i] == want[i] ? 0.0 : INFINITY);
          if (!(e <= worst)) worst = e;
        }
        CHECK(worst <= 1.0, "%lldx%lldx%lldx%lld at %zu threads, scratch %zu bytes: error %.3g", (long long)B,
              (long long)M, (long long)N, (long long)K, threads[ti], (size_t)all.scratch_bytes, worst);
      }
    }
    free(scr), free(one_scr);
    free(a), free(b), free(c), free(want), free(rb);
  }
}

/* ---- the parallel-for ---- */

static _Atomic int g_hits[5000];
static void count_range(void *ctx, size_t b, size_t e) {
  (void)ctx;
  for (size_t i = b; i < e; i++) atomic_fetch_add(&g_hits[i], 1);
}

TEST(parallel_for_covers_once) {
  static const size_t ns[] = {1, 2, 7, 100, 4999};
  static const double costs[] = {0, 1e3, K_PAR_MIN_OPS, 1e7};
  for (size_t threads = 1; threads <= 3; threads += 2) {
    CHECK_OK(pte_threadpool_set_threads(threads));
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
      for (size_t c = 0; c < sizeof costs / sizeof *costs; c++) {
        for (size_t k = 0; k < ns[i]; k++) atomic_store(&g_hits[k], 0);
        k_parallel_for(ns[i], costs[c], count_range, NULL);
        for (size_t k = 0; k < ns[i]; k++)
          CHECK(atomic_load(&g_hits[k]) == 1, "n=%zu cost=%g threads=%zu: index %zu ran %d times", ns[i],
                costs[c], threads, k, atomic_load(&g_hits[k]));
      }
  }
  CHECK(k_threads() == 3 && k_slots() == 3, "threads %zu slots %zu", k_threads(), k_slots());
}

/* ---- strided copies ---- */

/* Random blocks (permuted, broadcast, sliced sources; contiguous or
 * strided destinations) of every element size against an element loop. */
TEST(copies_against_element_loop) {
  CHECK_OK(pte_threadpool_set_threads(3));
  static uint8_t src[1 << 20], dst[1 << 21], want[1 << 21];
  for (size_t i = 0; i < sizeof src; i++) src[i] = (uint8_t)(i * 131 + 7);
  static const size_t sizes_es[] = {1, 2, 4, 8, 3};
  int bad = 0, runs = 0;
  for (int rep = 0; rep < 400; rep++) {
    size_t es = sizes_es[irand(5)];
    int32_t dim = 1 + (int32_t)irand(4);
    int64_t sz[4], perm[4], ss[4], ds[4], n = 1;
    for (int32_t k = 0; k < dim; k++) sz[k] = 1 + irand(rep % 3 ? 9 : 70), perm[k] = k, n *= sz[k];
    if (n * (int64_t)es * 2 > (int64_t)sizeof src) continue;
    for (int32_t k = dim - 1; k > 0; k--) { /* the source: a permutation of a contiguous block */
      int32_t j = (int32_t)irand(k + 1);
      int64_t t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
    }
    int64_t st = 1;
    for (int32_t q = dim - 1; q >= 0; q--) ss[perm[q]] = st, st *= sz[perm[q]] + (irand(4) == 0);
    if (irand(4) == 0) ss[irand(dim)] = 0; /* broadcast */
    bool strided_dst = irand(3) == 0;
    st = 1;
    for (int32_t k = dim - 1; k >= 0; k--) ds[k] = st, st *= sz[k] * (strided_dst && k == dim - 1 ? 2 : 1);
    if (st * (int64_t)es > (int64_t)sizeof dst) continue;
    memset(dst, 0xee, (size_t)st * es), memset(want, 0xee, (size_t)st * es);
    for (int64_t i = 0; i < n; i++) {
      int64_t r = i, so = 0, dof = 0;
      for (int32_t k = dim - 1; k >= 0; k--)
        so += (r % sz[k]) * ss[k], dof += (r % sz[k]) * ds[k], r /= sz[k];
      memcpy(want + dof * (int64_t)es, src + so * (int64_t)es, es);
    }
    k_copy(dst, ds, src, ss, dim, sz, es, rep % 2 == 0);
    runs++;
    if (memcmp(dst, want, (size_t)st * es) && bad++ < 3)
      fprintf(stderr, "  copy dim %d es %zu sizes %lld %lld %lld %lld differs\n", (int)dim, es,
              (long long)sz[0], (long long)(dim > 1 ? sz[1] : 0), (long long)(dim > 2 ? sz[2] : 0),
              (long long)(dim > 3 ? sz[3] : 0));
  }
  CHECK(bad == 0 && runs > 200, "%d of %d copies differ", bad, runs);
  /* a tensor copied onto itself stays itself */
  int64_t sz1[2] = {4, 5}, st1[2] = {5, 1};
  memcpy(want, src, 80);
  k_copy(src, st1, src, st1, 2, sz1, 4, false);
  CHECK(!memcmp(want, src, 80), "self copy changed the data");
}

/* ---- arguments and outputs ---- */

TEST(arguments_and_outputs) {
  CHECK(k_wrap_dim(-1, 3) == 2 && k_wrap_dim(2, 3) == 2 && k_wrap_dim(3, 3) == -1 && k_wrap_dim(-4, 3) == -1,
        "wrap_dim");
  CHECK(k_wrap_dim(0, 0) == 0 && k_wrap_dim(-1, 0) == 0 && k_wrap_dim(1, 0) == -1, "rank 0 counts as rank 1");
  pte_value vi = {.tag = PTE_TAG_INT}, vd = {.tag = PTE_TAG_DOUBLE}, vn = {.tag = PTE_TAG_NONE};
  vi.u.i = 7, vd.u.d = 2.5;
  pte_value *args[3] = {&vi, &vd, &vn};
  double d = 0;
  CHECK(k_arg_num(args, 3, 0, &d) && d == 7.0, "int as number");
  CHECK(k_arg_num(args, 3, 1, &d) && d == 2.5, "double as number");
  CHECK(!k_arg_num(args, 3, 2, &d) && !k_arg_num(args, 2, 2, &d), "None / missing are no number");
  CHECK(k_arg_none(args, 3, 2) && !k_arg_none(args, 2, 2) && !k_arg_tensor(args, 3, 0), "tags");
  int64_t sz[2] = {2, 3};
  float data[6];
  pte_tensor t;
  pte_tensor_init(&t, PTE_FLOAT32, 2, sz, data);
  CHECK(k_is_f32(&t) && k_default_order(&t), "a fresh float tensor is f32 in default order");
  t.dim_order[0] = 1, t.dim_order[1] = 0;
  CHECK(!k_is_f32(&t), "a permuted dim order is not");
}

TEST(isa_named) {
  const char *n = k_isa_name(k_isa_get());
  CHECK(!strcmp(n, "generic") || !strcmp(n, "avx2") || !strcmp(n, "avx512") || !strcmp(n, "neon"), "isa %s",
        n);
  const char *want = getenv("PTERUN_OPT_ISA");
#if defined(__aarch64__)
  /* every aarch64 Linux CPU has Advanced SIMD; another family's name is ignored */
  if (!want || strcmp(want, "generic")) CHECK(k_isa_get() == K_ISA_NEON, "neon expected, got %s", n);
#endif
  /* the override only lowers: asking for generic always gets it */
  if (want && !strcmp(want, "generic")) CHECK(k_isa_get() == K_ISA_GENERIC, "generic asked, got %s", n);
}

/* Every half widens and narrows back to itself (NaNs to a NaN); every
 * midpoint between neighbouring finite halves narrows to the even one, and
 * one float step either side of it to the nearer one. */
TEST(half_float_conversions) {
  int bad = 0;
  for (uint32_t h = 0; h < 0x10000u; h++) {
    uint16_t in = (uint16_t)h, back;
    float f;
    k_f16_to_f32(&f, &in, 1);
    k_f32_to_f16(&back, &f, 1);
    const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
    if (nan ? !(isnan(f) && (back & 0x7c00u) == 0x7c00u && (back & 0x3ffu)) : back != in) bad++;
    if ((h & 0x7fffu) >= 0x7bffu) continue; /* the largest finite half has no finite neighbour */
    uint16_t next = (uint16_t)(h + 1), got[3];
    float g, mid[3];
    k_f16_to_f32(&g, &next, 1);
    mid[1] = (float)(((double)f + (double)g) / 2);
    mid[0] = nextafterf(mid[1], f);
    mid[2] = nextafterf(mid[1], g);
    k_f32_to_f16(got, mid, 3);
    if (got[0] != in || got[2] != next || got[1] != ((in & 1u) ? next : in)) bad++;
  }
  CHECK(bad == 0, "%d halves convert wrongly", bad);
  const float big[4] = {65504.0f, 65519.0f, 65520.0f, -1e30f};
  uint16_t hb[4];
  k_f32_to_f16(hb, big, 4);
  CHECK(hb[0] == 0x7bffu && hb[1] == 0x7bffu && hb[2] == 0x7c00u && hb[3] == 0xfc00u, "overflow: %x %x %x %x",
        hb[0], hb[1], hb[2], hb[3]);
}

/* Scratch for every case (64-byte aligned, room for any pool size here). */
TEST(setup_scratch) {
  size_t bytes = k_sgemm_scratch(300, 4000, 300) + (1u << 20);
  void *p = NULL;
  CHECK(posix_memalign(&p, 64, bytes) == 0, "scratch");
  g_scratch_buf = p;
}

TEST(setup_check_step) {
  const char *step = getenv("PTERUN_TEST_CHECK_STEP");
  if (step && atoi(step) > 0) g_check_step = atoi(step);
}

TEST_MAIN(T(setup_scratch), T(setup_check_step), T(isa_named), T(gemm_serial_pool), T(gemm_two_threads),
          T(gemm_three_threads), T(gemm_narrow_last_panel), T(gemm_few_rows_wide_prepacked),
          T(gemm_a_in_place_matches_packed), T(gemm_pointwise_shapes), T(dwconv_f32_reference),
          T(conv_f32_reference), T(chunk_first_balances_columns), T(gemm_large_parallel),
          T(gemm_prepacked_layer_shapes), T(gemm_beta_zero_ignores_bias), T(gemm_batched_broadcast),
          T(gemm_batched_row_bands), T(copies_against_element_loop), T(parallel_for_covers_once),
          T(arguments_and_outputs), T(half_float_conversions))
