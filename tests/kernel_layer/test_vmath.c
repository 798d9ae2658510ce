/* The kernel layer's transcendental functions (klayer.h, vmath*.c) against
 * libm in double, on every stride-th float bit pattern (argv[1]; 1 for all
 * 2^32: about 30 min of CPU here, so ctest samples), for each instruction
 * set this CPU runs. The error is the distance in ulp (float bit patterns in order)
 * from the correctly rounded double result; each function fails above its
 * bound. Exact specials (NaN, +-inf, +-0, denormal results) follow from
 * the same comparison: NaN must give NaN, inf the same inf, and 0 is
 * ulp-distinct from the smallest denormal.
 * `test_vmath --bench`: ns per element of each function against libm's
 * float functions, in this thread's CPU time (not a test). */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "klayer.h"

/* References: libm in double, with shortcuts where the float result is
 * settled (so the whole range takes seconds, not minutes). */
static double r_exp(double x) { return x > 89 ? INFINITY : x < -104 ? 0.0 : exp(x); }
static double r_erf(double x) { return fabs(x) > 6 ? copysign(1.0, x) : erf(x); }
static double r_tanh(double x) { return fabs(x) > 10 ? copysign(1.0, x) : tanh(x); }
static double r_sigmoid(double x) { return x > 40 ? 1.0 : x < -110 ? 0.0 : 1.0 / (1.0 + exp(-x)); }
static double r_silu(double x) {
  if (isinf(x)) return x > 0 ? x : NAN; /* x/(1+e^-x) as torch computes it */
  return x > 40 ? x : x < -120 ? -0.0 : x / (1.0 + exp(-x));
}
static double r_gelu(double x) {
  if (isinf(x)) return x > 0 ? x : NAN;
  return x > 10 ? x : x < -20 ? -0.0 : 0.5 * x * erfc(-x * 0.70710678118654752440);
}
static double r_gelu_tanh(double x) {
  if (isinf(x)) return x > 0 ? x : NAN;
  if (x > 20) return x;
  if (x < -20) return -0.0;
  double u = 0.79788456080286535588 * (x + 0.044715 * x * x * x);
  return x / (1.0 + exp(-2.0 * u)); /* 0.5x(1 + tanh u) without cancellation */
}

typedef struct fn {
  const char *name;
  size_t off; /* of the array function in k_vmath_ops */
  double (*ref)(double);
  uint32_t bound; /* ulp */
} fn;

#define OFF(f) offsetof(k_vmath_ops, f)
static const fn g_fns[] = {
    {"exp", OFF(exp), r_exp, 2},
    {"erf", OFF(erf), r_erf, 3},
    {"tanh", OFF(tanh), r_tanh, 3},
    {"sigmoid", OFF(sigmoid), r_sigmoid, 4},
    {"silu", OFF(silu), r_silu, 5},
    {"gelu", OFF(gelu), r_gelu, 7},
    {"gelu_tanh", OFF(gelu_tanh), r_gelu_tanh, 5},
};
#define NFN (sizeof g_fns / sizeof g_fns[0])

static const k_isa g_isas[] = {K_ISA_GENERIC, K_ISA_AVX2, K_ISA_AVX512, K_ISA_NEON};
#define NISA 4

/* Distance in ulp between floats: bit patterns mapped to a line where
 * consecutive floats are consecutive integers (-0 and +0 both at 0). */
static int64_t ord(float f) {
  int32_t b;
  memcpy(&b, &f, sizeof b);
  return b < 0 ? -(int64_t)(b & 0x7fffffff) : (int64_t)b;
}
static uint32_t ulp_dist(float y, double ref) {
  float r = (float)ref;
  if (isnan(r) || isnan(y)) return isnan(r) && isnan(y) ? 0 : UINT32_MAX;
  int64_t d = ord(y) - ord(r);
  if (r == 0 && y == 0 && signbit(r) != signbit(y)) return UINT32_MAX; /* signed zero */
  return (uint32_t)(d < 0 ? -d : d);
}

