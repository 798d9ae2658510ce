/* Building XNNPACK runtimes for the plan's segments, and running a delegate.
 *
 * Run-time contract: nothing here allocates. xnn_setup_runtime allocates
 * (indirection buffers) only when an operator sees new input *shapes*; shapes
 * never change after init, and init already ran one setup with stand-in
 * pointers, so later setups (needed only when a bound pointer changed) just
 * re-point. Tests check this with the allocation counter of xnn_api.c. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include "xnn_delegate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "klayer.h"
#include "xnn_api.h"
#include "xnn_nodes.h"

typedef struct xg_seg_rt {
  xnn_runtime_t rt;
  struct xnn_external_value *ext; /* ids 0..n-1, data as last set up */
  const uint32_t *values;         /* value of each external id */
  uint32_t n;
} xg_seg_rt;

struct xg_delegate {
  xg_graph g;
  xg_plan plan;
  const xnn_api *api;
  void *pool;
  /* In the run-time workspace (xnn_graph.h): the arena and the per-argument
   * buffers. */
  void *arena;
  void **vptr;    /* per value: fixed data pointer; NULL for delegate arguments */
  void **bound;   /* per external id: data pointer bound for this run */
  void **stage;   /* per external id: staging buffer for shrunk batches */
  void **hbuf;    /* per external id: the fp32 side of an fp16 argument (converted at the boundary) */
  bool lent;      /* the caller lends the workspace for each run (xg_delegate_lend) */
  bool half_outs; /* some output is fp16 */
  xg_seg_rt *segs;
  uint32_t nsegs_built;
  /* Native run at the real shape (graphs without independent rows whose
   * every node pterun can run): `real` is `g` with the values' shapes of
   * this call, `fb` a buffer for each value XNNPACK keeps internal. */
  bool native_shapes;
  bool rows_not_native;           /* few rows failed to run natively once: the row path for them */
  uint32_t last_xnn, last_native; /* the last run's counts (xg_delegate_last_run) */
  xg_graph real;
  void **fb;
  /* Values of `real` whose shape a run changed (restored from `g` by the
   * next native binding; copying every value costs more than a small run). */
  uint32_t *dirty, ndirty;
  uint8_t *is_dirty;
};

/* ---- building ---- */

static pte_status xnn_fail(const xg_graph *g, uint32_t ni, const char *what, enum xnn_status s) {
  return xg_node_error(g, ni, PTE_ERR_BACKEND, "XNNPACK refused to %s it: %s", what, xnn_api_status(s));
}

/* The node's row names its xnn_define_* call; ids are XNNPACK's. */
static enum xnn_status define_node(const xnn_api *a, xnn_subgraph_t sg, const xg_graph *g, const xg_node *n,
                                   const uint32_t *id) {
  const xg_node_desc *d = xg_node_desc_of(n->type);
  if (!d || !d->define) return xnn_status_unsupported_parameter;
  uint32_t in[5], out[2];
  for (uint32_t k = 0; k < n->nin; k++) in[k] = n->in[k] == XG_NONE ? XNN_INVALID_VALUE_ID : id[n->in[k]];
  for (uint32_t k = 0; k < n->nout; k++) out[k] = id[n->out[k]];
  return d->define(a, sg, g, n, in, out);
}

/* Rough arithmetic of a segment (the rows' estimates: multiply-adds of FC
 * and convolutions; an eighth per output element elsewhere). Elementwise
 * nodes are weighed down because 2022 XNNPACK runs each as its own
 * pthreadpool job, which ends only when every worker has woken and checked
 * in: at 2 threads on a busy machine, a runtime of converts, a multiply and a
 * softmax between int8 linears (ViT's attention, ~600k elements) cost 2-4x
 * the CPU of running it on the calling thread, the caller spinning while the
 * worker wakes. */
static double segment_work(const xg_graph *g, const xg_plan *p, const xg_segment *seg) {
  double work = 0;
  for (uint32_t k = 0; k < seg->count; k++) {
    const xg_node *n = &g->nodes[p->seg_nodes[seg->first + k]];
    if (n->nout == 0 || n->out[0] == XG_NONE) continue;
    const xg_node_desc *d = xg_node_desc_of(n->type);
    work += d && d->work ? d->work(g, n) : (double)g->values[n->out[0]].numel / 8;
  }
  return work;
}

/* Below this many operations a runtime runs on the calling thread: waking
 * the pool's workers costs more than it saves (microseconds when idle, and
 * milliseconds when the machine is busy and a worker is descheduled). */
#define XG_PARALLEL_MIN_WORK 2.0e5

_Static_assert((int)XG_DT_QINT8 == (int)xnn_datatype_qint8 && (int)XG_DT_QINT32 == (int)xnn_datatype_qint32 &&
                   (int)XG_DT_QCINT8 == (int)xnn_datatype_qcint8 &&
                   (int)XG_DT_QCINT32 == (int)xnn_datatype_qcint32,
               "XNNDatatype codes are XNNPACK's");

/* A value in a subgraph: fp32, or int8/int32 with its quantization
 * parameters (per tensor or per channel). */
static enum xnn_status define_value(const xnn_api *a, xnn_subgraph_t sg, const xg_value *v, const void *data,
                                    uint32_t external_id, uint32_t flags, uint32_t *id) {
  if (v->value_type != XG_VALUE_QUANTIZED ||
      v->datatype == XG_DT_QDINT8) /* qdint8: fp32 rows (xnn_parse.c) */
    return a->xnn_define_tensor_value(sg, xnn_datatype_fp32, v->ndims, v->dims, data, external_id, flags, id);
  const enum xnn_datatype dt = (enum xnn_datatype)v->datatype; /* XNNDatatype codes are XNNPACK's */
  if (v->quant_type == XG_QP_PER_CHANNEL)
    return a->xnn_define_channelwise_quantized_tensor_value(sg, dt, v->scales, v->ndims, v->channel_dim,
                                                            v->dims, data, external_id, flags, id);
  return a->xnn_define_quantized_tensor_value(sg, dt, v->zero_point, v->scale, v->ndims, v->dims, data,
                                              external_id, flags, id);
}

