/* kernels_optimized against kernels_portable: every optimized kernel runs on
 * random shapes (odd sizes, edges, broadcasting patterns, strided views
 * through permutes and slices, NaN and infinities) next to the portable
 * kernel on the same inputs, with the pool at 1 and 3 threads, and the
 * results must agree (GEMM/conv/normalization within 1e-4 relative, the
 * elementwise ops within 1e-6, pooling indices exactly). Cases the library
 * must decline (other dtypes, transposed convolution, layouts) must resolve
 * to the portable kernel.
 *
 * Kernels are called directly: a zeroed pte_method carries the scratch the
 * kernel asked for (filled with NaN first, so reading scratch before
 * writing it shows up). ctest runs this once per instruction set
 * (PTERUN_OPT_ISA). */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_optimized.h>
#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "method.h"

/* The portable kernels compiled into this test (their table, as the
 * portable library's register.c builds it). */
#define K(fn) extern const pte_kernel pte_portable_kernel_##fn;
#include "portable_kernels.inc"
#undef K
static const pte_kernel *const g_portable[] = {
#define K(fn) &pte_portable_kernel_##fn,
#include "portable_kernels.inc"
#undef K
};

static const pte_kernel *portable(const char *name) {
  for (size_t i = 0; i < sizeof g_portable / sizeof g_portable[0]; i++)
    if (!strcmp(g_portable[i]->name, name)) return g_portable[i];
  return NULL;
}

static int g_failures, g_checked;
static char g_case[256];

#define FAIL(...)                           \
  do {                                      \
    fprintf(stderr, "FAIL [%s]: ", g_case); \
    fprintf(stderr, __VA_ARGS__);           \
    fputc('\n', stderr);                    \
    g_failures++;                           \
  } while (0)

/* ---- random numbers ---- */

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (uint32_t)(g_rng >> 16);
}
static int64_t ri(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint32_t)(hi - lo + 1)); }
static float rf(void) { return (float)(rnd() % 2000001) / 1000000.0f - 1.0f; }
static int64_t pick(const int64_t *v, int n) { return v[rnd() % (uint32_t)n]; }
#define PICK(...) \
  pick((const int64_t[]){__VA_ARGS__}, (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

/* ---- tensors (freed at the end of each case) ---- */

#define MAX_OWNED 64
static void *g_owned[MAX_OWNED];
static int g_nowned;
static void *own(void *p) {
  if (g_nowned < MAX_OWNED) g_owned[g_nowned++] = p;
  return p;
}
static void free_owned(void) {
  for (int i = 0; i < g_nowned; i++) free(g_owned[i]);
  g_nowned = 0;
}

/* A contiguous tensor with random contents; `special` sprinkles NaN/inf in float32 data. */
static pte_tensor *mk(int32_t dtype, int32_t dim, const int64_t *sizes, bool special) {
  pte_tensor *t = own(calloc(1, sizeof *t));
  pte_tensor_init(t, dtype, dim, sizes, NULL);
  size_t n = (size_t)pte_tensor_numel(t), es = pte_dtype_size(dtype);
  t->data = own(calloc(n ? n : 1, es));
  t->capacity = n * es;
  for (size_t i = 0; i < n; i++) {
    switch (dtype) {
      case PTE_FLOAT32: {
        float v = rf();
        if (special && rnd() % 23 == 0) v = rnd() % 3 == 0 ? NAN : rnd() % 2 ? INFINITY : -INFINITY;
        ((float *)t->data)[i] = v;
        break;
      }
      case PTE_FLOAT64: ((double *)t->data)[i] = rf(); break;
      case PTE_INT64: ((int64_t *)t->data)[i] = ri(-50, 50); break;
      case PTE_INT32: ((int32_t *)t->data)[i] = (int32_t)ri(-50, 50); break;
      case PTE_UINT8:
      case PTE_BOOL: ((uint8_t *)t->data)[i] = (uint8_t)ri(0, dtype == PTE_BOOL ? 1 : 255); break;
      case PTE_FLOAT16: ((uint16_t *)t->data)[i] = (uint16_t)(0x3000 + ri(0, 0x1000)); break;
      default: break;
    }
  }
  return t;
}
#define MK(dtype, ...)                                                           \
  mk(dtype, (int32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
     (const int64_t[]){__VA_ARGS__}, false)

/* An output both kernels may reshape freely. */
static pte_tensor *mk_out(int32_t dtype, size_t elems) {
  int64_t zero = 0;
  pte_tensor *t = own(calloc(1, sizeof *t));
  pte_tensor_init(t, dtype, 1, &zero, NULL);
  t->data = own(calloc(elems ? elems : 1, pte_dtype_size(dtype)));
  t->capacity = elems * pte_dtype_size(dtype);
  t->dynamism = PTE_SHAPE_DYNAMIC_UNBOUND;
  return t;
}

/* ---- argument lists ---- */

typedef struct call {
  pte_value v[24];
  pte_value *p[24];
  int32_t n;
  pte_value items[96];
  pte_value *itemp[96];
  int32_t nitems;
} call;

static pte_value *push(call *c) {
  pte_value *v = &c->v[c->n];
  memset(v, 0, sizeof *v);
  c->p[c->n++] = v;
  return v;
}
static void a_t(call *c, pte_tensor *t) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
}
static void a_i(call *c, int64_t i) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_INT;
  v->u.i = i;
}
static void a_d(call *c, double d) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_DOUBLE;
  v->u.d = d;
}
static void a_b(call *c, bool b) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_BOOL;
  v->u.b = b;
}
static void a_none(call *c) { push(c)->tag = PTE_TAG_NONE; }
static void a_str(call *c, const char *s) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_STRING;
  v->u.str = s;
  v->len = (int32_t)strlen(s);
}
static void a_ints(call *c, int32_t n, const int64_t *xs) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_INT_LIST;
  v->len = n;
  v->u.items = &c->itemp[c->nitems];
  for (int32_t i = 0; i < n; i++) {
    pte_value *it = &c->items[c->nitems];
    memset(it, 0, sizeof *it);
    it->tag = PTE_TAG_INT;
    it->u.i = xs[i];
    c->itemp[c->nitems++] = it;
  }
}
#define A_INTS(c, ...)                                                           \
  a_ints(c, (int32_t)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
         (const int64_t[]){__VA_ARGS__})
static void a_tensors(call *c, int32_t n, pte_tensor *const *ts) {
  pte_value *v = push(c);
  v->tag = PTE_TAG_TENSOR_LIST;
  v->len = n;
  v->u.items = &c->itemp[c->nitems];
  for (int32_t i = 0; i < n; i++) {
    pte_value *it = &c->items[c->nitems];
    memset(it, 0, sizeof *it);
    it->tag = PTE_TAG_TENSOR;
    it->u.tensor = ts[i];
    c->itemp[c->nitems++] = it;
  }
}

/* ---- running a pair ---- */

typedef struct outs {
  pte_tensor *opt[3], *ref[3];
  int n;
} outs;

static pte_status call_kernel(const char *name, const pte_kernel *k, call *c) {
  size_t bytes = k->scratch_size ? k->scratch_size(c->p, c->n) : 0;
  void *scratch = bytes ? malloc(bytes) : NULL;
  if (scratch) memset(scratch, 0xff, bytes); /* NaN everywhere */
  pte_method *m = calloc(1, sizeof *m);
  m->scratch = scratch;
  m->scratch_size = bytes;
  pte_kernel_ctx ctx = {m, name, NULL};
  pte_status st = k->fn(&ctx, c->p, c->n);
  free(m);
  free(scratch);
  return st;
}

