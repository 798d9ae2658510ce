/* The XnnpackBackend: glue between the runtime's backend interface and the
 * delegate (xnn_delegate.c), registration, counters. */
#include <pterun/backend_xnnpack.h>
#include <pterun/threadpool.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_api.h"
#include "xnn_compute.h"
#include "xnn_delegate.h"

static atomic_uint_fast64_t g_executions, g_invocations, g_native_nodes, g_built;
static atomic_int_fast64_t g_live, g_runtimes;
static _Atomic(const void *) g_pool;

typedef struct handle {
  xg_delegate *d;
  uint32_t segments;
} handle;

static bool prefer_native_from_env(void) {
  const char *e = getenv("PTERUN_XNNPACK_NATIVE");
  return e && e[0] && strcmp(e, "0") != 0;
}

/* PTERUN_XNNPACK_PREFER=xnnpack: the rows' preferences for pterun's own
 * kernels are ignored (tests run the XNNPACK operators those nodes skip). */
static bool prefer_xnnpack_from_env(void) {
  const char *e = getenv("PTERUN_XNNPACK_PREFER");
  return e && strcmp(e, "xnnpack") == 0;
}

/* PTERUN_XNNPACK_SHARE=0: each delegate keeps a run-time workspace of its
 * own instead of the method's shared scratch (an A/B switch). */
static bool share_from_env(void) {
  const char *e = getenv("PTERUN_XNNPACK_SHARE");
  return !(e && strcmp(e, "0") == 0);
}

/* One line per delegate on what runs where (PTERUN_XNNPACK_VERBOSE=1). */
static void describe(const xg_delegate *d, const xg_delegate_info *info, const char *method) {
  const xg_graph *g = xg_delegate_graph(d);
  char native[512];
  size_t used = 0;
  native[0] = 0;
  for (int t = 1; t < XG_NODE_TYPE_END && used < sizeof native; t++) {
    uint32_t count = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
      count += g->nodes[i].type == t && g->nodes[i].exec == XG_EXEC_NATIVE;
    if (count)
      used += (size_t)snprintf(native + used, sizeof native - used, "%s%s x%u", used ? ", " : "",
                               xg_node_type_name(t) + 3, count);
  }
  uint32_t chains = 0;
  for (uint32_t i = 0; i < g->nnodes; i++)
    chains += g->nodes[i].exec == XG_EXEC_NATIVE && xg_conv_is_chain(&g->nodes[i]);
  char chained[64] = "";
  if (chains) snprintf(chained, sizeof chained, "; %u convolution chain(s) in row bands", chains);
  pte_log(
      PTE_LOG_WARNING,
      "XnnpackBackend (method '%s'): %u nodes: %u in %u XNNPACK runtime(s), %u native [%s], %u dead; "
      "%zu bytes of buffers between them (%zu of run-time workspace%s), %zu bytes of constants copied%s%s",
      method ? method : "?", info->nodes, info->xnn_nodes, info->segments, info->native_nodes, native,
      info->dead_nodes, info->arena_bytes, info->workspace_bytes,
      info->workspace_lent ? ", the method's shared scratch" : "", info->static_copy_bytes, chained,
      info->batchable ? "; smaller leading dimensions accepted" : "");
}

static pte_status named(void *user, const char *key, const void **data, size_t *size) {
  return pte_backend_named_data((pte_backend_init_ctx *)user, key, data, size);
}

static bool available(void *user) {
  (void)user;
  return xnn_api_get(NULL) != NULL;
}

static pte_status init(void *user, pte_backend_init_ctx *ctx, const void *processed, size_t size,
                       const pte_compile_spec *specs, int32_t num_specs, void **out) {
  (void)user;
  /* The exporter writes no compile specs for XNNPACK; runtime options such
   * as the weight cache do not exist for the 2022 library. */
  (void)specs, (void)num_specs;
  *out = NULL;
  xg_mem mem = {ctx, NULL, 0};
  handle *h = (handle *)xg_mem_alloc(&mem, sizeof *h);
  if (!h) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
  /* The run-time workspace is the method's scratch, which every delegate and
   * kernel of the method shares (xnn_graph.h). */
  xg_options opts = {prefer_native_from_env(), pte_threadpool_acquire(), 0, prefer_xnnpack_from_env(),
                     share_from_env()};
  pte_status st = xg_delegate_create(processed, size, named, ctx, &mem, &opts, &h->d);
  if (!st) st = pte_backend_reserve_scratch(ctx, xg_delegate_workspace(h->d));
  if (st) {
    if (h->d) xg_delegate_destroy(h->d);
    pte_threadpool_release();
    return st;
  }
  xg_delegate_info info;
  xg_delegate_get_info(h->d, &info);
  h->segments = info.segments;
  const char *verbose = getenv("PTERUN_XNNPACK_VERBOSE");
  if (verbose && verbose[0] && strcmp(verbose, "0") != 0) describe(h->d, &info, pte_backend_init_method(ctx));
  if (opts.threadpool) atomic_store(&g_pool, (const void *)opts.threadpool);
  atomic_fetch_add(&g_built, 1);
  atomic_fetch_add(&g_live, 1);
  atomic_fetch_add(&g_runtimes, (int_fast64_t)info.segments);
  *out = h;
  return PTE_OK;
}