/* Builds segment `s`. On a node that XNNPACK refuses, *bad_node names it. */
static pte_status build_segment(xg_delegate *d, uint32_t s, uint32_t *xid, uint32_t *stamp,
                                uint32_t *bad_node) {
  const xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  const xg_segment *seg = &p->segs[s];
  const xnn_api *a = d->api;
  xg_seg_rt *r = &d->segs[s];
  r->n = seg->nexternal;
  r->values = p->seg_ext + seg->ext_first;
  xnn_subgraph_t sg = NULL;
  enum xnn_status xs = a->xnn_create_subgraph(r->n, 0, &sg);
  if (xs != xnn_status_success)
    return pte_error(PTE_ERR_BACKEND, "XNNPACK: xnn_create_subgraph failed: %s", xnn_api_status(xs));
  const uint32_t mark = s + 1;
  pte_status st = PTE_OK;
  for (uint32_t j = 0; j < r->n && !st; j++) {
    uint32_t vi = r->values[j];
    const xg_value *v = &g->values[vi];
    bool produced_here = v->producer >= 0 && p->node_seg[v->producer] == s;
    uint32_t flags = produced_here ? XNN_VALUE_FLAG_EXTERNAL_OUTPUT : XNN_VALUE_FLAG_EXTERNAL_INPUT;
    xs = define_value(a, sg, v, NULL, j, flags, &xid[vi]);
    if (xs != xnn_status_success)
      st = pte_error(PTE_ERR_BACKEND, "XNNPACK refused value %u (boundary of runtime %u): %s", vi, s,
                     xnn_api_status(xs));
    stamp[vi] = mark;
  }
  for (uint32_t k = 0; k < seg->count && !st; k++) {
    uint32_t ni = p->seg_nodes[seg->first + k];
    const xg_node *n = &g->nodes[ni];
    for (uint32_t j = 0; j < (uint32_t)n->nin + n->nout && !st; j++) {
      uint32_t vi = j < n->nin ? n->in[j] : n->out[j - n->nin];
      if (vi == XG_NONE || stamp[vi] == mark) continue;
      const xg_value *v = &g->values[vi];
      const void *data = p->loc[vi] == XG_LOC_STATIC ? d->vptr[vi] : NULL;
      xs = define_value(a, sg, v, data, XNN_INVALID_VALUE_ID, 0, &xid[vi]);
      if (xs != xnn_status_success)
        st =
            xg_node_error(g, ni, PTE_ERR_BACKEND, "XNNPACK refused its value %u: %s", vi, xnn_api_status(xs));
      stamp[vi] = mark;
    }
    if (st) break;
    xs = define_node(a, sg, g, n, xid);
    if (xs != xnn_status_success) {
      *bad_node = ni;
      st = xnn_fail(g, ni, "define", xs);
    }
  }
  if (!st) {
    pthreadpool_t pool = segment_work(g, p, seg) >= XG_PARALLEL_MIN_WORK ? (pthreadpool_t)d->pool : NULL;
    /* Workers yield after each run instead of spinning: on a busy machine a
     * spinning worker takes the core another thread of the run needs. */
    xs = a->xnn_create_runtime_v2(sg, pool, XNN_FLAG_YIELD_WORKERS, &r->rt);
    if (xs != xnn_status_success)
      st = pte_error(PTE_ERR_BACKEND, "XNNPACK: creating runtime %u (%u nodes) failed: %s", s, seg->count,
                     xnn_api_status(xs));
  }
  a->xnn_delete_subgraph(sg);
  return st;
}

static void release_runtimes(xg_delegate *d) {
  for (uint32_t s = 0; s < d->nsegs_built; s++)
    if (d->segs[s].rt) d->api->xnn_delete_runtime(d->segs[s].rt), d->segs[s].rt = NULL;
  d->nsegs_built = 0;
}

/* An output that holds indices (argmax pooling), int64 or int32 at run time. */
static bool is_index_output(const xg_graph *g, uint32_t vi) { return g->values[vi].index_out; }

/* Bytes per element of argument value vi bound to tensor t: the value's,
 * except argmax indices, which are delivered as int64 or int32. */
static size_t arg_esize(const xg_graph *g, uint32_t vi, const pte_tensor *t) {
  if (is_index_output(g, vi)) return t->dtype == PTE_INT64 ? 8 : 4;
  return g->values[vi].esize;
}

static inline void *value_ptr(const xg_delegate *d, uint32_t vi) {
  void *p = d->vptr[vi];
  return p ? p : d->bound[d->g.values[vi].external_id];
}

static bool add_bytes(size_t *total, size_t n, size_t limit) {
  if (n > limit - *total) return false;
  *total += n;
  return true;
}

/* Points the workspace's buffers into `base` (xg_ws_bind), with what
 * derives from them: the arena's values and the native run's copy of the
 * graph's scratch. */
static void bind_workspace(xg_delegate *d, void *base) {
  xg_ws_bind(&d->g, base);
  const xg_plan *p = &d->plan;
  for (uint32_t vi = 0; vi < d->g.nvalues; vi++)
    if (p->loc[vi] == XG_LOC_ARENA) d->vptr[vi] = (void *)((uintptr_t)d->arena + p->offset[vi]);
  if (!d->native_shapes) return;
  for (uint32_t vi = 0; vi < d->g.nvalues; vi++)
    if (p->loc[vi] != XG_LOC_XNN_INTERNAL) d->fb[vi] = d->vptr[vi];
  d->real.fc_scratch = d->g.fc_scratch;
  d->real.col_scratch = d->g.col_scratch;
}

/* Whether node n's output shape follows from its inputs' at run time (its
 * row's shape rule); others run at another shape only with unchanged inputs. */
static bool shape_follows(const xg_node *n) {
  const xg_node_desc *nd = xg_node_desc_of(n->type);
  return nd && nd->shape;
}

/* A shape the rows cannot take (a graph without independent rows, or an
 * input outside them) runs with pterun's own kernels when it can run every
 * node: results that depend on the
 * dynamic dim (softmax and bmm over it) are then computed at the real
 * shape. Its extra memory (a buffer per value XNNPACK keeps internal, the
 * values' run-time shapes) is taken here, at init, for the upper bounds. */