static bool close_enough(const pte_tensor *a, const pte_tensor *b, double rtol, double atol,
                         const char *what) {
  if (a->dtype != b->dtype || a->dim != b->dim) {
    FAIL("%s: dtype/rank %d/%d vs %d/%d", what, a->dtype, a->dim, b->dtype, b->dim);
    return false;
  }
  for (int32_t i = 0; i < a->dim; i++)
    if (a->sizes[i] != b->sizes[i]) {
      FAIL("%s: size[%d] %lld vs %lld", what, (int)i, (long long)a->sizes[i], (long long)b->sizes[i]);
      return false;
    }
  int64_t n = pte_tensor_numel(a);
  size_t es = pte_dtype_size(a->dtype);
  for (int64_t i = 0; i < n; i++) {
    if (a->dtype == PTE_FLOAT32) {
      double x = ((const float *)a->data)[i], y = ((const float *)b->data)[i];
      if (isnan(x) && isnan(y)) continue;
      if (isinf(x) || isinf(y)) {
        if (x == y) continue;
      } else if (fabs(x - y) <= atol + rtol * fabs(y)) {
        continue;
      }
      FAIL("%s: element %lld: optimized %.9g, portable %.9g", what, (long long)i, x, y);
      return false;
    }
    if (memcmp((const uint8_t *)a->data + i * (int64_t)es, (const uint8_t *)b->data + i * (int64_t)es, es)) {
      if (a->dtype == PTE_INT64)
        FAIL("%s: element %lld: optimized %lld, portable %lld", what, (long long)i,
             (long long)((const int64_t *)a->data)[i], (long long)((const int64_t *)b->data)[i]);
      else FAIL("%s: element %lld differs", what, (long long)i);
      return false;
    }
  }
  return true;
}

/* Run `name` on co (optimized) and cp (portable), which hold the same
 * inputs and separate outputs. expect_opt: whether the optimized library
 * must take these arguments. */
static bool g_reshape_ref; /* compare by elements when the reference op shapes differently */

static void run_pair_ref(const char *name, const char *ref_name, call *co, call *cp, const outs *o,
                         bool expect_opt, double rtol, double atol) {
  const char *lib = NULL;
  const pte_kernel *ko = pte_operator_find(name, &lib);
  const pte_kernel *kp = portable(ref_name);
  g_checked++;
  if (!ko || strcmp(lib, "kernels_optimized") || !kp) {
    FAIL("%s: optimized %s, portable %s", name, ko ? lib : "missing", kp ? "found" : "missing");
    return;
  }
  bool accepted = !ko->accepts || ko->accepts(co->p, co->n);
  if (accepted != expect_opt) {
    FAIL("%s: the optimized kernel %s these arguments", name, accepted ? "accepts" : "declines");
    return;
  }
  if (!expect_opt) return;
  pte_status so = call_kernel(name, ko, co);
  char msg[512];
  snprintf(msg, sizeof msg, "%s", pte_last_error());
  pte_status sp = call_kernel(ref_name, kp, cp);
  if (so != sp) {
    FAIL("%s: optimized %s (%s), portable %s (%s)", name, pte_status_name(so), msg, pte_status_name(sp),
         pte_last_error());
    return;
  }
  if (so) {
    FAIL("%s: both kernels refused the case: %s", name, msg);
    return;
  }
  for (int i = 0; i < o->n; i++) {
    if (g_reshape_ref && pte_tensor_numel(o->opt[i]) == pte_tensor_numel(o->ref[i])) {
      o->ref[i]->dim = o->opt[i]->dim;
      memcpy(o->ref[i]->sizes, o->opt[i]->sizes, sizeof o->ref[i]->sizes);
    }
    close_enough(o->opt[i], o->ref[i], rtol, atol, name);
  }
}

static void run_pair(const char *name, call *co, call *cp, const outs *o, bool expect_opt, double rtol,
                     double atol) {
  run_pair_ref(name, name, co, cp, o, expect_opt, rtol, atol);
}

/* Both argument lists get the same inputs; OUT adds a fresh output to each. */
typedef struct pair {
  call o, p;
  outs outs;
} pair;

static void both_t(pair *q, pte_tensor *t) { a_t(&q->o, t), a_t(&q->p, t); }
static void both_i(pair *q, int64_t i) { a_i(&q->o, i), a_i(&q->p, i); }
static void both_d(pair *q, double d) { a_d(&q->o, d), a_d(&q->p, d); }
static void both_b(pair *q, bool b) { a_b(&q->o, b), a_b(&q->p, b); }
static void both_none(pair *q) { a_none(&q->o), a_none(&q->p); }
static void both_str(pair *q, const char *s) { a_str(&q->o, s), a_str(&q->p, s); }
static void both_ints(pair *q, int32_t n, const int64_t *xs) { a_ints(&q->o, n, xs), a_ints(&q->p, n, xs); }
static void both_tensors(pair *q, int32_t n, pte_tensor *const *ts) {
  a_tensors(&q->o, n, ts), a_tensors(&q->p, n, ts);
}
static void both_out(pair *q, int32_t dtype, size_t elems) {
  pte_tensor *a = mk_out(dtype, elems), *b = mk_out(dtype, elems);
  a_t(&q->o, a), a_t(&q->p, b);
  q->outs.opt[q->outs.n] = a;
  q->outs.ref[q->outs.n++] = b;
}
/* The trailing return value: the (first) out again. */
static void both_ret(pair *q) {
  if (q->outs.n == 1) {
    a_t(&q->o, q->outs.opt[0]), a_t(&q->p, q->outs.ref[0]);
  } else {
    both_none(q);
  }
}
static void pair_init(pair *q) { memset(q, 0, sizeof *q); }

/* ---- matrix products ---- */

static void test_mm(void) {
  for (int it = 0; it < 60; it++) {
    int64_t M = PICK(1, 2, 3, 7, 8, 9, 16, 17, 31, 33, 64, 100, 270), K = PICK(1, 3, 8, 17, 32, 64, 100, 300),
            N = PICK(1, 2, 5, 10, 16, 24, 31, 32, 33, 65, 96, 130);
    snprintf(g_case, sizeof g_case, "mm %lldx%lldx%lld", (long long)M, (long long)K, (long long)N);
    pair q;
    pair_init(&q);
    both_t(&q, MK(PTE_FLOAT32, M, K));
    both_t(&q, MK(PTE_FLOAT32, K, N));
    both_out(&q, PTE_FLOAT32, (size_t)(M * N));
    both_ret(&q);
    run_pair("aten::mm.out", &q.o, &q.p, &q.outs, true, 1e-4, 1e-5);
    free_owned();
  }
  /* float64 is declined */
  snprintf(g_case, sizeof g_case, "mm f64 declined");
  pair q;
  pair_init(&q);
  both_t(&q, MK(PTE_FLOAT64, 3, 4));
  both_t(&q, MK(PTE_FLOAT64, 4, 5));
  both_out(&q, PTE_FLOAT64, 15);
  both_ret(&q);
  run_pair("aten::mm.out", &q.o, &q.p, &q.outs, false, 0, 0);
  free_owned();
}

static void test_addmm(void) {
  for (int it = 0; it < 60; it++) {
    int64_t M = PICK(1, 3, 4, 8, 13, 40, 260), K = PICK(1, 5, 32, 64, 257), N = PICK(1, 3, 10, 32, 47);
    int form = (int)ri(0, 5);
    double beta = (double)PICK(1, 1, 0, 2) / (form == 5 ? 2 : 1), alpha = (double)PICK(1, 1, 3);
    snprintf(g_case, sizeof g_case, "addmm %lldx%lldx%lld bias form %d beta %g alpha %g", (long long)M,
             (long long)K, (long long)N, form, beta, alpha);
    pte_tensor *self;
    switch (form) {
      case 0: self = MK(PTE_FLOAT32, N); break;
      case 1: self = MK(PTE_FLOAT32, 1, N); break;
      case 2: self = MK(PTE_FLOAT32, M, 1); break;
      case 3: self = MK(PTE_FLOAT32, M, N); break;
      case 4: self = MK(PTE_FLOAT32, 1); break;
      default: self = mk(PTE_FLOAT32, 0, NULL, false); break;
    }
    pair q;
    pair_init(&q);
    both_t(&q, self);
    both_t(&q, MK(PTE_FLOAT32, M, K));
    both_t(&q, MK(PTE_FLOAT32, K, N));
    both_d(&q, beta);
    if (alpha == 1.0) both_i(&q, 1);
    else both_d(&q, alpha);
    both_out(&q, PTE_FLOAT32, (size_t)(M * N));
    both_ret(&q);
    run_pair("aten::addmm.out", &q.o, &q.p, &q.outs, true, 1e-4, 1e-5);
    free_owned();
  }
}

