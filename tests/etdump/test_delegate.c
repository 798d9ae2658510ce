/* A stand-in for ExecuTorch's demo backend ("BackendWithCompilerDemo"), so the
 * tests can run a delegated program: it adds its first two float inputs into
 * its output, and emits one BACKEND event per op of its payload, keyed by the
 * debug handle the exporter wrote there, like a real delegate's profiler.
 * Also a float aten::max.dim_max (two outputs) for multi_out.pte, registered
 * above the portable library's priority so a real kernel there does not clash.
 * It reserves run-time scratch (pte_backend_reserve_scratch, a size of its own
 * per delegate) and fails an execute whose pte_backend_scratch is not 64-byte
 * aligned, smaller than that or other memory than the last execute's; it
 * writes all of it, so a sanitizer build sees an overrun.
 *
 * Payload: "<n>version:0#op:demo::aten.add.Tensor, numel:12, dtype:...<debug_handle>1#". */
#include <pterun/runtime.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPS 8

typedef struct demo_op {
  char name[64];
  int64_t handle;
} demo_op;

typedef struct demo {
  demo_op ops[MAX_OPS];
  int n;
  size_t scratch; /* bytes reserved */
  void *seen;     /* the scratch of the last execute */
} demo;

static bool available(void *user) {
  (void)user;
  return true;
}

static pte_status init(void *user, pte_backend_init_ctx *ctx, const void *processed, size_t size,
                       const pte_compile_spec *specs, int32_t nspecs, void **handle) {
  (void)user, (void)specs, (void)nspecs;
  demo *d = (demo *)pte_backend_alloc(ctx, sizeof(demo), 8);
  if (!d) return pte_error(PTE_ERR_OUT_OF_MEMORY, "demo backend: out of memory");
  memset(d, 0, sizeof *d);
  char text[1024];
  size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
  memcpy(text, processed, n);
  text[n] = 0;
  for (char *p = strstr(text, "op:"); p && d->n < MAX_OPS; p = strstr(p, "op:")) {
    p += 3;
    size_t len = strcspn(p, ",#");
    if (len >= sizeof d->ops[0].name) len = sizeof d->ops[0].name - 1;
    memcpy(d->ops[d->n].name, p, len);
    char *h = strstr(p, "<debug_handle>");
    d->ops[d->n].handle = h ? strtoll(h + 14, NULL, 10) : -1;
    d->n++;
  }
  /* delegates of one program ask for different sizes: the method keeps the largest */
  d->scratch = 1000 + 333 * (size % 7);
  if (pte_backend_reserve_scratch(NULL, 1) == PTE_OK)
    return pte_error(PTE_ERR_BACKEND, "demo backend: reserving scratch without a context succeeded");
  pte_status st = pte_backend_reserve_scratch(ctx, d->scratch);
  if (st) return st;
  *handle = d;
  return PTE_OK;
}

static pte_status execute(void *user, pte_backend_exec_ctx *ctx, void *handle, pte_value **args,
                          int32_t nargs) {
  (void)user;
  demo *d = (demo *)handle;
  if (nargs < 3) return pte_error(PTE_ERR_BACKEND, "demo backend: expected 2 inputs and 1 output");
  size_t have = 0;
  void *scratch = pte_backend_scratch(ctx, &have);
  if (!scratch || (uintptr_t)scratch % 64 || have < d->scratch || (d->seen && d->seen != scratch))
    return pte_error(PTE_ERR_BACKEND, "demo backend: scratch %p of %zu bytes (reserved %zu, last %p)",
                     scratch, have, d->scratch, d->seen);
  memset(scratch, 0xa5, d->scratch);
  d->seen = scratch;
  const pte_tracer *tr = pte_backend_tracer(ctx);
  for (int i = 0; i < d->n; i++) {
    pte_event ev = {
        PTE_EVENT_BACKEND,           0, pte_backend_instruction(ctx), 0, d->ops[i].handle, d->ops[i].name,
        pte_backend_exec_method(ctx)};
    uint64_t tok = (tr && tr->begin) ? tr->begin(tr->user, &ev) : 0;
    const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
    pte_tensor *o = args[nargs - 1]->u.tensor;
    int64_t n = pte_tensor_numel(o);
    if (a->dtype == PTE_FLOAT32 && pte_tensor_numel(a) == n && pte_tensor_numel(b) == n)
      for (int64_t k = 0; k < n; k++)
        ((float *)o->data)[k] = ((const float *)a->data)[k] + ((const float *)b->data)[k];
    if (tr && tr->end) tr->end(tr->user, &ev, tok);
  }
  return PTE_OK;
}

/* max.dim_max(self, dim, keepdim, *, max, max_values): 2-D float, dim 1. */
static pte_status max_dim(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  if (nargs < 5 || args[0]->tag != PTE_TAG_TENSOR || args[3]->tag != PTE_TAG_TENSOR ||
      args[4]->tag != PTE_TAG_TENSOR)
    return pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected (self, dim, keepdim, max, max_values)");
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *mx = args[3]->u.tensor, *ix = args[4]->u.tensor;
  if (x->dim != 2 || x->dtype != PTE_FLOAT32 || ix->dtype != PTE_INT64 ||
      (args[1]->u.i != 1 && args[1]->u.i != -1))
    return pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "test kernel: 2-D float32, dim 1 only");
  pte_status st = pte_tensor_resize(mx, 1, x->sizes);
  if (!st) st = pte_tensor_resize(ix, 1, x->sizes);
  if (st) return st;
  const float *in = (const float *)x->data;
  for (int64_t r = 0; r < x->sizes[0]; r++) {
    int64_t best = 0;
    for (int64_t c = 1; c < x->sizes[1]; c++)
      if (in[r * x->sizes[1] + c] > in[r * x->sizes[1] + best]) best = c;
    ((float *)mx->data)[r] = in[r * x->sizes[1] + best];
    ((int64_t *)ix->data)[r] = best;
  }
  return PTE_OK;
}

static const pte_kernel k_kernels[] = {{"aten::max.dim_max", max_dim, NULL, NULL}};
static const pte_kernel_library k_lib = PTE_KERNEL_LIBRARY_INIT("test_delegate_kernels", 50, k_kernels, 1);

static const pte_backend k_demo =
    PTE_BACKEND_INIT("BackendWithCompilerDemo", NULL, available, init, execute, NULL);

__attribute__((visibility("default"))) pte_status pte_test_delegate_register(void);
pte_status pte_test_delegate_register(void) {
  pte_status st = pte_register_backend(&k_demo);
  return st ? st : pte_register_kernels(&k_lib);
}