static pte_status execute(void *user, pte_backend_exec_ctx *ctx, void *hp, pte_value **args, int32_t nargs) {
  (void)user;
  handle *h = (handle *)hp;
  const pte_tracer *tr = pte_backend_tracer(ctx);
  pte_event ev;
  if (tr) {
    memset(&ev, 0, sizeof ev);
    ev.kind = PTE_EVENT_BACKEND;
    ev.chain = 0;
    ev.instruction = pte_backend_instruction(ctx);
    ev.debug_id = -1;
    ev.method = pte_backend_exec_method(ctx);
  }
  size_t ws_bytes = 0;
  void *ws = pte_backend_scratch(ctx, &ws_bytes);
  pte_status st = xg_delegate_lend(h->d, ws, ws_bytes);
  if (!st) st = xg_delegate_run(h->d, args, nargs, tr, tr ? &ev : NULL);
  if (st) return st;
  atomic_fetch_add_explicit(&g_executions, 1, memory_order_relaxed);
  /* What ran, not what was planned: a call at its real shapes invokes no
   * runtime. */
  uint32_t xnn_runs, native_runs;
  xg_delegate_last_run(h->d, &xnn_runs, &native_runs);
  atomic_fetch_add_explicit(&g_invocations, xnn_runs, memory_order_relaxed);
  atomic_fetch_add_explicit(&g_native_nodes, native_runs, memory_order_relaxed);
  return PTE_OK;
}

static void destroy(void *user, void *hp) {
  (void)user;
  handle *h = (handle *)hp;
  if (!h) return;
  xg_delegate_destroy(h->d);
  atomic_fetch_sub(&g_runtimes, (int_fast64_t)h->segments);
  atomic_fetch_sub(&g_live, 1);
  pte_threadpool_release();
  /* The memory itself belongs to the method and goes with it. */
}

static const pte_backend g_backend =
    PTE_BACKEND_INIT("XnnpackBackend", NULL, available, init, execute, destroy);

pte_status pte_backend_xnnpack_register(void) { return pte_register_backend(&g_backend); }

const pte_backend *pte_backend_xnnpack_backend(void) { return &g_backend; }

uint64_t pte_backend_xnnpack_executions(void) { return (uint64_t)atomic_load(&g_executions); }

void pte_backend_xnnpack_get_stats(pte_backend_xnnpack_stats *s) {
  if (!s) return;
  s->executions = (uint64_t)atomic_load(&g_executions);
  s->xnn_invocations = (uint64_t)atomic_load(&g_invocations);
  s->native_nodes = (uint64_t)atomic_load(&g_native_nodes);
  s->delegates_built = (uint64_t)atomic_load(&g_built);
  s->delegates_live = (int64_t)atomic_load(&g_live);
  s->runtimes_live = (int64_t)atomic_load(&g_runtimes);
  s->xnn_allocations = (uint64_t)atomic_load(&xnn_api_allocations);
  s->xnn_live_bytes = (int64_t)atomic_load(&xnn_api_live_bytes);
  s->threadpool = atomic_load(&g_pool);
}

const char *pte_backend_xnnpack_provider(void) { return xnn_api_provider(); }

#ifdef PTE_SHARED_BUILD
/* Linking (or loading) the shared library registers it. */
__attribute__((constructor)) static void xnnpack_autoregister(void) {
  if (pte_backend_xnnpack_register() != PTE_OK)
    pte_log(PTE_LOG_ERROR, "backend_xnnpack: %s", pte_last_error());
}
#endif