static void test_bmm_linear(void) {
  for (int it = 0; it < 30; it++) {
    int64_t B = PICK(1, 2, 5, 8), M = PICK(1, 3, 8, 17, 64), K = PICK(1, 8, 33, 100), N = PICK(2, 8, 31, 70);
    snprintf(g_case, sizeof g_case, "bmm %lldx%lldx%lldx%lld", (long long)B, (long long)M, (long long)K,
             (long long)N);
    pair q;
    pair_init(&q);
    both_t(&q, MK(PTE_FLOAT32, B, M, K));
    both_t(&q, MK(PTE_FLOAT32, B, K, N));
    both_out(&q, PTE_FLOAT32, (size_t)(B * M * N));
    both_ret(&q);
    run_pair("aten::bmm.out", &q.o, &q.p, &q.outs, true, 1e-4, 1e-5);
    free_owned();
  }
  /* Big enough to split over the pool: products that divide evenly over
   * the threads or not (row bands), bands of unequal height, heads of 1 row. */
  static const int64_t split[][4] = {{3, 197, 64, 197}, {3, 197, 197, 64}, {4, 128, 64, 128},
                                     {5, 33, 40, 300},  {2, 300, 64, 70},  {7, 1, 1024, 256},
                                     {3, 20, 300, 90}};
  for (size_t it = 0; it < sizeof split / sizeof split[0]; it++) {
    int64_t B = split[it][0], M = split[it][1], K = split[it][2], N = split[it][3];
    snprintf(g_case, sizeof g_case, "bmm split %lldx%lldx%lldx%lld", (long long)B, (long long)M, (long long)K,
             (long long)N);
    pair q;
    pair_init(&q);
    both_t(&q, MK(PTE_FLOAT32, B, M, K));
    both_t(&q, MK(PTE_FLOAT32, B, K, N));
    both_out(&q, PTE_FLOAT32, (size_t)(B * M * N));
    both_ret(&q);
    run_pair("aten::bmm.out", &q.o, &q.p, &q.outs, true, 1e-4, 1e-5);
    free_owned();
  }
  /* linear has no portable kernel (exports decompose it): its reference is
   * the portable addmm (or mm) on the transposed weight */
  for (int it = 0; it < 30; it++) {
    int64_t B = PICK(1, 2, 3), T = PICK(1, 5, 16), K = PICK(1, 7, 32, 300), N = PICK(1, 10, 33, 64);
    bool three = rnd() % 2, bias = rnd() % 3 != 0;
    snprintf(g_case, sizeof g_case, "linear %s K %lld N %lld bias %d", three ? "3d" : "2d", (long long)K,
             (long long)N, bias);
    int64_t M = three ? B * T : T;
    pte_tensor *x = three ? MK(PTE_FLOAT32, B, T, K) : MK(PTE_FLOAT32, T, K), *w = MK(PTE_FLOAT32, N, K);
    pte_tensor *b = bias ? MK(PTE_FLOAT32, N) : NULL;
    pte_tensor *x2 = own(calloc(1, sizeof *x2)), *wt = MK(PTE_FLOAT32, K, N);
    pte_tensor_init(x2, PTE_FLOAT32, 2, (const int64_t[]){M, K}, x->data);
    for (int64_t n = 0; n < N; n++)
      for (int64_t k = 0; k < K; k++) ((float *)wt->data)[k * N + n] = ((const float *)w->data)[n * K + k];
    pair q;
    pair_init(&q);
    a_t(&q.o, x), a_t(&q.o, w);
    if (b) a_t(&q.o, b);
    else a_none(&q.o);
    if (b) {
      a_t(&q.p, b), a_t(&q.p, x2), a_t(&q.p, wt), a_i(&q.p, 1), a_i(&q.p, 1);
    } else {
      a_t(&q.p, x2), a_t(&q.p, wt);
    }
    both_out(&q, PTE_FLOAT32, (size_t)(M * N));
    both_ret(&q);
    g_reshape_ref = true;
    run_pair_ref("aten::linear.out", b ? "aten::addmm.out" : "aten::mm.out", &q.o, &q.p, &q.outs, true, 1e-4,
                 1e-5);
    g_reshape_ref = false;
    free_owned();
  }
}

/* ---- convolution ---- */

static void conv_case_tol(int32_t S, int64_t N, int64_t C, int64_t OC, int64_t G, int64_t H, int64_t W,
                          int64_t KH, int64_t KW, int64_t s, int64_t p, int64_t d, bool bias, bool transposed,
                          bool expect, double atol) {
  int64_t eh = S == 2 ? H + 2 * p - d * (KH - 1) - 1 : 0, ew = W + 2 * p - d * (KW - 1) - 1;
  if (eh < 0 || ew < 0) return; /* both kernels refuse; the declines are not what this checks */
  int64_t OH = eh / s + 1, OW = ew / s + 1;
  snprintf(g_case, sizeof g_case,
           "conv%dd N%lld C%lld OC%lld G%lld %lldx%lld k%lldx%lld s%lld p%lld d%lld bias %d", (int)S,
           (long long)N, (long long)C, (long long)OC, (long long)G, (long long)H, (long long)W, (long long)KH,
           (long long)KW, (long long)s, (long long)p, (long long)d, bias);
  pair q;
  pair_init(&q);
  if (S == 2) {
    both_t(&q, MK(PTE_FLOAT32, N, C, H, W));
    both_t(&q, MK(PTE_FLOAT32, OC, C / G, KH, KW));
  } else {
    both_t(&q, MK(PTE_FLOAT32, N, C, W));
    both_t(&q, MK(PTE_FLOAT32, OC, C / G, KW));
  }
  if (bias) both_t(&q, MK(PTE_FLOAT32, OC));
  else both_none(&q);
  int64_t sv[2] = {s, s}, pv[2] = {p, p}, dv[2] = {d, d}, zero[2] = {0, 0};
  both_ints(&q, S, sv);
  both_ints(&q, rnd() % 2 ? S : 1, pv);
  both_ints(&q, S, dv);
  both_b(&q, transposed);
  both_ints(&q, S, zero);
  both_i(&q, G);
  both_out(&q, PTE_FLOAT32, (size_t)(N * OC * OH * OW) + (transposed ? 100000 : 0));
  both_ret(&q);
  run_pair("aten::convolution.out", &q.o, &q.p, &q.outs, expect, 1e-4, atol);
  free_owned();
}

/* 3x3 stride-1 kernels of one group may run by Winograd (when the map has
 * enough tiles), less exact than direct: its F(4x4) error grows like the
 * square root of the 9C terms (2.5e-6 sqrt(9C) seen with inputs in
 * [-1, 1]). Such shapes run twice: direct (PTERUN_CONV_WINOGRAD=0) at the
 * tolerance of the other convolutions, then as chosen at ~6x the error
 * seen. */
static void conv_case(int32_t S, int64_t N, int64_t C, int64_t OC, int64_t G, int64_t H, int64_t W,
                      int64_t KH, int64_t KW, int64_t s, int64_t p, int64_t d, bool bias, bool transposed,
                      bool expect) {
  const bool w3 = S == 2 && KH == 3 && KW == 3 && s == 1 && d == 1 && G == 1 && !transposed;
  if (!w3) {
    conv_case_tol(S, N, C, OC, G, H, W, KH, KW, s, p, d, bias, transposed, expect, 1e-5);
    return;
  }
  const char *was = getenv("PTERUN_CONV_WINOGRAD");
  char saved[16] = "";
  if (was) snprintf(saved, sizeof saved, "%s", was);
  setenv("PTERUN_CONV_WINOGRAD", "0", 1);
  conv_case_tol(S, N, C, OC, G, H, W, KH, KW, s, p, d, bias, transposed, expect, 1e-5);
  if (was) setenv("PTERUN_CONV_WINOGRAD", saved, 1);
  else unsetenv("PTERUN_CONV_WINOGRAD");
  conv_case_tol(S, N, C, OC, G, H, W, KH, KW, s, p, d, bias, transposed, expect,
                1.5e-5 * sqrt(9.0 * (double)C));
}