static pte_status allocate_native_shapes(xg_delegate *d, xg_mem *mem, size_t room) {
  xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  bool any_follows = false;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    const xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    if (!xg_native_supports(g, n)) return PTE_OK;
    any_follows |= shape_follows(n);
  }
  if (!any_follows) return PTE_OK;
  size_t need = (size_t)g->nvalues * (sizeof(xg_value) + sizeof(void *));
  for (uint32_t vi = 0; vi < g->nvalues; vi++)
    if (p->loc[vi] == XG_LOC_XNN_INTERNAL && !add_bytes(&need, g->values[vi].nbytes + XG_EXTRA_BYTES, room))
      return PTE_OK; /* over the working-memory limit: shapes as built only */
  if (need > room) return PTE_OK;
  d->real = *g;
  d->real.values = (xg_value *)xg_mem_alloc(mem, (size_t)g->nvalues * sizeof(xg_value));
  d->fb = (void **)xg_mem_alloc(mem, (size_t)g->nvalues * sizeof(void *));
  d->dirty = (uint32_t *)xg_mem_alloc(mem, (size_t)g->nvalues * sizeof(uint32_t));
  d->is_dirty = (uint8_t *)xg_mem_alloc(mem, g->nvalues);
  if (!d->real.values || !d->fb || !d->dirty || !d->is_dirty)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
  memcpy(d->real.values, g->values, (size_t)g->nvalues * sizeof(xg_value));
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    if (p->loc[vi] != XG_LOC_XNN_INTERNAL) continue; /* the others: their vptr (bind_workspace) */
    pte_status st = xg_ws_reserve(&d->g, mem, &d->fb[vi], g->values[vi].nbytes + XG_EXTRA_BYTES);
    if (st) return st;
  }
  d->native_shapes = true;
  return PTE_OK;
}

/* The plan's buffers: arena, constant copies, staging, bindings. */
static pte_status allocate_buffers(xg_delegate *d, xg_mem *mem, const xg_options *opts) {
  xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  /* Working memory: ours (arena, constant copies, staging) and XNNPACK's
   * workspace for its internal values. Checked before any of it is
   * allocated. */
  size_t limit = opts && opts->max_memory ? opts->max_memory : XG_MAX_TOTAL_BYTES, need = 0;
  bool over = !add_bytes(&need, p->arena_size, limit) || !add_bytes(&need, p->static_copy_bytes, limit) ||
              !add_bytes(&need, p->xnn_internal_bytes, limit);
  for (uint32_t vi = 0; vi < g->nvalues && !over; vi++) {
    if (p->loc[vi] == XG_LOC_EXTERNAL && p->batchable && p->batched[vi])
      over = !add_bytes(&need, 2 * g->values[vi].nbytes, limit);
    if (p->loc[vi] == XG_LOC_EXTERNAL && g->values[vi].half)
      over = over || !add_bytes(&need, g->values[vi].nbytes + XG_EXTRA_BYTES, limit);
  }
  if (over)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: needs more than %zu bytes of working memory",
                     limit);

  d->vptr = (void **)xg_mem_alloc(mem, (size_t)g->nvalues * sizeof(void *));
  d->bound = (void **)xg_mem_alloc(mem, ((size_t)g->num_externs + 1) * sizeof(void *));
  d->stage = (void **)xg_mem_alloc(mem, ((size_t)g->num_externs + 1) * sizeof(void *));
  d->hbuf = (void **)xg_mem_alloc(mem, ((size_t)g->num_externs + 1) * sizeof(void *));
  d->segs = (xg_seg_rt *)xg_mem_alloc(mem, ((size_t)p->nsegs + 1) * sizeof(xg_seg_rt));
  if (!d->vptr || !d->bound || !d->stage || !d->hbuf || !d->segs)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
  pte_status st = p->arena_size ? xg_ws_reserve(g, mem, &d->arena, p->arena_size) : PTE_OK;
  for (uint32_t vi = 0; vi < g->nvalues && !st; vi++) {
    const xg_value *v = &g->values[vi];
    if (p->loc[vi] == XG_LOC_ARENA) {
      continue; /* in the arena (bind_workspace) */
    } else if (p->loc[vi] == XG_LOC_STATIC) {
      if (p->static_copy[vi]) {
        void *c = xg_mem_alloc(mem, v->nbytes + XG_EXTRA_BYTES);
        if (!c) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory for constants");
        memcpy(c, v->data, v->nbytes);
        d->vptr[vi] = c;
      } else {
        d->vptr[vi] = (void *)v->data; /* in place: the mapped program or .ptd */
      }
    } else if (p->loc[vi] == XG_LOC_EXTERNAL && p->batchable && p->batched[vi]) {
      /* Argmax indices may be delivered as int64: twice the bytes. */
      size_t bytes = is_index_output(g, vi) ? 2 * v->nbytes : v->nbytes;
      st = xg_ws_reserve(g, mem, &d->stage[v->external_id], bytes + XG_EXTRA_BYTES);
    }
    if (!st && p->loc[vi] == XG_LOC_EXTERNAL && v->half) {
      st = xg_ws_reserve(g, mem, &d->hbuf[v->external_id], v->nbytes + XG_EXTRA_BYTES);
      d->half_outs |= (v->flags & XG_FLAG_EXTERNAL_OUTPUT) != 0;
    }
  }
  if (!st) st = allocate_native_shapes(d, mem, limit - need);
  if (st) return st;
  /* the workspace, with the packing and im2col space the nodes reserved */
  size_t ws = xg_ws_layout(g);
  if (ws > limit)
    return pte_error(PTE_ERR_OUT_OF_MEMORY,
                     "XNNPACK delegate needs %zu bytes of run-time workspace, over the limit of %zu bytes",
                     ws, limit);
  d->lent = opts && opts->lent_workspace;
  if (d->lent || !ws) return PTE_OK;
  void *own = xg_mem_alloc(mem, ws);
  if (!own)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory for %zu bytes of workspace", ws);
  bind_workspace(d, own);
  return PTE_OK;
}

/* Every segment's runtime, set up once with stand-in addresses so that its
 * operators allocate at init; *bad_node names a node XNNPACK refused. */