#define BLOCK 65536
typedef struct job {
  uint64_t stride, next; /* next block (shared) */
  pthread_mutex_t mu;
  uint32_t maxu[NFN][NISA];
  float worst[NFN][NISA];
} job;

static void *worker(void *arg) {
  job *j = arg;
  float *x = malloc(BLOCK * sizeof(float)), *y = malloc(BLOCK * sizeof(float));
  double *ref = malloc(BLOCK * sizeof(double));
  uint32_t maxu[NFN][NISA] = {{0}};
  float worst[NFN][NISA] = {{0}};
  const uint64_t total = (1ull << 32) / j->stride;
  for (;;) {
    pthread_mutex_lock(&j->mu);
    uint64_t b = j->next++;
    pthread_mutex_unlock(&j->mu);
    if (b * BLOCK >= total) break;
    int64_t n = (int64_t)(total - b * BLOCK < BLOCK ? total - b * BLOCK : BLOCK);
    for (int64_t i = 0; i < n; i++) {
      uint32_t bits = (uint32_t)((b * BLOCK + (uint64_t)i) * j->stride);
      memcpy(&x[i], &bits, sizeof bits);
    }
    for (size_t f = 0; f < NFN; f++) {
      for (int64_t i = 0; i < n; i++) ref[i] = g_fns[f].ref((double)x[i]);
      for (int s = 0; s < NISA; s++) {
        const k_vmath_ops *ops = k_vmath_ops_for(g_isas[s]);
        if (!ops) continue;
        void (*fp)(const float *, float *, int64_t);
        memcpy(&fp, (const char *)ops + g_fns[f].off, sizeof fp);
        fp(x, y, n);
        for (int64_t i = 0; i < n; i++) {
          uint32_t u = ulp_dist(y[i], ref[i]);
          if (u > maxu[f][s]) maxu[f][s] = u, worst[f][s] = x[i];
        }
      }
    }
  }
  pthread_mutex_lock(&j->mu);
  for (size_t f = 0; f < NFN; f++)
    for (int s = 0; s < NISA; s++)
      if (maxu[f][s] > j->maxu[f][s]) j->maxu[f][s] = maxu[f][s], j->worst[f][s] = worst[f][s];
  pthread_mutex_unlock(&j->mu);
  free(x), free(y), free(ref);
  return NULL;
}

/* gelu_q, the form for values quantized next: within 2e-7 * (1 + |x|) of
 * gelu on a dense sweep of [-12, 12] (every tail length on the way), and
 * the special values. */
static int check_gelu_q(const k_vmath_ops *ops, const char *isa) {
  enum { N = 1 << 16 };
  static float x[N], y[N];
  int fails = 0;
  double worst = 0, at = 0;
  for (int i = 0; i < N; i++) x[i] = -12.0f + 24.0f * (float)i / (float)(N - 1);
  for (int off = 0; off < 40; off += 13) {
    ops->gelu_q(x + off, y, N - off);
    for (int i = 0; i < N - off; i++) {
      const double e = fabs((double)y[i] - r_gelu((double)x[off + i])) / (1.0 + fabs((double)x[off + i]));
      if (e > worst) worst = e, at = x[off + i];
    }
  }
  if (worst > 2e-7)
    fprintf(stderr, "FAIL %s: gelu_q error %g (relative to 1 + |x|) at %g\n", isa, worst, at), fails++;
  float s[6] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e30f}, t[6];
  ops->gelu_q(s, t, 6);
  if (!isnan(t[0]) || t[1] != INFINITY || t[2] != 0.0f || t[3] != 0.0f || t[4] != 0.0f || t[5] != 1e30f)
    fprintf(stderr, "FAIL %s: gelu_q specials %g %g %g %g %g %g\n", isa, t[0], t[1], t[2], t[3], t[4], t[5]),
        fails++;
  return fails;
}

/* gelu_tanh_fast, the form that replaces a program's chain of float ops:
 * within 2.4e-7 * (4 + |2u|) of gelu_tanh relative (plus 1e-37, where
 * 2u < -88 gives x * 0) on a dense sweep of [-12, 12] (every tail
 * length on the way), and the special values. */