static void test_convolution(void) {
  for (int it = 0; it < 120; it++) {
    int kind = (int)ri(0, 3); /* 0 dense, 1 depthwise, 2 grouped, 3 pointwise */
    int64_t C = PICK(1, 2, 3, 4, 8, 16), G = 1, OC = PICK(1, 4, 5, 8, 16, 24);
    if (kind == 1) {
      G = C;
      OC = C * PICK(1, 1, 2);
    } else if (kind == 2) {
      C = PICK(2, 4, 8);
      G = 2;
      OC = 2 * PICK(1, 3, 4);
    }
    int64_t K = kind == 3 ? 1 : PICK(1, 2, 3, 3, 5), s = kind == 3 ? PICK(1, 1, 2) : PICK(1, 1, 2, 3);
    int64_t p = kind == 3 ? 0 : ri(0, K / 2 + 1), d = PICK(1, 1, 2);
    int32_t S = rnd() % 5 == 0 ? 1 : 2;
    conv_case(S, PICK(1, 1, 2), C, OC, G, ri(3, 21), ri(3, 37), K, PICK(K, K, 1), s, p, d, rnd() % 2, false,
              true);
  }
  /* the shapes of the zoo's CNNs */
  conv_case(2, 1, 3, 16, 1, 32, 32, 3, 3, 1, 1, 1, true, false, true);
  conv_case(2, 1, 16, 16, 1, 32, 32, 3, 3, 1, 1, 1, false, false, true);
  conv_case(2, 1, 16, 32, 1, 32, 32, 3, 3, 2, 1, 1, false, false, true);
  conv_case(2, 1, 32, 64, 1, 16, 16, 1, 1, 2, 0, 1, false, false, true);
  conv_case(2, 1, 64, 64, 16, 8, 8, 3, 3, 1, 1, 1, false, false, true);
  conv_case(2, 1, 96, 96, 96, 8, 8, 3, 3, 2, 1, 1, false, false, true);
  conv_case(2, 1, 24, 96, 1, 8, 8, 1, 1, 1, 0, 1, false, false, true);
  conv_case(2, 2, 64, 300, 1, 9, 9, 3, 3, 1, 1, 1, true, false, true); /* K > KC, M > MC */
  conv_case(2, 1, 32, 64, 1, 8, 8, 3, 3, 1, 1, 1, false, false, true); /* narrow maps: packed panels */
  /* read in place with K in slices (K > 256): rows not a whole panel,
   * stride 1 and 2, a 7x7 map, two samples */
  conv_case(2, 2, 40, 20, 1, 14, 14, 3, 3, 1, 1, 1, true, false, true);
  conv_case(2, 1, 64, 12, 1, 28, 28, 3, 3, 2, 1, 1, true, false, true);
  conv_case(2, 1, 72, 9, 1, 7, 7, 3, 3, 1, 1, 1, false, false, true);
  conv_case(2, 1, 32, 64, 1, 16, 16, 3, 3, 2, 1, 1, false, false, true);
  conv_case(2, 1, 8, 20, 1, 9, 9, 3, 3, 1, 1, 1, true, false, true);
  /* rows a whole number of tiles wide (48 = 2x24 = 3x16, 64 = 2x32): tiles follow the rows */
  conv_case(2, 1, 4, 9, 1, 5, 48, 3, 3, 1, 1, 1, true, false, true);
  conv_case(2, 2, 5, 13, 1, 4, 64, 3, 3, 1, 1, 1, false, false, true);
  /* Winograd (kernel layer, filter transformed per call): F(4x4) on odd
   * maps with channels off the vector widths, padding 1 and 0, two
   * samples; F(2x2) where F(4x4) has too few tiles */
  conv_case(2, 1, 5, 7, 1, 33, 35, 3, 3, 1, 1, 1, true, false, true);
  conv_case(2, 2, 17, 33, 1, 30, 31, 3, 3, 1, 0, 1, false, false, true);
  conv_case(2, 1, 20, 19, 1, 16, 18, 3, 3, 1, 1, 1, true, false, true);
  conv_case(2, 1, 32, 40, 1, 24, 26, 3, 3, 1, 1, 1, true, false, true);
  /* strides past the phase copy's limit (sh*sw > 64): im2col packed into
   * the panels; ViT's patches (kernel = stride, K > KC), padded and
   * dilated ones (columns outside the input on both sides) */
  conv_case(2, 1, 3, 24, 1, 64, 48, 16, 16, 16, 0, 1, true, false, true);
  conv_case(2, 2, 5, 7, 1, 40, 37, 9, 9, 9, 3, 1, false, false, true);
  conv_case(2, 1, 4, 9, 1, 45, 50, 3, 5, 9, 4, 2, true, false, true);
  /* transposed convolution is declined */
  conv_case(2, 1, 4, 4, 1, 6, 6, 3, 3, 1, 1, 1, true, true, false);
}

/* ---- elementwise ---- */

static pte_tensor *operand(int pattern, int side, int64_t *shape, int32_t *dim) {
  /* patterns: 0 same, 1 row vector, 2 channel [1,C,1,1], 3 both broadcast,
   * 4 0-dim f32, 5 rank difference, 6 long (parallel split) */
  switch (pattern) {
    case 0: return mk(PTE_FLOAT32, *dim, shape, true);
    case 1: return side ? mk(PTE_FLOAT32, 1, shape + *dim - 1, true) : mk(PTE_FLOAT32, *dim, shape, true);
    case 2: {
      int64_t c[4] = {1, shape[1], 1, 1};
      return side ? mk(PTE_FLOAT32, 4, c, true) : mk(PTE_FLOAT32, 4, shape, true);
    }
    case 3: {
      int64_t a[3] = {shape[0], 1, shape[2]}, b[3] = {1, shape[1], 1};
      return mk(PTE_FLOAT32, 3, side ? b : a, true);
    }
    case 4: return side ? mk(PTE_FLOAT32, 0, NULL, false) : mk(PTE_FLOAT32, *dim, shape, true);
    case 5: return side ? mk(PTE_FLOAT32, 2, shape + 1, true) : mk(PTE_FLOAT32, 3, shape, true);
    default: return mk(PTE_FLOAT32, *dim, shape, true);
  }
}

static void test_binary(void) {
  static const char *const ops[4] = {"aten::add.out", "aten::sub.out", "aten::mul.out", "aten::div.out"};
  for (int it = 0; it < 140; it++) {
    int op = (int)ri(0, 3), pattern = (int)ri(0, 6);
    bool swap = rnd() % 2;
    int64_t shape[4];
    int32_t dim;
    if (pattern == 2) {
      dim = 4;
      shape[0] = ri(1, 2), shape[1] = ri(1, 17), shape[2] = ri(1, 9), shape[3] = ri(1, 33);
    } else if (pattern == 3 || pattern == 5) {
      dim = 3;
      shape[0] = ri(1, 5), shape[1] = ri(1, 9), shape[2] = ri(1, 40);
    } else if (pattern == 6) {
      dim = 1;
      shape[0] = PICK(65536, 70001, 200000);
    } else {
      dim = (int32_t)ri(1, 3);
      for (int32_t i = 0; i < dim; i++) shape[i] = ri(1, 30);
    }
    pte_tensor *a = operand(pattern, 0, shape, &dim), *b = operand(pattern, 1, shape, &dim);
    if (pattern == 3 && swap) {
      pte_tensor *t = a;
      a = b, b = t;
    }
    snprintf(g_case, sizeof g_case, "%s pattern %d", ops[op], pattern);
    pair q;
    pair_init(&q);
    both_t(&q, swap && pattern != 3 && pattern != 5 ? b : a);
    both_t(&q, swap && pattern != 3 && pattern != 5 ? a : b);
    if (op < 2) both_d(&q, rnd() % 2 ? 1.0 : 2.5);
    both_out(&q, PTE_FLOAT32, 200000 + 4096);
    both_ret(&q);
    run_pair(ops[op], &q.o, &q.p, &q.outs, true, 1e-6, 1e-6);
    free_owned();
  }
  /* Scalar overloads and 0-dim operands of other dtypes */
  static const char *const sops[4] = {"aten::add.Scalar_out", "aten::sub.Scalar_out", "aten::mul.Scalar_out",
                                      "aten::div.Scalar_out"};
  for (int op = 0; op < 4; op++)
    for (int form = 0; form < 3; form++) {
      snprintf(g_case, sizeof g_case, "%s form %d", form ? ops[op] : sops[op], form);
      pair q;
      pair_init(&q);
      both_t(&q, MK(PTE_FLOAT32, 3, 7));
      if (form == 0) both_d(&q, 0.3);
      else both_t(&q, mk(form == 1 ? PTE_FLOAT64 : PTE_INT64, 0, NULL, false));
      if (op < 2) both_i(&q, 2);
      both_out(&q, PTE_FLOAT32, 21);
      both_ret(&q);
      run_pair(form ? ops[op] : sops[op], &q.o, &q.p, &q.outs, true, 1e-6, 1e-6);
      free_owned();
    }
  /* integer tensors are declined */
  snprintf(g_case, sizeof g_case, "add i32 declined");
  pair q;
  pair_init(&q);
  both_t(&q, MK(PTE_INT32, 4));
  both_t(&q, MK(PTE_INT32, 4));
  both_i(&q, 1);
  both_out(&q, PTE_INT32, 4);
  both_ret(&q);
  run_pair("aten::add.out", &q.o, &q.p, &q.outs, false, 0, 0);
  free_owned();
}