static pte_status build_runtimes(xg_delegate *d, xg_mem *mem, uint32_t *bad_node) {
  const xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  pte_status st = PTE_OK;
  if (!p->nsegs) return PTE_OK;

  uint32_t *xid = (uint32_t *)xg_mem_array(mem, g->nvalues, sizeof(uint32_t));
  uint32_t *stamp = (uint32_t *)xg_mem_array(mem, g->nvalues, sizeof(uint32_t));
  if (!xid || !stamp) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
  /* The setup at init takes stand-in addresses for the delegate's arguments
   * and, when the workspace is lent at run time, for the workspace: the
   * first run sets up again with the real ones, which re-points and
   * allocates nothing (the shapes are the same). The stand-in must be
   * address space that holds none of XNNPACK's blocks while they live:
   * pooling and convolutions keep the addresses of this setup (an
   * indirection buffer, moved by an offset at later runs) and tell padding
   * from input by comparing each with their zero buffer, so an input address
   * equal to it would read zeros at every run (zoo/xnnpack/small_cnn's
   * average pooling, when a stand-in smaller than the workspace's layout ran
   * on into the heap). Reserved, never touched (nothing runs at setup), and
   * given back once every segment is set up: XNNPACK's blocks of these
   * runtimes exist by then and do not move while the shapes stay. */
  size_t standin_bytes = p->max_external_bytes + XG_EXTRA_BYTES + 64;
  if (d->lent && d->g.ws.bytes > standin_bytes) standin_bytes = d->g.ws.bytes;
  void *standin = mmap(NULL, standin_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (standin == MAP_FAILED)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: reserving %zu bytes of address space failed",
                     standin_bytes);
  if (d->lent) bind_workspace(d, standin);
  for (uint32_t e = 0; e < g->num_externs; e++) d->bound[e] = standin;
  for (uint32_t s = 0; s < p->nsegs && !st; s++) {
    st = build_segment(d, s, xid, stamp, bad_node);
    if (d->segs[s].rt) d->nsegs_built = s + 1;
    if (st) break;
    xg_seg_rt *r = &d->segs[s];
    r->ext = (struct xnn_external_value *)xg_mem_alloc(
        mem, ((size_t)r->n + 1) * sizeof(struct xnn_external_value));
    if (!r->ext) {
      st = pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
      break;
    }
    for (uint32_t j = 0; j < r->n; j++) {
      r->ext[j].id = j;
      r->ext[j].data = value_ptr(d, r->values[j]);
    }
    enum xnn_status xs = d->api->xnn_setup_runtime(r->rt, r->n, r->ext);
    if (xs != xnn_status_success)
      st = pte_error(PTE_ERR_BACKEND, "XNNPACK: setting up runtime %u failed: %s", s, xnn_api_status(xs));
  }
  munmap(standin, standin_bytes);
  for (uint32_t e = 0; e < g->num_externs; e++) d->bound[e] = NULL;
  if (d->lent) d->g.ws.base = NULL; /* bound by the first lending */
  return st;
}

/* One attempt at building; *bad_node is set when XNNPACK refused a node. */
static pte_status build(xg_delegate *d, const void *payload, size_t size, xg_named_fn named, void *nu,
                        xg_mem *mem, const xg_options *opts, const uint8_t *forced, uint32_t *bad_node) {
  pte_status st = xg_parse(payload, size, named, nu, mem, &d->g);
  if (st) return st;
  xg_graph *g = &d->g;
  xg_check_options co = {opts && opts->prefer_native, opts && opts->prefer_xnnpack};
  if ((st = xg_check(g, &co, mem))) return st;
  if (forced)
    for (uint32_t ni = 0; ni < g->nnodes; ni++)
      if (forced[ni]) g->nodes[ni].exec = XG_EXEC_NATIVE;
  if ((st = xg_make_plan(g, mem, &d->plan))) return st;
  if ((st = allocate_buffers(d, mem, opts))) return st;
  return build_runtimes(d, mem, bad_node);
}

pte_status xg_delegate_create(const void *payload, size_t size, xg_named_fn named, void *named_user,
                              xg_mem *mem, const xg_options *opts, xg_delegate **out) {
  *out = NULL;
  const char *why = "unknown";
  const xnn_api *api = xnn_api_get(&why);
  if (!api) return pte_error(PTE_ERR_NOT_SUPPORTED, "XNNPACK is not available: %s", why);
  uint8_t *forced = NULL;
  pte_status st = PTE_OK;
  /* When XNNPACK refuses a node that pterun can run itself, run that node
   * natively and build again (rare: xg_check screens parameters first). */
  for (int attempt = 0;; attempt++) {
    xg_delegate *d = (xg_delegate *)xg_mem_alloc(mem, sizeof *d);
    if (!d) {
      st = pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
      break;
    }
    d->api = api;
    d->pool = opts ? opts->threadpool : NULL;
    uint32_t bad = XG_NONE;
    st = build(d, payload, size, named, named_user, mem, opts, forced, &bad);
    if (!st) {
      *out = d;
      break;
    }
    release_runtimes(d);
    if (bad == XG_NONE || !xg_native_supports(&d->g, &d->g.nodes[bad]) || attempt >= 64) break;
    pte_log(PTE_LOG_INFO, "XNNPACK delegate: %s; running that node with pterun's own code", pte_last_error());
    if (!forced) forced = (uint8_t *)xg_mem_alloc(mem, d->g.nnodes);
    if (!forced) {
      st = pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
      break;
    }
    forced[bad] = 1;
  }
  return st;
}

void xg_delegate_destroy(xg_delegate *d) {
  if (d) release_runtimes(d);
}

/* ---- running ---- */

static bool default_dim_order(const pte_tensor *t) {
  for (int32_t i = 0; i < t->dim; i++)
    if (t->dim_order[i] != i) return false;
  return true;
}

/* XNNPACK values are laid out in memory order: a tensor with a dim order
 * (e.g. channels-last) is compared by its sizes in that order, as
 * ExecuTorch's own delegate does. */
static void physical_sizes(const pte_tensor *t, int64_t *out) {
  for (int32_t j = 0; j < t->dim; j++) out[j] = t->sizes[t->dim_order[j] < t->dim ? t->dim_order[j] : j];
}

/* Rank 0 matches [1] (the exporter serializes scalars as [1]). */
static bool same_shape(const int64_t *phys, int32_t dim, const xg_value *v) {
  if (dim == 0) return v->numel == 1;
  if ((uint32_t)dim != v->ndims) return false;
  for (int32_t i = 0; i < dim; i++)
    if ((size_t)phys[i] != v->dims[i]) return false;
  return true;
}

/* The rows of this call: the real sizes of the plan's row dims, as the
 * inputs give them. */
typedef struct xg_rows {
  bool native;  /* every node runs natively at the inputs' real shapes (d->real) */
  bool probe;   /* another binding follows a failure: fail without formatting a message */
  bool have;    /* a row-carrying input was bound */
  bool shrunk;  /* some row dim is smaller than built */
  bool strided; /* a row dim past the first shrank: the real rows are not contiguous in the built layout */
  size_t real[XG_MAX_DIMS];
} xg_rows;