static int check_gelu_tanh_fast(const k_vmath_ops *ops, const char *isa) {
  enum { N = 1 << 16 };
  static float x[N], y[N];
  int fails = 0;
  double worst = 0, at = 0;
  for (int i = 0; i < N; i++) x[i] = -12.0f + 24.0f * (float)i / (float)(N - 1);
  for (int off = 0; off < 40; off += 13) {
    ops->gelu_tanh_fast(x + off, y, N - off);
    for (int i = 0; i < N - off; i++) {
      const double xi = (double)x[off + i], ref = r_gelu_tanh(xi);
      const double v = 1.5957691216057308 * (xi + 0.044715 * xi * xi * xi);
      const double e = fabs((double)y[i] - ref) / (2.4e-7 * (4.0 + fabs(v)) * fabs(ref) + 1e-37);
      if (!(e <= worst)) worst = e, at = xi;
    }
  }
  if (!(worst <= 1.0))
    fprintf(stderr, "FAIL %s: gelu_tanh_fast error %g of its bound at %g\n", isa, worst, at), fails++;
  float s[7] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e30f, -1e30f}, t[7];
  ops->gelu_tanh_fast(s, t, 7);
  if (!isnan(t[0]) || t[1] != INFINITY || !isnan(t[2]) || t[3] != 0.0f || signbit(t[3]) || t[4] != 0.0f ||
      !signbit(t[4]) || t[5] != 1e30f || t[6] != 0.0f)
    fprintf(stderr, "FAIL %s: gelu_tanh_fast specials %g %g %g %g %g %g %g\n", isa, t[0], t[1], t[2], t[3],
            t[4], t[5], t[6]),
        fails++;
  return fails;
}

/* gelu is one formula for every x, its |x| clamped at 14.75 (results
 * denormal below x = -13.2, 0 below -14.3): every float of 12 <= |x| <=
 * 16 within the table's bound (what the sampled sweep mostly misses), and
 * the specials (NaN; -inf gives NaN as 0.5x(1 + erf) does; signed zeros;
 * the largest and smallest floats) in every lane and tail position. */
static int check_gelu(const k_vmath_ops *ops, const char *isa) {
  enum { N = 1 << 16 };
  static float x[N], y[N];
  const uint32_t bound = 7;
  int fails = 0;
  uint32_t worst = 0;
  float at = 0;
  for (int sign = 0; sign < 2; sign++) {
    float lo = 12.0f, hi = 16.0f;
    uint32_t b, e;
    memcpy(&b, &lo, 4), memcpy(&e, &hi, 4);
    for (; b <= e; b += N) {
      int n = 0;
      for (uint32_t k = b; k <= e && n < N; k++, n++) {
        uint32_t bits = k | (sign ? 0x80000000u : 0);
        memcpy(&x[n], &bits, 4);
      }
      ops->gelu(x, y, n);
      for (int i = 0; i < n; i++) {
        uint32_t u = ulp_dist(y[i], r_gelu((double)x[i]));
        if (u > worst) worst = u, at = x[i];
      }
    }
  }
  const float sp[] = {NAN,
                      INFINITY,
                      -INFINITY,
                      0.0f,
                      -0.0f,
                      FLT_MAX,
                      -FLT_MAX,
                      FLT_MIN,
                      -FLT_MIN,
                      1e-45f,
                      -1e-45f,
                      14.75f,
                      -14.75f,
                      nextafterf(14.75f, 20),
                      nextafterf(-14.75f, -20),
                      -13.2f,
                      1.0f,
                      -1.0f};
  enum { NS = sizeof sp / sizeof sp[0], L = 40 };
  for (int s = 0; s < NS; s++) {
    for (int pos = 0; pos < L; pos++) {
      float xs[L], ys[L + 1];
      for (int i = 0; i < L; i++) xs[i] = (float)i * 0.1f - 2.0f;
      xs[pos] = sp[s];
      ys[pos + 1] = 12345.0f;
      ops->gelu(xs, ys, pos + 1); /* the special last: in a tail or a full vector */
      uint32_t u = ulp_dist(ys[pos], r_gelu((double)sp[s]));
      if (u > worst) worst = u, at = sp[s];
      if (ys[pos + 1] != 12345.0f) fprintf(stderr, "FAIL %s: gelu wrote past n=%d\n", isa, pos + 1), fails++;
    }
  }
  if (worst > bound)
    fprintf(stderr, "FAIL %s: gelu %u ulp > %u at %a\n", isa, worst, bound, (double)at), fails++;
  return fails;
}