static void test_unary(void) {
  static const char *const names[] = {"aten::relu.out",      "aten::hardtanh.out",    "aten::clamp.out",
                                      "aten::hardswish.out", "aten::hardsigmoid.out", "aten::sigmoid.out",
                                      "aten::tanh.out",      "aten::silu.out",        "aten::gelu.out",
                                      "aten::gelu.out"};
  for (int it = 0; it < 100; it++) {
    int k = it % 10;
    int64_t n = PICK(1, 7, 16, 100, 1000, 40000, 300007);
    snprintf(g_case, sizeof g_case, "%s n %lld", names[k], (long long)n);
    pair q;
    pair_init(&q);
    int64_t shape[2] = {n, 1};
    both_t(&q, mk(PTE_FLOAT32, (int32_t)ri(1, 2), shape, true));
    if (k == 1) {
      both_d(&q, -0.5), both_d(&q, 0.75);
    } else if (k == 2) {
      int form = (int)ri(0, 2);
      if (form == 1) both_none(&q);
      else both_d(&q, -0.25);
      if (form == 2) both_none(&q);
      else both_i(&q, 1);
    } else if (k >= 8) {
      both_str(&q, k == 8 ? "none" : "tanh");
    }
    both_out(&q, PTE_FLOAT32, (size_t)n);
    both_ret(&q);
    run_pair(names[k], &q.o, &q.p, &q.outs, true, 1e-6, 1e-6);
    free_owned();
  }
}

/* x ** 2 and x ** 3 (int or double exponent) round as the portable kernel
 * does, bit for bit (NaN and inf included); other exponents are declined. */
static void test_pow(void) {
  for (int it = 0; it < 24; it++) {
    int64_t n = PICK(1, 7, 16, 100, 40000, 300007);
    int form = it % 6; /* 0..3 accepted: 2, 3, 2.0, 3.0; 4: 2.5; 5: 0.5 */
    snprintf(g_case, sizeof g_case, "aten::pow.Tensor_Scalar_out form %d n %lld", form, (long long)n);
    pair q;
    pair_init(&q);
    int64_t shape[1] = {n};
    both_t(&q, mk(PTE_FLOAT32, 1, shape, true));
    if (form < 2) both_i(&q, 2 + form);
    else if (form < 4) both_d(&q, 2.0 + (form - 2));
    else both_d(&q, form == 4 ? 2.5 : 0.5);
    both_out(&q, PTE_FLOAT32, (size_t)n);
    both_ret(&q);
    run_pair("aten::pow.Tensor_Scalar_out", &q.o, &q.p, &q.outs, form < 4, 0, 0);
    free_owned();
  }
}

/* where(cond, self, other) against the portable kernel bit for bit: each
 * of the three a trailing part of the full shape with some dims 1 (0-dim
 * included), or the full shape; one large case splits over the pool.
 * Condition bytes other than 0/1 count as true in both. Other dtypes are
 * declined. */
static pte_tensor *where_operand(int32_t dtype, int32_t dim, const int64_t *shape, int form) {
  int64_t s[4];
  int32_t r = dim;
  if (form == 1) r = 0;
  else if (form == 2) r = (int32_t)ri(0, dim);
  for (int32_t i = 0; i < r; i++) s[i] = form == 0 || rnd() % 3 ? shape[dim - r + i] : 1;
  return mk(dtype, r, s, true);
}