static pte_status shape_error(const xg_rows *rw, uint32_t e, const pte_tensor *t, const xg_value *v,
                              const char *why) {
  if (rw->probe) return PTE_ERR_INVALID_ARGUMENT;
  char got[160], want[160];
  int64_t w[XG_MAX_DIMS], phys[PTE_MAX_DIM];
  for (uint32_t i = 0; i < v->ndims; i++) w[i] = (int64_t)v->dims[i];
  physical_sizes(t, phys);
  return pte_error(
      PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate %s %u: got shape %s%s, the delegate was built for %s%s",
      (v->flags & XG_FLAG_EXTERNAL_INPUT) ? "input" : "output", e,
      pte_shape_str(t->dim, phys, got, sizeof got), default_dim_order(t) ? "" : " (in memory order)",
      pte_shape_str((int32_t)v->ndims, w, want, sizeof want), why);
}

static inline uint64_t trace_begin(const pte_tracer *tr, pte_event *ev, const xg_step *s) {
  ev->name = s->name;
  ev->debug_id = s->debug_id;
  return tr->begin ? tr->begin(tr->user, ev) : 0;
}

/* Sets value vi of d->real to dims, remembering that it changed. */
static void set_dims(xg_delegate *d, uint32_t vi, uint32_t nd, const int64_t *dims) {
  xg_value *v = &d->real.values[vi];
  if (!d->is_dirty[vi]) d->is_dirty[vi] = 1, d->dirty[d->ndirty++] = vi;
  v->ndims = (uint8_t)nd;
  v->numel = 1;
  for (uint32_t i = 0; i < nd; i++) v->dims[i] = (size_t)dims[i], v->numel *= (size_t)dims[i];
  v->nbytes = v->numel * v->esize;
}