/* exp_sum's two scalings (one step where a vector's every lane is in
 * range, two where one is not: denormal and zero results, -inf, NaN) and
 * its tail (missing lanes compute e^0 and add 0): every length to 70, the
 * out-of-range values in every lane and tail position; each element
 * within 3 ulp, the sum within 1e-6 of a double loop, nothing written past
 * n, and each lane's value independent of its neighbours. */
static int check_exp_sum(const k_vmath_ops *ops, const char *isa) {
  enum { L = 70 };
  static const float odd[] = {-95.0f, -100.5f, -103.9f, -104.5f, -120.0f, -INFINITY, -87.5f, -87.2f, 0.0f};
  enum { NO = sizeof odd / sizeof odd[0] };
  int fails = 0;
  for (int n = 1; n <= L; n++) {
    for (int pos = 0; pos < n; pos++) {
      float x[L], y[L + 1], z[L + 1];
      for (int i = 0; i < n; i++) x[i] = (float)((i * 37) % 23) * -0.31f + 0.5f;
      const float shift = 0.5f; /* the row's max */
      ops->exp_sum(x, z, n, shift);
      x[pos] = shift + odd[(n + pos) % NO];
      y[n] = 12345.0f;
      float sum = ops->exp_sum(x, y, n, shift);
      double want = 0;
      for (int i = 0; i < n; i++) {
        float e = (float)exp((double)x[i] - shift);
        want += exp((double)x[i] - shift);
        if (ulp_dist(y[i], e) > 3) {
          fprintf(stderr, "FAIL %s: exp_sum n=%d e^%g = %g, want %g\n", isa, n, (double)x[i] - shift, y[i],
                  e);
          fails++;
        }
        if (i != pos && memcmp(&y[i], &z[i], sizeof y[i])) {
          fprintf(stderr, "FAIL %s: exp_sum n=%d lane %d changes with lane %d\n", isa, n, i, pos);
          fails++;
        }
      }
      /* (plus the denormal terms' rounding, where they are all there is) */
      if (fabs(sum - want) > 1e-6 * want + n * 0x1p-149)
        fprintf(stderr, "FAIL %s: exp_sum n=%d %g vs %g\n", isa, n, sum, want), fails++;
      if (y[n] != 12345.0f) fprintf(stderr, "FAIL %s: exp_sum wrote past n=%d\n", isa, n), fails++;
    }
  }
  /* a NaN gives NaN (and a NaN sum), -inf everywhere 0 */
  float x[21], y[21];
  for (int i = 0; i < 21; i++) x[i] = -INFINITY;
  if (ops->exp_sum(x, y, 21, 0.0f) != 0.0f || y[20] != 0.0f)
    fprintf(stderr, "FAIL %s: exp_sum -inf\n", isa), fails++;
  x[19] = NAN;
  if (!isnan(ops->exp_sum(x, y, 21, 0.0f)) || !isnan(y[19]) || y[18] != 0.0f)
    fprintf(stderr, "FAIL %s: exp_sum NaN\n", isa), fails++;
  return fails;
}

/* max: every length to 150 (four accumulators, then single vectors, then
 * the tail), the largest value at every position, NaN beside it. */
static int check_max(const k_vmath_ops *ops, const char *isa) {
  enum { L = 150 };
  float x[L];
  int fails = 0;
  for (int n = 1; n <= L; n++) {
    for (int pos = 0; pos < n; pos++) {
      for (int i = 0; i < n; i++) x[i] = (float)((i * 53) % 97) * 0.01f - 3.0f;
      x[pos] = 5.0f;
      if (pos + 1 < n) x[pos + 1] = NAN;
      if (ops->max(x, n) != 5.0f) fprintf(stderr, "FAIL %s: max n=%d at %d\n", isa, n, pos), fails++;
    }
    for (int i = 0; i < n; i++) x[i] = i % 2 ? NAN : -INFINITY;
    if (ops->max(x, n) != -INFINITY) fprintf(stderr, "FAIL %s: max of -inf and NaN n=%d\n", isa, n), fails++;
  }
  return fails;
}