static void test_where(void) {
  for (int it = 0; it < 80; it++) {
    int64_t shape[4];
    int32_t dim = (int32_t)ri(1, 4);
    for (int32_t i = 0; i < dim; i++) shape[i] = ri(1, 12);
    if (it == 0) dim = 3, shape[0] = 4, shape[1] = 64, shape[2] = 64;   /* GPT-2's mask, [1, 1, T, T] below */
    if (it == 1) dim = 3, shape[0] = 9, shape[1] = 300, shape[2] = 257; /* split */
    int fc = (int)ri(0, 2), fa = (int)ri(0, 2), fb = (int)ri(0, 2);
    if (it < 2) fc = 2, fa = 0, fb = 1;
    pte_tensor *c = where_operand(PTE_BOOL, dim, shape, fc);
    if (it == 0) {
      int64_t m[4] = {1, 1, 64, 64};
      c = mk(PTE_BOOL, 4, m, false);
    }
    int64_t nc = pte_tensor_numel(c);
    if (nc > 2 && it % 3 == 0) ((uint8_t *)c->data)[nc / 2] = 7;
    snprintf(g_case, sizeof g_case, "aten::where.self_out it %d dim %d forms %d %d %d", it, (int)dim, fc, fa,
             fb);
    pair q;
    pair_init(&q);
    both_t(&q, c);
    both_t(&q, where_operand(PTE_FLOAT32, dim, shape, fa));
    both_t(&q, where_operand(PTE_FLOAT32, dim, shape, fb));
    both_out(&q, PTE_FLOAT32, 9 * 300 * 257);
    both_ret(&q);
    run_pair("aten::where.self_out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  /* shapes that do not broadcast: both refuse */
  {
    snprintf(g_case, sizeof g_case, "aten::where.self_out mismatch");
    const char *lib = NULL;
    const pte_kernel *k = pte_operator_find("aten::where.self_out", &lib);
    call cl;
    memset(&cl, 0, sizeof cl);
    a_t(&cl, MK(PTE_BOOL, 3, 4));
    a_t(&cl, MK(PTE_FLOAT32, 3, 5));
    a_t(&cl, MK(PTE_FLOAT32, 1));
    pte_tensor *o = mk_out(PTE_FLOAT32, 64);
    a_t(&cl, o);
    a_t(&cl, o);
    g_checked++;
    if (!k || !k->accepts(cl.p, cl.n) || call_kernel("aten::where.self_out", k, &cl) == PTE_OK)
      FAIL("where: shapes [3,4] [3,5] were not refused");
    free_owned();
  }
  /* declined: a uint8 condition, integer or float64 values */
  for (int form = 0; form < 3; form++) {
    snprintf(g_case, sizeof g_case, "aten::where.self_out declined %d", form);
    pair q;
    pair_init(&q);
    both_t(&q, MK(form == 0 ? PTE_UINT8 : PTE_BOOL, 2, 3));
    both_t(&q, MK(form == 1 ? PTE_INT64 : PTE_FLOAT32, 2, 3));
    both_t(&q, MK(form == 2 ? PTE_FLOAT64 : PTE_FLOAT32, 2, 3));
    both_out(&q, form == 1 ? PTE_INT64 : form == 2 ? PTE_FLOAT64 : PTE_FLOAT32, 6);
    both_ret(&q);
    run_pair("aten::where.self_out", &q.o, &q.p, &q.outs, false, 0, 0);
    free_owned();
  }
}

/* ---- normalization, softmax ---- */

static void test_norms(void) {
  for (int it = 0; it < 30; it++) {
    int64_t N = PICK(1, 2, 3), C = PICK(1, 3, 16, 33), HW = PICK(1, 7, 64, 1025, 4099);
    bool four = rnd() % 2, w = rnd() % 3 != 0, b = rnd() % 3 != 0;
    snprintf(g_case, sizeof g_case, "batch_norm N%lld C%lld HW%lld w%d b%d", (long long)N, (long long)C,
             (long long)HW, w, b);
    pair q;
    pair_init(&q);
    both_t(&q, four ? MK(PTE_FLOAT32, N, C, HW, 1) : MK(PTE_FLOAT32, N, C));
    if (w) both_t(&q, MK(PTE_FLOAT32, C));
    else both_none(&q);
    if (b) both_t(&q, MK(PTE_FLOAT32, C));
    else both_none(&q);
    both_t(&q, MK(PTE_FLOAT32, C));
    pte_tensor *var = MK(PTE_FLOAT32, C);
    for (int64_t i = 0; i < C; i++) ((float *)var->data)[i] = 0.5f + fabsf(((float *)var->data)[i]);
    both_t(&q, var);
    both_d(&q, 0.1);
    both_d(&q, 1e-5);
    both_out(&q, PTE_FLOAT32, (size_t)(N * C * HW));
    both_out(&q, PTE_FLOAT32, 4);
    both_out(&q, PTE_FLOAT32, 4);
    both_ret(&q);
    run_pair("aten::_native_batch_norm_legit_no_training.out", &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    free_owned();
  }
  for (int it = 0; it < 30; it++) {
    int64_t B = PICK(1, 2, 4, 64), T = PICK(1, 8, 9, 64), D = PICK(1, 5, 32, 64, 100, 256);
    bool two = rnd() % 3 == 0, w = rnd() % 2, b = rnd() % 2;
    snprintf(g_case, sizeof g_case, "layer_norm %lldx%lldx%lld over %d dims", (long long)B, (long long)T,
             (long long)D, two ? 2 : 1);
    pair q;
    pair_init(&q);
    both_t(&q, MK(PTE_FLOAT32, B, T, D));
    int64_t ns[2] = {T, D};
    both_ints(&q, two ? 2 : 1, two ? ns : ns + 1);
    if (w) both_t(&q, two ? MK(PTE_FLOAT32, T, D) : MK(PTE_FLOAT32, D));
    else both_none(&q);
    if (b) both_t(&q, two ? MK(PTE_FLOAT32, T, D) : MK(PTE_FLOAT32, D));
    else both_none(&q);
    both_d(&q, 1e-5);
    both_out(&q, PTE_FLOAT32, (size_t)(B * T * D));
    both_out(&q, PTE_FLOAT32, (size_t)(B * T));
    both_out(&q, PTE_FLOAT32, (size_t)(B * T));
    both_ret(&q);
    run_pair("aten::native_layer_norm.out", &q.o, &q.p, &q.outs, true, 1e-4, 1e-5);
    free_owned();
  }
  for (int it = 0; it < 30; it++) {
    int64_t R = PICK(1, 3, 64, 2000), n = PICK(1, 5, 8, 16, 33, 100);
    bool log = rnd() % 2, neg = rnd() % 2;
    const char *name = log ? "aten::_log_softmax.out" : "aten::_softmax.out";
    snprintf(g_case, sizeof g_case, "%s %lldx%lld", name, (long long)R, (long long)n);
    pair q;
    pair_init(&q);
    int64_t sh[2] = {R, n};
    both_t(&q, mk(PTE_FLOAT32, 2, sh, rnd() % 4 == 0));
    both_i(&q, neg ? -1 : 1);
    both_b(&q, false);
    both_out(&q, PTE_FLOAT32, (size_t)(R * n));
    both_ret(&q);
    run_pair(name, &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    free_owned();
  }
  {
    /* The row maximum matters only where exp would overflow without it:
     * row r holds 90 at column r, so every lane of the max reduction (and
     * its tail) must find it. */
    const int64_t n = 40;
    snprintf(g_case, sizeof g_case, "softmax %lldx%lld, one large value a row", (long long)n, (long long)n);
    pair q;
    pair_init(&q);
    pte_tensor *x = MK(PTE_FLOAT32, n, n);
    for (int64_t r = 0; r < n; r++) ((float *)x->data)[r * n + r] = 90.0f;
    both_t(&q, x);
    both_i(&q, 1);
    both_b(&q, false);
    both_out(&q, PTE_FLOAT32, (size_t)(n * n));
    both_ret(&q);
    run_pair("aten::_softmax.out", &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    free_owned();
  }
  snprintf(g_case, sizeof g_case, "softmax dim 0 declined");
  pair q;
  pair_init(&q);
  both_t(&q, MK(PTE_FLOAT32, 4, 5));
  both_i(&q, 0);
  both_b(&q, false);
  both_out(&q, PTE_FLOAT32, 20);
  both_ret(&q);
  run_pair("aten::_softmax.out", &q.o, &q.p, &q.outs, false, 0, 0);
  free_owned();
}

/* ---- pooling, mean ---- */

static void test_pooling(void) {
  for (int it = 0; it < 60; it++) {
    int64_t k = ri(1, 3), s = ri(1, 3), p = ri(0, k / 2), d = ri(1, 2), H = ri(4, 17), W = ri(4, 19);
    if (it % 4 == 0) k = 2, s = 2, p = 0, d = 1;
    if (it % 4 == 1) k = 3, s = 2, p = 1, d = 1; /* ResNet's stem pool: the unrolled interior */
    if ((H + 2 * p - d * (k - 1) - 1) < 0 || (W + 2 * p - d * (k - 1) - 1) < 0) continue;
    snprintf(g_case, sizeof g_case, "max_pool2d %lldx%lld k%lld s%lld p%lld d%lld", (long long)H,
             (long long)W, (long long)k, (long long)s, (long long)p, (long long)d);
    pair q;
    pair_init(&q);
    int64_t sh[4] = {ri(1, 2), it % 5 == 0 ? 300 : ri(1, 9), H, W}; /* some large enough to split */
    /* no NaN here: with two NaNs in a window the portable kernel keeps the
     * first, eager PyTorch (and this library) the last; checked below */
    pte_tensor *x = mk(PTE_FLOAT32, 4, sh, false);
    if (it % 8 == 1) /* ties everywhere (as after a relu): the first maximum's index wins */
      for (int64_t e = 0; e < pte_tensor_numel(x); e++) ((float *)x->data)[e] = ((float *)x->data)[e] > 0.3f;
    both_t(&q, x);
    int64_t kv[2] = {k, k}, sv[2] = {s, s}, pv[2] = {p, p}, dv[2] = {d, d};
    both_ints(&q, 2, kv);
    both_ints(&q, rnd() % 4 ? 2 : 0, sv);
    both_ints(&q, 1 + (int32_t)(rnd() % 2), pv);
    both_ints(&q, 2, dv);
    both_b(&q, false);
    size_t cap = (size_t)(sh[0] * sh[1] * (H + 2 * p) * (W + 2 * p)); /* padding can grow the output */
    both_out(&q, PTE_FLOAT32, cap);
    both_out(&q, PTE_INT64, cap);
    both_ret(&q);
    run_pair("aten::max_pool2d_with_indices.out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  {
    /* eager's rule: a NaN wins, the last NaN of a window gives the index */
    snprintf(g_case, sizeof g_case, "max_pool2d NaN rule");
    pte_tensor *x = MK(PTE_FLOAT32, 1, 1, 2, 4);
    const float v[8] = {NAN, NAN, 1, NAN, 1, 2, INFINITY, 3};
    memcpy(x->data, v, sizeof v);
    call c;
    memset(&c, 0, sizeof c);
    pte_tensor *out = mk_out(PTE_FLOAT32, 8), *idx = mk_out(PTE_INT64, 8);
    a_t(&c, x), A_INTS(&c, 2, 2), A_INTS(&c, 2, 2), A_INTS(&c, 0), A_INTS(&c, 1), a_b(&c, false),
        a_t(&c, out);
    a_t(&c, idx), a_none(&c);
    const pte_kernel *k = pte_operator_find("aten::max_pool2d_with_indices.out", NULL);
    g_checked++;
    if (call_kernel("aten::max_pool2d_with_indices.out", k, &c) || !isnan(((float *)out->data)[0]) ||
        !isnan(((float *)out->data)[1]) || ((int64_t *)idx->data)[0] != 1 || ((int64_t *)idx->data)[1] != 3)
      FAIL("NaN indices %lld %lld, expected 1 3", (long long)((int64_t *)idx->data)[0],
           (long long)((int64_t *)idx->data)[1]);
    free_owned();
  }
  {
    /* the same rule through the 3x3/2 padded interior (ResNet's stem pool),
     * against a direct reading of it: NaN wins, the last NaN gives the index */
    snprintf(g_case, sizeof g_case, "max_pool2d 3x3/2 NaN rule");
    enum { H = 5, W = 9, OH = 3, OW = 5 };
    pte_tensor *x = MK(PTE_FLOAT32, 1, 1, H, W);
    float *xv = (float *)x->data;
    for (int e = 0; e < H * W; e++) xv[e] = (float)((e * 7) % 5);
    xv[3] = NAN, xv[13] = NAN, xv[22] = NAN, xv[24] = NAN, xv[40] = -INFINITY;
    call c;
    memset(&c, 0, sizeof c);
    pte_tensor *out = mk_out(PTE_FLOAT32, OH * OW), *idx = mk_out(PTE_INT64, OH * OW);
    a_t(&c, x), A_INTS(&c, 3, 3), A_INTS(&c, 2, 2), A_INTS(&c, 1, 1), A_INTS(&c, 1), a_b(&c, false),
        a_t(&c, out);
    a_t(&c, idx), a_none(&c);
    const pte_kernel *k = pte_operator_find("aten::max_pool2d_with_indices.out", NULL);
    g_checked++;
    if (call_kernel("aten::max_pool2d_with_indices.out", k, &c)) FAIL("refused: %s", pte_last_error());
    for (int oh = 0; oh < OH; oh++)
      for (int ow = 0; ow < OW; ow++) {
        float m = 0;
        int64_t mi = -1;
        for (int kh = 0; kh < 3; kh++)
          for (int kw = 0; kw < 3; kw++) {
            int ih = 2 * oh - 1 + kh, iw = 2 * ow - 1 + kw;
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            float v = xv[ih * W + iw];
            if (mi < 0 || v > m || isnan(v)) m = v, mi = ih * W + iw;
          }
        const int o = oh * OW + ow;
        const float got = ((float *)out->data)[o];
        if (((int64_t *)idx->data)[o] != mi || (isnan(m) ? !isnan(got) : got != m))
          FAIL("output %d: %g at %lld, expected %g at %lld", o, (double)got,
               (long long)((int64_t *)idx->data)[o], (double)m, (long long)mi);
      }
    free_owned();
  }
  for (int it = 0; it < 60; it++) {
    int64_t k = ri(1, 3), s = ri(1, 3), p = ri(0, k / 2), H = ri(4, 17), W = ri(4, 19);
    if (it % 4 == 0) k = 2, s = 2, p = 0;
    bool incl = rnd() % 2, div = rnd() % 4 == 0;
    snprintf(g_case, sizeof g_case, "avg_pool2d %lldx%lld k%lld s%lld p%lld incl %d div %d", (long long)H,
             (long long)W, (long long)k, (long long)s, (long long)p, incl, div);
    pair q;
    pair_init(&q);
    pte_tensor *x = MK(PTE_FLOAT32, ri(1, 2), it % 5 == 0 ? 300 : ri(1, 9), H, W);
    both_t(&q, x);
    int64_t kv[2] = {k, k}, sv[2] = {s, s}, pv[2] = {p, p};
    both_ints(&q, 2, kv);
    both_ints(&q, 2, sv);
    both_ints(&q, 2, pv);
    both_b(&q, false);
    both_b(&q, incl);
    if (div) both_i(&q, 3);
    else both_none(&q);
    both_out(&q, PTE_FLOAT32, (size_t)(x->sizes[0] * x->sizes[1] * (H + 2 * p) * (W + 2 * p)));
    both_ret(&q);
    run_pair("aten::avg_pool2d.out", &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    free_owned();
  }
  for (int it = 0; it < 20; it++) {
    int64_t H = ri(1, 17), W = ri(1, 17), OH = PICK(1, 1, 2, 3, 5), OW = PICK(1, 1, 2, 4);
    snprintf(g_case, sizeof g_case, "adaptive_avg_pool2d %lldx%lld -> %lldx%lld", (long long)H, (long long)W,
             (long long)OH, (long long)OW);
    pair q;
    pair_init(&q);
    int64_t C = it % 4 == 0 ? 1000 : ri(1, 70);
    both_t(&q, MK(PTE_FLOAT32, ri(1, 2), C, H, W));
    int64_t os[2] = {OH, OW};
    both_ints(&q, 2, os);
    both_out(&q, PTE_FLOAT32, (size_t)(2 * C * 20));
    both_ret(&q);
    run_pair("aten::_adaptive_avg_pool2d.out", &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    free_owned();
  }
  for (int it = 0; it < 20; it++) {
    bool two = rnd() % 2, keep = rnd() % 2;
    snprintf(g_case, sizeof g_case, "mean dims %d keepdim %d", two ? 2 : 1, keep);
    pair q;
    pair_init(&q);
    pte_tensor *x = MK(PTE_FLOAT32, ri(1, 3), it % 4 == 0 ? 700 : ri(1, 70), ri(1, 17), ri(1, 40));
    both_t(&q, x);
    int64_t dims[2] = {-1, 2};
    both_ints(&q, two ? 2 : 1, dims);
    both_b(&q, keep);
    both_none(&q);
    both_out(&q, PTE_FLOAT32, (size_t)pte_tensor_numel(x));
    both_ret(&q);
    run_pair("aten::mean.out", &q.o, &q.p, &q.outs, true, 1e-5, 1e-6);
    /* and ExecuTorch's bits: each row summed in float in index order, then
     * divided by the count (a quantized model's next convert sees them) */
    const int64_t n = x->sizes[3] * (two ? x->sizes[2] : 1), rows = pte_tensor_numel(x) / n;
    const float *xd = x->data, *yd = q.outs.opt[0]->data;
    for (int64_t r = 0; r < rows; r++) {
      float acc = 0.0f;
      for (int64_t k = 0; k < n; k++) acc += xd[r * n + k];
      const float want = acc / (float)n;
      if (memcmp(&want, yd + r, sizeof want)) {
        FAIL("%s: row %lld is %.9g, ExecuTorch's %.9g", g_case, (long long)r, (double)yd[r], (double)want);
        break;
      }
    }
    free_owned();
  }
}

/* ---- copies ---- */

static void test_copies(void) {
  static const int32_t dtypes[] = {PTE_FLOAT32, PTE_INT64, PTE_UINT8, PTE_FLOAT16, PTE_BOOL};
  for (int it = 0; it < 60; it++) {
    int32_t dt = dtypes[rnd() % 5], dim = (int32_t)ri(1, 4);
    int64_t sh[4], perm[4] = {0, 1, 2, 3};
    for (int32_t i = 0; i < dim; i++) sh[i] = ri(1, it % 3 == 0 ? 70 : 9);
    for (int32_t i = dim - 1; i > 0; i--) {
      int32_t j = (int32_t)ri(0, i);
      int64_t t = perm[i];
      perm[i] = perm[j], perm[j] = t;
    }
    if (rnd() % 3 == 0) perm[0] -= dim; /* negative dims */
    snprintf(g_case, sizeof g_case, "permute_copy %s rank %d", pte_dtype_name(dt), (int)dim);
    pair q;
    pair_init(&q);
    pte_tensor *x = mk(dt, dim, sh, false);
    both_t(&q, x);
    both_ints(&q, dim, perm);
    both_out(&q, dt, (size_t)pte_tensor_numel(x));
    both_ret(&q);
    run_pair("aten::permute_copy.out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  for (int it = 0; it < 30; it++) {
    int32_t dt = dtypes[rnd() % 5];
    int64_t a = ri(1, 5), c = ri(1, 30);
    snprintf(g_case, sizeof g_case, "expand_copy %s", pte_dtype_name(dt));
    pair q;
    pair_init(&q);
    int64_t sh[3] = {a, 1, c};
    both_t(&q, mk(dt, 3, sh, false));
    int64_t to[4] = {ri(1, 3), -1, ri(1, 6), rnd() % 2 ? -1 : c};
    both_ints(&q, 4, to);
    both_b(&q, false);
    both_out(&q, dt, (size_t)(3 * a * 6 * c));
    both_ret(&q);
    run_pair("aten::expand_copy.out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  for (int it = 0; it < 30; it++) {
    int32_t dt = dtypes[rnd() % 5], dim = (int32_t)ri(1, 4);
    int64_t sh[4];
    for (int32_t i = 0; i < dim; i++) sh[i] = ri(1, 9);
    pte_tensor *x = mk(dt, dim, sh, false);
    int32_t d = (int32_t)ri(0, dim - 1);
    int64_t start = ri(-12, 12), end = ri(-12, 12), step = ri(1, 3);
    snprintf(g_case, sizeof g_case, "slice_copy %s dim %d %lld:%lld:%lld", pte_dtype_name(dt), (int)d,
             (long long)start, (long long)end, (long long)step);
    pair q;
    pair_init(&q);
    both_t(&q, x);
    both_i(&q, d - (rnd() % 2 ? dim : 0));
    if (rnd() % 4) both_i(&q, start);
    else both_none(&q);
    if (rnd() % 4) both_i(&q, end);
    else both_none(&q);
    both_i(&q, step);
    both_out(&q, dt, (size_t)pte_tensor_numel(x));
    both_ret(&q);
    run_pair("aten::slice_copy.Tensor_out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  for (int it = 0; it < 30; it++) {
    int32_t dt = dtypes[rnd() % 5], dim = (int32_t)ri(1, 3), d = (int32_t)ri(0, dim - 1),
            n = (int32_t)ri(1, 3);
    int64_t sh[3] = {ri(1, 5), ri(1, 5), ri(1, 5)};
    pte_tensor *ts[4];
    size_t total = 0;
    for (int32_t i = 0; i < n; i++) {
      int64_t s2[3] = {sh[0], sh[1], sh[2]};
      s2[d] = ri(0, 4);
      ts[i] = mk(dt, dim, s2, false);
      total += (size_t)pte_tensor_numel(ts[i]);
    }
    if (rnd() % 4 == 0) {
      int64_t zero = 0;
      ts[n++] = mk(dt, 1, &zero, false); /* legacy empty input, skipped */
    }
    snprintf(g_case, sizeof g_case, "cat %s %d tensors dim %d", pte_dtype_name(dt), (int)n, (int)d);
    pair q;
    pair_init(&q);
    both_tensors(&q, n, ts);
    both_i(&q, d);
    both_out(&q, dt, total + 1);
    both_ret(&q);
    run_pair("aten::cat.out", &q.o, &q.p, &q.outs, true, 0, 0);
    free_owned();
  }
  for (int it = 0; it < 10; it++) {
    int32_t dt = dtypes[rnd() % 5];
    pte_tensor *x = mk(dt, 3, (const int64_t[]){ri(1, 4), ri(1, 5), ri(1, 6)}, false);
    int64_t n = pte_tensor_numel(x);
    snprintf(g_case, sizeof g_case, "view_copy/clone %s", pte_dtype_name(dt));
    pair q;
    pair_init(&q);
    both_t(&q, x);
    int64_t to[2] = {-1, x->sizes[2]};
    both_ints(&q, 2, to);
    both_out(&q, dt, (size_t)n);
    both_ret(&q);
    run_pair("aten::view_copy.out", &q.o, &q.p, &q.outs, true, 0, 0);
    pair c;
    pair_init(&c);
    both_t(&c, x);
    both_b(&c, false);
    if (rnd() % 2) both_none(&c);
    else both_ints(&c, 3, (const int64_t[]){0, 1, 2});
    both_out(&c, dt, (size_t)n);
    both_ret(&c);
    run_pair("dim_order_ops::_clone_dim_order.out", &c.o, &c.p, &c.outs, true, 0, 0);
    free_owned();
  }
  for (int it = 0; it < 40; it++) {
    /* pads on the last one or two dims are optimized; crops, pads on more
     * dims and other dtypes stay portable */
    int32_t dim = (int32_t)ri(1, 4), np = dim >= 2 && rnd() % 3 ? 4 : 2;
    int32_t dt = it % 7 == 3 ? PTE_INT64 : PTE_FLOAT32;
    int64_t sh[4], pad[6];
    for (int32_t i = 0; i < dim; i++) sh[i] = ri(1, it % 5 == 0 ? 40 : 7);
    for (int32_t i = 0; i < 6; i++) pad[i] = ri(0, 3);
    bool crop = it % 7 == 5, more = it % 11 == 4 && dim >= 3;
    if (crop) pad[rnd() % (uint32_t)np] = -1;
    if (more) np = 6;
    bool expect = dt == PTE_FLOAT32 && !crop && !more;
    snprintf(g_case, sizeof g_case, "constant_pad_nd %s rank %d pads %d%s", pte_dtype_name(dt), (int)dim,
             (int)np, crop ? " crop" : "");
    pair q;
    pair_init(&q);
    pte_tensor *x = mk(dt, dim, sh, false);
    both_t(&q, x);
    both_ints(&q, np, pad);
    if (rnd() % 2) both_d(&q, rnd() % 2 ? 0.0 : -1.5);
    else both_i(&q, 3);
    both_out(&q, dt,
             (size_t)((sh[0] + 6) * (dim > 1 ? sh[1] + 6 : 1) * (dim > 2 ? sh[2] + 6 : 1) *
                      (dim > 3 ? sh[3] + 6 : 1)));
    both_ret(&q);
    run_pair("aten::constant_pad_nd.out", &q.o, &q.p, &q.outs, expect, 0, 0);
    free_owned();
  }
  /* a clone into channels-last is declined */
  snprintf(g_case, sizeof g_case, "clone channels-last declined");
  pair q;
  pair_init(&q);
  both_t(&q, MK(PTE_FLOAT32, 1, 3, 4, 5));
  both_b(&q, false);
  both_ints(&q, 4, (const int64_t[]){0, 2, 3, 1});
  both_out(&q, PTE_FLOAT32, 60);
  both_ret(&q);
  run_pair("dim_order_ops::_clone_dim_order.out", &q.o, &q.p, &q.outs, false, 0, 0);
  free_owned();
}

int main(void) {
  if (pte_kernels_optimized_register()) {
    fprintf(stderr, "registration failed: %s\n", pte_last_error());
    return 1;
  }
  printf("instruction set: %s\n", pte_kernels_optimized_isa());
  /* The name comes from the kernel table in use: ctest names the table each
   * run must get where the CPU surely has it (NEON on aarch64, generic). */
  const char *want = getenv("PTERUN_EXPECT_TABLE");
  if (want && *want && strcmp(want, pte_kernels_optimized_isa()) != 0) {
    fprintf(stderr, "FAIL: kernel table %s, expected %s\n", pte_kernels_optimized_isa(), want);
    return 1;
  }
  static const size_t threads[3] = {1, 2, 3};
  for (int t = 0; t < 3; t++) {
    if (pte_threadpool_set_threads(threads[t])) {
      fprintf(stderr, "set_threads: %s\n", pte_last_error());
      return 1;
    }
    int before = g_failures;
    test_mm();
    test_addmm();
    test_bmm_linear();
    test_convolution();
    test_binary();
    test_unary();
    test_pow();
    test_where();
    test_norms();
    test_pooling();
    test_copies();
    printf("%s %zu thread(s)\n", g_failures == before ? "ok  " : "FAIL", threads[t]);
  }
  printf("%d passed, %d failed\n", g_checked - g_failures, g_failures);
  return g_failures ? 1 : 0;
}