static bool same_dims(const xg_value *a, const xg_value *b) {
  if (a->ndims != b->ndims) return false;
  for (uint32_t i = 0; i < a->ndims; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

/* Size of dim `d` (of `nd`, right-aligned) of v; 1 past its rank. */
/* The real shape of node n's output from its inputs' (in r, the run-time
 * copy of the built values g); false when it does not follow. */
static bool native_shape_of(xg_delegate *d, const xg_node *n) {
  const xg_graph *r = &d->real, *g = &d->g;
  bool changed = false;
  for (uint32_t k = 0; k < n->nin; k++)
    if (n->in[k] != XG_NONE && !same_dims(&r->values[n->in[k]], &g->values[n->in[k]])) changed = true;
  if (!changed) return true; /* outputs keep their built shapes */
  if (n->nout != 1 || !shape_follows(n)) return false;
  const xg_value *bo = &g->values[n->out[0]];
  const uint32_t nd = bo->ndims;
  int64_t dims[XG_MAX_DIMS];
  if (!xg_node_desc_of(n->type)->shape(r, g, n, dims)) return false;
  set_dims(d, n->out[0], nd, dims);
  return r->values[n->out[0]].numel <= bo->numel; /* its buffers were planned for the bound */
}

/* The real shapes of every value from the inputs' (already in d->real),
 * node by node in the order of the plan's steps. */
static pte_status native_shapes(xg_delegate *d) {
  const xg_plan *p = &d->plan;
  for (uint32_t si = 0; si < p->nsteps; si++) {
    const xg_step *s = &p->steps[si];
    const xg_segment *seg = s->kind == XG_STEP_XNN ? &p->segs[s->index] : NULL;
    for (uint32_t k = 0; k < (seg ? seg->count : 1); k++) {
      uint32_t ni = seg ? p->seg_nodes[seg->first + k] : s->index;
      if (!native_shape_of(d, &d->g.nodes[ni])) {
        /* name the input whose shape changed, as the binding errors do */
        const xg_node *n = &d->g.nodes[ni];
        uint32_t vi = n->in[0];
        for (uint32_t j = 0; j < n->nin; j++)
          if (n->in[j] != XG_NONE && !same_dims(&d->real.values[n->in[j]], &d->g.values[n->in[j]])) {
            vi = n->in[j];
            break;
          }
        char got[160], want[160];
        int64_t a[XG_MAX_DIMS], b[XG_MAX_DIMS];
        const xg_value *rv = &d->real.values[vi], *bv = &d->g.values[vi];
        for (uint32_t i = 0; i < bv->ndims; i++) a[i] = (int64_t)rv->dims[i], b[i] = (int64_t)bv->dims[i];
        return xg_node_error(
            &d->g, ni, PTE_ERR_INVALID_ARGUMENT,
            "cannot run at these input shapes: value %u got shape %s, the delegate was built "
            "for %s (Debian's 2022 XNNPACK cannot reshape a runtime, and this node's output "
            "shape does not follow from its inputs')",
            vi, pte_shape_str((int32_t)rv->ndims, a, got, sizeof got),
            pte_shape_str((int32_t)bv->ndims, b, want, sizeof want));
      }
    }
  }
  return PTE_OK;
}

/* Bytes of one row of value v (its dims past the row dims). */
static size_t row_bytes(const xg_value *v, uint32_t r, size_t esize) {
  size_t rows = 1;
  for (uint32_t i = 0; i < r; i++) rows *= v->dims[i];
  return rows ? v->numel / rows * esize : 0;
}

/* How many rows this call has (contiguous when only dim 0 shrank). */
static size_t real_rows(const xg_rows *rw, uint32_t r) {
  size_t n = 1;
  for (uint32_t i = 0; i < r; i++) n *= rw->real[i];
  return n;
}

/* Copies the real rows between a compact tensor and a buffer in the built
 * layout (`to_built`: compact to built), one run of rows along the last row
 * dim at a time. */
static void copy_rows(uint8_t *built, uint8_t *compact, const size_t *max, const size_t *real, uint32_t r,
                      size_t row, bool to_built) {
  size_t idx[XG_MAX_DIMS] = {0}, outer = 1;
  for (uint32_t i = 0; i + 1 < r; i++) outer *= real[i];
  const size_t run = real[r - 1] * row;
  for (size_t k = 0; k < outer; k++) {
    size_t off = 0;
    for (uint32_t i = 0; i + 1 < r; i++) off = off * max[i] + idx[i];
    uint8_t *b = built + off * max[r - 1] * row, *c = compact + k * run;
    if (to_built) memcpy(b, c, run);
    else memcpy(c, b, run);
    for (uint32_t i = r - 1; i-- > 0;) {
      if (++idx[i] < real[i]) break;
      idx[i] = 0;
    }
  }
}

/* Binds input `e` (value vi); the first input that carries rows sets them,
 * the others must agree. */
static pte_status bind_input(xg_delegate *d, uint32_t e, uint32_t vi, pte_tensor *t, xg_rows *rw) {
  const xg_plan *p = &d->plan;
  const xg_value *v = &d->g.values[vi];
  const bool batched = p->batchable && p->batched[vi];
  const uint32_t r = p->row_dims;
  const size_t full = v->numel * v->esize;
  int64_t phys[PTE_MAX_DIM];
  physical_sizes(t, phys);
  if (!t->data) return pte_error(PTE_ERR_INVALID_STATE, "XNNPACK delegate input %u has no data", e);
  d->bound[e] = t->data;
  const bool same = same_shape(phys, t->dim, v);
  if (rw->native) {
    bool fits = same || (uint32_t)t->dim == v->ndims;
    for (int32_t i = 0; fits && !same && i < t->dim; i++)
      fits = phys[i] >= 1 && (size_t)phys[i] <= v->dims[i];
    if (!fits) return shape_error(rw, e, t, v, " (no dimension may exceed the built one)");
    if (!same) set_dims(d, vi, (uint32_t)t->dim, phys);
    return PTE_OK;
  }
  bool tail_ok = batched && (uint32_t)t->dim == v->ndims;
  for (int32_t i = 0; tail_ok && !same && i < t->dim; i++)
    tail_ok = (uint32_t)i < r ? phys[i] >= 1 && (size_t)phys[i] <= v->dims[i] : (size_t)phys[i] == v->dims[i];
  if (!same && !tail_ok) {
    if (rw->probe) return PTE_ERR_INVALID_ARGUMENT;
    char why[160];
    if (!batched)
      snprintf(why, sizeof why,
               " (Debian's 2022 XNNPACK cannot reshape a runtime, and this graph does not treat "
               "the leading dimension as independent rows)");
    else if (r <= 1) snprintf(why, sizeof why, " (only the leading dimension may be smaller)");
    else snprintf(why, sizeof why, " (only the leading %u dimensions may be smaller)", r);
    return shape_error(rw, e, t, v, why);
  }
  if (!batched) return PTE_OK;
  for (uint32_t i = 0; i < r; i++) {
    size_t n = same ? v->dims[i] : (size_t)phys[i];
    if (rw->have && rw->real[i] != n)
      return shape_error(rw, e, t, v, ", while other inputs have rows of another shape");
    rw->real[i] = n;
  }
  rw->have = true;
  if (same) return PTE_OK;
  bool strided = false;
  for (uint32_t i = 1; i < r; i++) strided |= rw->real[i] < v->dims[i];
  /* Rows past the real ones are computed and ignored. Contiguous rows are
   * read from the caller's buffer when it is big enough, else from staging;
   * rows with gaps are spread into staging. */
  if (strided) {
    copy_rows((uint8_t *)d->stage[e], (uint8_t *)t->data, p->row_max, rw->real, r, row_bytes(v, r, v->esize),
              true);
    d->bound[e] = d->stage[e];
  } else if (t->capacity < full) {
    memcpy(d->stage[e], t->data, real_rows(rw, r) * row_bytes(v, r, v->esize));
    d->bound[e] = d->stage[e];
  }
  return PTE_OK;
}

/* Resizes output `e` (value vi) to the built shape, or to the real rows of
 * it, and binds it; `esize` is its element size. */
static pte_status bind_output(xg_delegate *d, uint32_t e, uint32_t vi, pte_tensor *t, const xg_rows *rw,
                              size_t esize) {
  const xg_plan *p = &d->plan;
  const xg_value *v = &d->g.values[vi];
  const bool rows = p->batchable && p->batched[vi] && rw->shrunk;
  if (rw->native) v = &d->real.values[vi];
  const size_t full = v->numel * esize;
  int64_t phys[PTE_MAX_DIM], want_phys[XG_MAX_DIMS], want[XG_MAX_DIMS];
  physical_sizes(t, phys);
  for (uint32_t i = 0; i < v->ndims; i++)
    want_phys[i] = (int64_t)(rows && i < p->row_dims ? rw->real[i] : v->dims[i]);
  bool same = t->dim == 0 ? v->numel == 1 && !rows : (uint32_t)t->dim == v->ndims;
  for (int32_t i = 0; same && i < t->dim; i++) same = phys[i] == want_phys[i];
  if (!same) {
    /* Logical sizes from memory-order sizes through the dim order. */
    bool keep_order = (uint32_t)t->dim == v->ndims;
    for (uint32_t i = 0; i < v->ndims; i++)
      want[keep_order && t->dim_order[i] < v->ndims ? t->dim_order[i] : i] = want_phys[i];
    pte_status st = pte_tensor_resize(t, (int32_t)v->ndims, want);
    if (st) {
      char b[160];
      return xg_error_prefix(st, "XNNPACK delegate output %u: cannot take shape %s", e,
                             pte_shape_str((int32_t)v->ndims, want, b, sizeof b));
    }
  }
  if (!t->data) return pte_error(PTE_ERR_INVALID_STATE, "XNNPACK delegate output %u has no memory", e);
  if (v->half) {
    /* Computed in fp32 (rows spread as for fp32), narrowed after the run. */
    size_t n = (size_t)pte_tensor_numel(t);
    if (t->capacity < n * 2)
      return pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "XNNPACK delegate output %u has room for %zu bytes, needs %zu", e, t->capacity, n * 2);
    d->bound[e] = rows && rw->strided ? d->stage[e] : d->hbuf[e];
    return PTE_OK;
  }
  if (rows && rw->strided) {
    d->bound[e] = d->stage[e];
  } else if (t->capacity >= full) {
    d->bound[e] = t->data;
  } else if (rows) {
    d->bound[e] = d->stage[e];
  } else {
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate output %u has room for %zu bytes, needs %zu",
                     e, t->capacity, full);
  }
  return PTE_OK;
}

