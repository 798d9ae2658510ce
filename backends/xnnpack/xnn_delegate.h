/* A built delegate: XNNPACK runtimes for its segments, buffers, bindings. */
#ifndef PTERUN_XNN_DELEGATE_H
#define PTERUN_XNN_DELEGATE_H

#include "xnn_graph.h"

typedef struct xg_delegate xg_delegate;

typedef struct xg_options {
  bool prefer_native;  /* run natively every node pterun can run (tests) */
  void *threadpool;    /* pthreadpool_t for XNNPACK, may be NULL */
  size_t max_memory;   /* refuse delegates needing more working memory (0: XG_MAX_TOTAL_BYTES) */
  bool prefer_xnnpack; /* run on XNNPACK every node it can run, whatever the rows prefer (tests) */
  /* The caller lends the run-time workspace (xnn_graph.h) before each run
   * (xg_delegate_lend): the delegate allocates none of its own. */
  bool lent_workspace;
} xg_options;

/* Parse, check, plan and build. Memory comes from `mem` (freed by its owner
 * after xg_delegate_destroy); XNNPACK objects are released by destroy. On
 * failure everything XNNPACK made is released already. */
pte_status xg_delegate_create(const void *payload, size_t size, xg_named_fn named, void *named_user,
                              xg_mem *mem, const xg_options *opts, xg_delegate **out);

/* args: the delegate's inputs then outputs, indexed by external id. `tracer`
 * may be NULL; `event` is the template for PTE_EVENT_BACKEND events. */
pte_status xg_delegate_run(xg_delegate *d, pte_value **args, int32_t nargs, const pte_tracer *tracer,
                           const pte_event *event);

void xg_delegate_destroy(xg_delegate *d);

/* Bytes of workspace a run must be lent (0 unless created with
 * lent_workspace), and the lending: memory of at least that many bytes,
 * 64-byte aligned, that nothing else touches during the run. Lending the same
 * memory again costs a comparison; other memory re-points the buffers (and
 * XNNPACK's runtimes, at the next run), allocating nothing. */
size_t xg_delegate_workspace(const xg_delegate *d);
pte_status xg_delegate_lend(xg_delegate *d, void *ws, size_t bytes);

/* Introspection for tests and diagnostics. */
typedef struct xg_delegate_info {
  uint32_t nodes, values, segments, native_steps, xnn_nodes, native_nodes, dead_nodes;
  size_t arena_bytes, static_copy_bytes;
  size_t workspace_bytes; /* the arena with packing, im2col and staging space */
  bool workspace_lent;
  bool batchable;
  size_t batch_max;
} xg_delegate_info;
void xg_delegate_get_info(const xg_delegate *d, xg_delegate_info *info);
/* What the last successful run did: XNNPACK runtimes invoked, and steps run
 * with pterun's own code (every node, when it ran at the real shapes). */
void xg_delegate_last_run(const xg_delegate *d, uint32_t *xnn_runs, uint32_t *native_runs);
const xg_graph *xg_delegate_graph(const xg_delegate *d);
const xg_plan *xg_delegate_plan(const xg_delegate *d);

#endif
