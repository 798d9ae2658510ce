/* Helpers of the optimized kernels (see opt_util.h). */
#include "opt_util.h"

#include <pthread.h>
#include <stdlib.h>

/* ---- instruction sets ---- */

static o_isa g_isa;
static pthread_once_t g_isa_once = PTHREAD_ONCE_INIT;

static void isa_init(void) {
  o_isa best = O_ISA_GENERIC;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = O_ISA_AVX2;
  if (best == O_ISA_AVX2 && __builtin_cpu_supports("avx512f")) best = O_ISA_AVX512;
#endif
  /* The override can only lower the choice: asking for an instruction set
   * the CPU lacks must not crash the process. */
  const char *env = getenv("PTERUN_OPT_ISA");
  if (env) {
    o_isa want = !strcmp(env, "generic") ? O_ISA_GENERIC : !strcmp(env, "avx2") ? O_ISA_AVX2 : O_ISA_AVX512;
    if (want < best) best = want;
  }
  g_isa = best;
}

o_isa o_isa_get(void) {
  pthread_once(&g_isa_once, isa_init);
  return g_isa;
}

const char *o_isa_name(o_isa isa) {
  return isa == O_ISA_AVX512 ? "avx512" : isa == O_ISA_AVX2 ? "avx2" : "generic";
}

/* ---- arguments ---- */

bool o_default_order(const pte_tensor *t) {
  for (int32_t i = 0; i < t->dim; i++)
    if (t->dim_order[i] != i) return false;
  return true;
}

bool o_num(pte_value *const *args, int32_t nargs, int32_t i, double *out) {
  if (i >= nargs || !args[i]) return false;
  const pte_value *v = args[i];
  switch (v->tag) {
    case PTE_TAG_INT: *out = (double)v->u.i; return true;
    case PTE_TAG_DOUBLE: *out = v->u.d; return true;
    case PTE_TAG_BOOL: *out = v->u.b ? 1.0 : 0.0; return true;
    default: return false;
  }
}

int32_t o_ints(pte_value *const *args, int32_t nargs, int32_t i, int64_t *out, int32_t max) {
  if (i >= nargs || !args[i]) return -1;
  return pte_value_int_list(args[i], out, max);
}

int32_t o_wrap_dim(int64_t dim, int32_t rank) {
  int32_t r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r) return -1;
  return (int32_t)(dim < 0 ? dim + r : dim);
}

/* ---- execute time ---- */

pte_status o_out(pte_kernel_ctx *ctx, pte_tensor *out, int32_t dim, const int64_t *sizes) {
  if (out->flags & PTE_TENSOR_READONLY) return O_FAIL("the output tensor is read-only (a constant)");
  bool same = out->dim == dim;
  for (int32_t i = 0; same && i < dim; i++) same = out->sizes[i] == sizes[i];
  if (!same) {
    pte_status st = pte_tensor_resize(out, dim, sizes);
    if (st) return pte_kernel_fail(ctx, st, "output: %s", pte_last_error());
  }
  if (!out->data && pte_tensor_numel(out) > 0) return O_FAIL("the output tensor has no memory");
  return PTE_OK;
}

static bool lacks_data(const pte_tensor *t) { return t && !t->data && pte_tensor_numel(t) > 0; }

pte_status o_have_data(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  for (int32_t i = 0; i < nargs; i++) {
    const pte_value *v = args[i];
    if (!v) continue;
    if (v->tag == PTE_TAG_TENSOR && lacks_data(v->u.tensor)) return O_FAIL("argument %d has no data", (int)i);
    if (v->tag == PTE_TAG_TENSOR_LIST)
      for (int32_t k = 0; k < v->len; k++)
        if (v->u.items[k] && v->u.items[k]->tag == PTE_TAG_TENSOR && lacks_data(v->u.items[k]->u.tensor))
          return O_FAIL("tensor %d of argument %d has no data", (int)k, (int)i);
  }
  return PTE_OK;
}

void *o_scratch(pte_kernel_ctx *ctx, size_t *size) {
  size_t n = 0;
  uint8_t *p = pte_kernel_scratch(ctx, &n);
  if (!p || n < 64) {
    *size = 0;
    return NULL;
  }
  uintptr_t a = ((uintptr_t)p + 63) & ~(uintptr_t)63;
  *size = n - (size_t)(a - (uintptr_t)p);
  return (void *)a;
}

/* ---- parallel loops ---- */

size_t o_threads(void) { return pte_threadpool_threads(); }

size_t o_slots(void) {
  size_t t = o_threads();
  return t < 64 ? t : 64;
}

void o_parallel(size_t n, double cost, pte_parallel_fn fn, void *ctx) {
  if (n == 0) return;
  /* decide on the cost first: asking the pool its size takes its lock */
  size_t t = n == 1 || cost < O_PAR_MIN_OPS ? 1 : o_threads();
  if (t <= 1) {
    fn(ctx, 0, n);
    return;
  }
  size_t chunks = t * 4;
  /* Keep every chunk worth at least ~32k operations. */
  size_t by_cost = (size_t)(cost / 32768.0);
  if (by_cost < chunks) chunks = by_cost < t ? t : by_cost;
  size_t grain = (n + chunks - 1) / chunks;
  pte_threadpool_parallel_for(n, grain ? grain : 1, fn, ctx);
}