/* Checks and binds every argument, inputs first (they decide the rows). */
static pte_status bind_args(xg_delegate *d, pte_value **args, xg_rows *rw, bool native, bool probe) {
  const xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  memset(rw, 0, sizeof *rw);
  rw->native = native;
  rw->probe = probe;
  if (native) {
    for (uint32_t k = 0; k < d->ndirty; k++) {
      uint32_t vi = d->dirty[k];
      d->real.values[vi] = g->values[vi];
      d->is_dirty[vi] = 0;
    }
    d->ndirty = 0;
  }
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t e = 0; e < p->nargs; e++) {
      uint32_t vi = p->ext_value[e];
      if (vi == XG_NONE) continue;
      const xg_value *v = &g->values[vi];
      const bool input = (v->flags & XG_FLAG_EXTERNAL_INPUT) != 0;
      if (input != (pass == 0)) continue;
      pte_value *a = args[e];
      if (!a || a->tag != PTE_TAG_TENSOR || !a->u.tensor)
        return pte_error(PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate argument %u is not a tensor", e);
      pte_tensor *t = a->u.tensor;
      size_t esize = arg_esize(g, vi, t);
      if (is_index_output(g, vi)) {
        if (t->dtype != PTE_INT64 && t->dtype != PTE_INT32)
          return pte_error(PTE_ERR_INVALID_ARGUMENT,
                           "XNNPACK delegate output %u (argmax indices) is %s, expected int64", e,
                           pte_dtype_name(t->dtype));
      } else if ((int)t->dtype != (v->half ? PTE_FLOAT16 : xg_datatype_arg_dtype(v->datatype))) {
        /* The graph's value decides: its bytes are what XNNPACK reads. */
        int want = v->half ? PTE_FLOAT16 : xg_datatype_arg_dtype(v->datatype);
        return pte_error(
            PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate %s %u is %s, expected %s (value %u is %s)",
            input ? "input" : "output", e, pte_dtype_name(t->dtype), want < 0 ? "none" : pte_dtype_name(want),
            vi, v->half ? "fp16" : xg_datatype_name(v->datatype));
      }
      if (t->dim > PTE_MAX_DIM)
        return pte_error(PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate argument %u has rank %d", e,
                         (int)t->dim);
      pte_tensor wide;
      if (input && v->half) {
        /* Widened into the planned fp32 buffer, which then stands for the
         * caller's tensor (too many elements: bind_input names the shape). */
        wide = *t;
        size_t n = (size_t)pte_tensor_numel(t);
        if (t->data && n <= v->numel && t->capacity < 2 * n)
          return pte_error(PTE_ERR_INVALID_ARGUMENT,
                           "XNNPACK delegate input %u holds %zu bytes, its %zu fp16 elements need %zu", e,
                           t->capacity, n, 2 * n);
        if (t->data && n <= v->numel) {
          k_f16_to_f32((float *)d->hbuf[e], (const uint16_t *)t->data, n);
          wide.data = d->hbuf[e];
          wide.capacity = v->nbytes;
        }
        t = &wide;
      }
      pte_status st = input ? bind_input(d, e, vi, t, rw) : bind_output(d, e, vi, t, rw, esize);
      if (st) return st;
    }
    if (pass == 0 && native) {
      pte_status st = native_shapes(d);
      if (st) return st;
    }
    if (pass == 0 && rw->have)
      for (uint32_t i = 0; i < p->row_dims; i++) {
        rw->shrunk |= rw->real[i] < p->row_max[i];
        rw->strided |= i > 0 && rw->real[i] < p->row_max[i];
      }
  }
  return PTE_OK;
}

/* Whether this call's rows (read from its first row-carrying input) are at
 * most XG_NATIVE_ROWS_SHARE of the built ones. */
#define XG_NATIVE_ROWS_SHARE 0.25
static bool few_rows(const xg_delegate *d, pte_value **args) {
  const xg_plan *p = &d->plan;
  if (!p->batchable) return false;
  for (uint32_t e = 0; e < p->nargs; e++) {
    uint32_t vi = p->ext_value[e];
    if (vi == XG_NONE || !p->batched[vi] || !(d->g.values[vi].flags & XG_FLAG_EXTERNAL_INPUT)) continue;
    const pte_value *a = args[e];
    if (!a || a->tag != PTE_TAG_TENSOR || !a->u.tensor) return false;
    const pte_tensor *t = a->u.tensor;
    if (t->dim > PTE_MAX_DIM || (uint32_t)t->dim != d->g.values[vi].ndims || t->dim < (int32_t)p->row_dims)
      return false;
    int64_t phys[PTE_MAX_DIM];
    physical_sizes(t, phys);
    double real = 1, built = 1;
    for (uint32_t i = 0; i < p->row_dims; i++) real *= (double)phys[i], built *= (double)p->row_max[i];
    return real <= XG_NATIVE_ROWS_SHARE * built;
  }
  return false;
}

/* One XNNPACK runtime: set up again only when a bound pointer changed. */
static pte_status run_segment(xg_delegate *d, uint32_t s) {
  xg_seg_rt *r = &d->segs[s];
  bool changed = false;
  for (uint32_t j = 0; j < r->n; j++) {
    void *ptr = value_ptr(d, r->values[j]);
    if (r->ext[j].data != ptr) r->ext[j].data = ptr, changed = true;
  }
  enum xnn_status xs = xnn_status_success;
  if (changed) xs = d->api->xnn_setup_runtime(r->rt, r->n, r->ext);
  if (xs == xnn_status_success) xs = d->api->xnn_invoke_runtime(r->rt);
  if (xs == xnn_status_success) return PTE_OK;
  /* A failed setup leaves the runtime half re-pointed: force a full setup
   * next time. */
  for (uint32_t j = 0; j < r->n; j++) r->ext[j].data = NULL;
  return pte_error(PTE_ERR_BACKEND, "XNNPACK runtime %u failed: %s", s, xnn_api_status(xs));
}

/* A value's buffer in a native run at the real shapes. */
static inline void *native_ptr(const xg_delegate *d, uint32_t vi) {
  void *p = d->fb[vi];
  return p ? p : d->bound[d->g.values[vi].external_id];
}

static pte_status run_native(xg_delegate *d, uint32_t ni, pte_value **args, bool real) {
  const xg_graph *g = real ? &d->real : &d->g;
  const xg_node *n = &g->nodes[ni];
  void *ptr[8];
  for (uint32_t k = 0; k < n->nin; k++)
    ptr[k] = n->in[k] == XG_NONE ? NULL : real ? native_ptr(d, n->in[k]) : value_ptr(d, n->in[k]);
  for (uint32_t k = 0; k < n->nout; k++)
    ptr[n->nin + k] = real ? native_ptr(d, n->out[k]) : value_ptr(d, n->out[k]);
  bool i64 = false;
  for (uint32_t k = 0; k < n->nout; k++)
    if (g->values[n->out[k]].flags && is_index_output(g, n->out[k]))
      i64 = args[g->values[n->out[k]].external_id]->u.tensor->dtype == PTE_INT64;
  return xg_native_run(g, ni, ptr, i64);
}