/* In-place use, the tails, and the softmax sum against a double loop. */
static int check_arrays(const k_vmath_ops *ops, const char *isa) {
  int fails = check_gelu_q(ops, isa) + check_gelu_tanh_fast(ops, isa) + check_gelu(ops, isa) +
              check_exp_sum(ops, isa) + check_max(ops, isa);
  float x[37], y[37], z[37];
  for (int n = 0; n <= 37; n++) {
    for (int i = 0; i < n; i++) x[i] = (float)(i * 7 % 11) * 0.37f - 2.0f;
    memcpy(z, x, sizeof x);
    ops->tanh(x, y, n);
    ops->tanh(z, z, n);
    if (memcmp(y, z, (size_t)n * sizeof(float)))
      fprintf(stderr, "FAIL %s: tanh in place, n=%d\n", isa, n), fails++;
    float mx = -INFINITY;
    for (int i = 0; i < n; i++) mx = x[i] > mx ? x[i] : mx;
    if (ops->max(x, n) != mx) fprintf(stderr, "FAIL %s: max n=%d\n", isa, n), fails++;
    if (n > 2) { /* NaN skipped, wherever it is */
      float t = x[n / 2];
      x[n / 2] = NAN;
      float mn = -INFINITY;
      for (int i = 0; i < n; i++) mn = x[i] > mn ? x[i] : mn;
      if (ops->max(x, n) != mn) fprintf(stderr, "FAIL %s: max with NaN n=%d\n", isa, n), fails++;
      x[n / 2] = t;
    }
    float m = 1.5f;
    double want = 0;
    for (int i = 0; i < n; i++) want += exp((double)x[i] - m);
    float sum = ops->exp_sum(x, y, n, m);
    ops->exp(x, z, n);
    for (int i = 0; i < n; i++) {
      float e = (float)exp((double)x[i] - m);
      if (ulp_dist(y[i], e) > 3) fprintf(stderr, "FAIL %s: exp_sum y[%d]\n", isa, i), fails++;
    }
    if (fabs(sum - want) > 1e-6 * want)
      fprintf(stderr, "FAIL %s: exp_sum n=%d %g vs %g\n", isa, n, sum, want), fails++;
    /* scaled: bit for bit the multiply, then exp_sum (-inf and NaN lanes
     * too); mulc as the plain loop */
    float xs[37], ys[37], ws[37];
    for (int i = 0; i < n; i++) xs[i] = i % 9 == 4 ? -INFINITY : i % 13 == 6 ? NAN : x[i] * 3.0f - 1.0f;
    for (int i = 0; i < n; i++) ws[i] = xs[i] * 0.125f;
    float want_s = ops->exp_sum(ws, z, n, 0.25f), got_s = ops->exp_sum_scaled(xs, ys, n, 0.125f, 0.25f);
    if (memcmp(&want_s, &got_s, sizeof got_s) || memcmp(ys, z, (size_t)n * sizeof(float)))
      fprintf(stderr, "FAIL %s: exp_sum_scaled n=%d %g vs %g\n", isa, n, got_s, want_s), fails++;
    for (int i = 0; i < n; i++) ws[i] = ys[i] * 0.3f;
    ops->mulc(ys, n, 0.3f);
    if (memcmp(ys, ws, (size_t)n * sizeof(float))) fprintf(stderr, "FAIL %s: mulc n=%d\n", isa, n), fails++;
  }
  return fails;
}

/* libm per element, as the kernels called it before */
static void l_exp(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = expf(x[i]);
}
static void l_erf(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = erff(x[i]);
}
static void l_tanh(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = tanhf(x[i]);
}
static void l_sigmoid(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = 1.0f / (1.0f + expf(-x[i]));
}
static void l_silu(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i] / (1.0f + expf(-x[i]));
}
static void l_gelu(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) y[i] = x[i] * 0.5f * (1.0f + erff(x[i] * 0.70710678f));
}
static void l_gelu_tanh(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
  }
}
static float l_exp_sum(const float *x, float *y, int64_t n, float shift) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += y[i] = expf(x[i] - shift);
  return (float)s;
}