/* After a run: real rows written to staging go back to the caller's
 * tensors, fp16 outputs are narrowed from their fp32 buffers. */
static void finish_outputs(xg_delegate *d, pte_value **args, const xg_rows *rw) {
  const xg_graph *g = &d->g;
  const xg_plan *p = &d->plan;
  if (rw->shrunk || d->half_outs) {
    for (uint32_t e = 0; e < p->nargs; e++) {
      uint32_t vi = p->ext_value[e];
      if (vi == XG_NONE || !(g->values[vi].flags & XG_FLAG_EXTERNAL_OUTPUT)) continue;
      pte_tensor *t = args[e]->u.tensor;
      const bool half = g->values[vi].half;
      uint8_t *dst = half ? (uint8_t *)d->hbuf[e] : (uint8_t *)t->data;
      if (rw->shrunk && d->bound[e] != dst) {
        size_t esize = arg_esize(g, vi, t);
        size_t row = row_bytes(&g->values[vi], p->row_dims, esize);
        if (rw->strided) copy_rows(d->bound[e], dst, p->row_max, rw->real, p->row_dims, row, false);
        else memcpy(dst, d->bound[e], real_rows(rw, p->row_dims) * row);
      }
      if (half) k_f32_to_f16((uint16_t *)t->data, (const float *)d->hbuf[e], (size_t)pte_tensor_numel(t));
    }
  }
}

pte_status xg_delegate_run(xg_delegate *d, pte_value **args, int32_t nargs, const pte_tracer *tr,
                           const pte_event *event) {
  const xg_plan *p = &d->plan;
  if (nargs < 0 || (uint32_t)nargs < p->nargs)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "XNNPACK delegate: called with %d arguments, needs %u",
                     (int)nargs, p->nargs);
  if (d->lent && d->g.ws.bytes && !d->g.ws.base)
    return pte_error(PTE_ERR_INVALID_STATE, "XNNPACK delegate: no workspace was lent for the run");
  xg_rows rw;
  pte_status st = PTE_ERR_INVALID_ARGUMENT;
  /* A few rows of many (a decode step of a graph built for a whole prompt)
   * run natively at their real shape: the runtimes would compute every
   * built row. */
  const bool few = d->native_shapes && !d->rows_not_native && few_rows(d, args);
  if (few) st = bind_args(d, args, &rw, true, true);
  if (st) {
    st = bind_args(d, args, &rw, false, d->native_shapes);
    /* The rows run, but not natively (some node's shape does not follow
     * from its inputs'): keep to the rows from now on. */
    if (!st && few) d->rows_not_native = true;
  }
  /* Shapes the built runtimes cannot take: every node natively at the real
   * shapes, when the graph allows it. */
  if (st == PTE_ERR_INVALID_ARGUMENT && d->native_shapes) st = bind_args(d, args, &rw, true, false);
  if (st) return st;
  pte_event ev;
  if (tr) ev = *event;
  d->last_xnn = d->last_native = 0;
  if (rw.native) {
    for (uint32_t si = 0; si < p->nsteps; si++) {
      const xg_step *s = &p->steps[si];
      const xg_segment *seg = s->kind == XG_STEP_XNN ? &p->segs[s->index] : NULL;
      uint64_t tok = 0;
      if (tr) tok = trace_begin(tr, &ev, s);
      for (uint32_t k = 0; k < (seg ? seg->count : 1) && !st; k++)
        st = run_native(d, seg ? p->seg_nodes[seg->first + k] : s->index, args, true);
      if (tr && tr->end) tr->end(tr->user, &ev, tok);
      if (st) return st;
      d->last_native += seg ? seg->count : 1;
    }
    finish_outputs(d, args, &rw);
    return PTE_OK;
  }
  for (uint32_t si = 0; si < p->nsteps; si++) {
    const xg_step *s = &p->steps[si];
    uint64_t tok = 0;
    if (tr) tok = trace_begin(tr, &ev, s);
    st = s->kind == XG_STEP_XNN ? run_segment(d, s->index) : run_native(d, s->index, args, false);
    if (tr && tr->end) tr->end(tr->user, &ev, tok);
    if (st) return st;
    if (s->kind == XG_STEP_XNN) d->last_xnn++;
    else d->last_native++;
  }
  finish_outputs(d, args, &rw);
  return PTE_OK;
}

size_t xg_delegate_workspace(const xg_delegate *d) { return d->lent ? d->g.ws.bytes : 0; }

pte_status xg_delegate_lend(xg_delegate *d, void *ws, size_t bytes) {
  if (!d->lent || ws == d->g.ws.base || !d->g.ws.bytes) return PTE_OK;
  if (!ws || bytes < d->g.ws.bytes || (uintptr_t)ws % 64)
    return pte_error(PTE_ERR_INVALID_ARGUMENT,
                     "XNNPACK delegate: lent %zu bytes of workspace at %p, needs %zu, 64-byte aligned", bytes,
                     ws, d->g.ws.bytes);
  bind_workspace(d, ws);
  return PTE_OK;
}

void xg_delegate_get_info(const xg_delegate *d, xg_delegate_info *info) {
  memset(info, 0, sizeof *info);
  info->nodes = d->g.nnodes;
  info->values = d->g.nvalues;
  info->segments = d->plan.nsegs;
  for (uint32_t i = 0; i < d->plan.nsteps; i++) info->native_steps += d->plan.steps[i].kind == XG_STEP_NATIVE;
  for (uint32_t i = 0; i < d->g.nnodes; i++) {
    if (d->g.nodes[i].exec == XG_EXEC_XNN) info->xnn_nodes++;
    else if (d->g.nodes[i].exec == XG_EXEC_NATIVE) info->native_nodes++;
    else info->dead_nodes++;
  }
  info->arena_bytes = d->plan.arena_size;
  info->workspace_bytes = d->g.ws.bytes;
  info->workspace_lent = d->lent;
  info->static_copy_bytes = d->plan.static_copy_bytes;
  info->batchable = d->plan.batchable;
  info->batch_max = d->plan.batch_max;
}

const xg_graph *xg_delegate_graph(const xg_delegate *d) { return &d->g; }
const xg_plan *xg_delegate_plan(const xg_delegate *d) { return &d->plan; }

void xg_delegate_last_run(const xg_delegate *d, uint32_t *xnn_runs, uint32_t *native_runs) {
  *xnn_runs = d->last_xnn;
  *native_runs = d->last_native;
}