typedef void (*arr_fn)(const float *, float *, int64_t);
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
/* best of 5 runs of 200 calls on 4096 elements, ns per element */
static double bench_one(arr_fn f, float (*fs)(const float *, float *, int64_t, float), const float *x,
                        float *y) {
  double best = 1e30;
  for (int r = 0; r < 5; r++) {
    double t0 = cpu_now();
    for (int k = 0; k < 200; k++)
      if (f) f(x, y, 4096);
      else fs(x, y, 4096, 3.0f);
    double d = (cpu_now() - t0) / (200.0 * 4096) * 1e9;
    best = d < best ? d : best;
  }
  return best;
}
static int bench(void) {
  static float x[4096], y[4096];
  for (int i = 0; i < 4096; i++) x[i] = (float)((i * 2654435761u) % 100000u) / 100000.0f * 12.0f - 6.0f;
  static const arr_fn lib[] = {l_exp, l_erf, l_tanh, l_sigmoid, l_silu, l_gelu, l_gelu_tanh};
  printf("ns per element, thread CPU time, x in [-6, 6]\n%-10s %8s", "", "libm");
  for (int s = NISA - 1; s >= 0; s--)
    if (k_vmath_ops_for(g_isas[s])) printf(" %8s", k_isa_name(g_isas[s]));
  printf("\n");
  for (size_t f = 0; f <= NFN; f++) {
    printf("%-10s %8.2f", f < NFN ? g_fns[f].name : "exp_sum",
           bench_one(f < NFN ? lib[f] : NULL, l_exp_sum, x, y));
    for (int s = NISA - 1; s >= 0; s--) {
      const k_vmath_ops *ops = k_vmath_ops_for(g_isas[s]);
      if (!ops) continue;
      arr_fn fp = NULL;
      if (f < NFN) memcpy(&fp, (const char *)ops + g_fns[f].off, sizeof fp);
      printf(" %8.2f", bench_one(fp, ops->exp_sum, x, y));
    }
    printf("\n");
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--bench")) return bench();
  job j = {.stride = argc > 1 ? strtoull(argv[1], NULL, 10) : 1};
  if (!j.stride) j.stride = 1;
  pthread_mutex_init(&j.mu, NULL);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t th[2];
  for (int t = 0; t < 2; t++) pthread_create(&th[t], NULL, worker, &j);
  for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  int fails = 0;
  printf("every %llu-th float of 2^32 (%.1f s); max error in ulp (at input)\n", (unsigned long long)j.stride,
         (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
  for (int s = 0; s < NISA; s++) {
    const k_vmath_ops *ops = k_vmath_ops_for(g_isas[s]);
    if (!ops) continue;
    const char *isa = k_isa_name(g_isas[s]);
    printf("%-8s", isa);
    for (size_t f = 0; f < NFN; f++) {
      printf(" %s %u (%g)", g_fns[f].name, j.maxu[f][s], (double)j.worst[f][s]);
      if (j.maxu[f][s] > g_fns[f].bound)
        fprintf(stderr, "\nFAIL %s %s: %u ulp > %u at %a\n", isa, g_fns[f].name, j.maxu[f][s], g_fns[f].bound,
                (double)j.worst[f][s]),
            fails++;
    }
    printf("\n");
    fails += check_arrays(ops, isa);
  }
  /* The dispatching entry points use the chosen set. */
  float x[5] = {-1, 0, 0.5f, 3, -INFINITY}, y[5], z[5];
  k_vexp(x, y, 5);
  k_vmath_ops_for(k_isa_get())->exp(x, z, 5);
  if (memcmp(y, z, sizeof y)) fprintf(stderr, "FAIL: k_vexp is not the chosen set's\n"), fails++;
  if (fails) return 1;
  printf("vmath: ok\n");
  return 0;
}
