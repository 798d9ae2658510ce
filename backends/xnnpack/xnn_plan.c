/* Execution plan: which nodes run together in one XNNPACK runtime, which run
 * as native steps in between, and where every value lives.
 *
 * Order. Nodes are scheduled in a topological order that keeps XNNPACK nodes
 * together: a greedy list scheduler stays in the current mode (XNNPACK or
 * native) while a node of that mode is ready, and switches only when none is.
 * Reshape and copy nodes run either way (both are a copy) and go with the
 * current mode. A run of XNNPACK-mode nodes becomes one segment: one
 * subgraph and one runtime. A segment that would hold only copies is run
 * natively instead, as a runtime for a memcpy is not worth its overhead.
 *
 * Values. Constants stay where they are (the mapped program or .ptd), except
 * those XNNPACK reads at run time rather than packing at creation (operands
 * of elementwise nodes) and misaligned ones: those are copied once into
 * padded buffers, as XNNPACK may read XNN_EXTRA_BYTES past the end. A value
 * produced and consumed inside one segment is XNNPACK's business. Every other
 * intermediate value gets a range of one arena allocated at init; ranges are
 * reused between values whose lifetimes (in steps) do not overlap, and a
 * native copy between two arena values shares its input's range (no bytes
 * move).
 *
 * Batch. When the graph treats dimension 0 of its inputs as independent rows
 * all the way to its outputs, an input whose leading dimension is smaller
 * than the one the delegate was built for can run on the built runtimes: the
 * first rows are the real ones and the outputs' first rows are the result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_nodes.h"

/* ---- a min-heap of node indices (keeps the schedule close to file order) ---- */

typedef struct heap {
  uint32_t *a;
  uint32_t n;
} heap;

static void heap_push(heap *h, uint32_t v) {
  uint32_t i = h->n++;
  h->a[i] = v;
  while (i && h->a[(i - 1) / 2] > h->a[i]) {
    uint32_t p = (i - 1) / 2, t = h->a[p];
    h->a[p] = h->a[i], h->a[i] = t, i = p;
  }
}

static uint32_t heap_pop(heap *h) {
  uint32_t top = h->a[0];
  h->a[0] = h->a[--h->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && h->a[l] < h->a[m]) m = l;
    if (r < h->n && h->a[r] < h->a[m]) m = r;
    if (m == i) break;
    uint32_t t = h->a[m];
    h->a[m] = h->a[i], h->a[i] = t, i = m;
  }
  return top;
}

/* Copies run either way: XNNPACK's reshape, or a memcpy. */
static bool is_flexible(const xg_node *n) { return n->exec == XG_EXEC_XNN && n->copy_like; }

/* ---- batch analysis ---- */

/* The leading `r` (>= 2) dims of a value are the row prefix. */
static bool has_prefix(const xg_value *v, const xg_plan *p, uint32_t r) {
  if (v->ndims < r) return false;
  for (uint32_t i = 0; i < r; i++)
    if (v->dims[i] != p->row_max[i]) return false;
  return true;
}

/* Whether the graph keeps the leading r dims of its row inputs as rows
 * from its inputs to its outputs; marks the values that carry them. */
static bool rows_at_depth(const xg_graph *g, const uint32_t *order, uint32_t nlive, xg_plan *p, uint32_t r) {
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    const xg_value *v = &g->values[vi];
    p->batched[vi] = (v->flags & XG_FLAG_EXTERNAL_INPUT) &&
                     (r == 1 ? v->ndims >= 1 && v->dims[0] == p->row_max[0] : has_prefix(v, p, r));
  }
  for (uint32_t s = 0; s < nlive; s++) {
    const xg_node *n = &g->nodes[order[s]];
    bool any = false;
    for (uint32_t k = 0; k < n->nin; k++) any |= n->in[k] != XG_NONE && p->batched[n->in[k]];
    if (!any) continue;
    const xg_node_desc *d = xg_node_desc_of(n->type);
    if (!d || !d->batch || !d->batch(g, n, p->batched, r)) return false;
    for (uint32_t k = 0; k < n->nout; k++) {
      const xg_value *o = &g->values[n->out[k]];
      if (r == 1 ? o->ndims < 1 || o->dims[0] != p->row_max[0] : !has_prefix(o, p, r)) return false;
      p->batched[n->out[k]] = 1;
    }
  }
  return true;
}

/* Row dims: the deepest prefix of the first input's dims (all but its last)
 * that the graph keeps as independent rows. Inputs may then be smaller in
 * any of those dims at run time. */
static void analyse_batch(const xg_graph *g, const uint32_t *order, uint32_t nlive, xg_plan *p) {
  p->batchable = false;
  p->batch_max = 0;
  p->row_dims = 0;
  const xg_value *first = NULL;
  for (uint32_t e = 0; e < g->num_externs && !first; e++) {
    uint32_t vi = p->ext_value[e];
    if (vi == XG_NONE) continue;
    const xg_value *v = &g->values[vi];
    if (v->flags & XG_FLAG_EXTERNAL_INPUT) first = v;
  }
  for (uint32_t i = 0; first && i < first->ndims; i++) p->row_max[i] = first->dims[i];
  for (uint32_t r = first && first->ndims ? first->ndims - 1 : 0; r >= 2; r--) {
    size_t rows = 1;
    for (uint32_t i = 0; i < r; i++) rows *= first->dims[i];
    if (rows > 1 && rows > first->dims[0] && rows_at_depth(g, order, nlive, p, r)) {
      p->row_dims = r;
      p->batch_max = first->dims[0];
      p->batchable = true;
      return;
    }
  }
  /* Dimension 0 alone: of the first input where it exceeds 1. */
  size_t batch = 0;
  for (uint32_t e = 0; e < g->num_externs && !batch; e++) {
    uint32_t vi = p->ext_value[e];
    if (vi == XG_NONE) continue;
    const xg_value *v = &g->values[vi];
    if ((v->flags & XG_FLAG_EXTERNAL_INPUT) && v->ndims >= 1 && v->dims[0] > 1) batch = v->dims[0];
  }
  p->row_max[0] = batch;
  if (!batch || !rows_at_depth(g, order, nlive, p, 1)) return;
  p->row_dims = 1;
  p->batch_max = batch;
  p->batchable = true;
}

/* ---- arena placement ---- */

typedef struct live {
  uint32_t value;
  uint32_t first, last; /* steps */
  size_t size;
} live;

static int cmp_live(const void *a, const void *b) {
  const live *x = (const live *)a, *y = (const live *)b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value ? 1 : 0;
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static pte_status out_of_memory(void) {
  return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK plan: out of memory");
}

/* Greedy first fit by decreasing size. Quadratic, so past a few thousand
 * buffers (never seen in real exports) each gets its own range. */
static pte_status fit_ranges(live *L, uint32_t count, xg_plan *p) {
  qsort(L, count, sizeof(live), cmp_live);
  size_t total = 0;
  bool reuse = count <= 4096;
  for (uint32_t i = 0; i < count; i++) {
    size_t off = 0;
    if (reuse) {
      bool moved = true;
      while (moved) {
        moved = false;
        for (uint32_t j = 0; j < i; j++) {
          if (L[j].last < L[i].first || L[i].last < L[j].first) continue; /* disjoint in time */
          size_t o = p->offset[L[j].value];
          if (off < o + L[j].size && o < off + L[i].size) {
            off = o + L[j].size;
            moved = true;
          }
        }
      }
    } else {
      off = total;
    }
    p->offset[L[i].value] = off;
    if (off + L[i].size > total) total = off + L[i].size;
    if (total > XG_MAX_TOTAL_BYTES)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK plan: intermediate buffers exceed %zu bytes",
                       (size_t)XG_MAX_TOTAL_BYTES);
  }
  p->arena_size = total;
  return PTE_OK;
}

/* A native copy (reshape, copy, a transpose that moves no byte) from one
 * arena value to another of the same size needs no bytes moved: its output
 * shares its input's range (values are written once, by their producer),
 * and the copy sees equal pointers. alias[v] is the value whose range v
 * takes (v itself when none). */
static void alias_copies(const xg_graph *g, const xg_plan *p, uint32_t *alias) {
  for (uint32_t vi = 0; vi < g->nvalues; vi++) alias[vi] = vi;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    const xg_node *n = &g->nodes[ni];
    if (n->exec != XG_EXEC_NATIVE || !n->copy_like || n->nin != 1 || n->nout != 1) continue;
    const uint32_t vi = n->in[0], vo = n->out[0];
    if (vi == XG_NONE || vo == XG_NONE || p->loc[vi] != XG_LOC_ARENA || p->loc[vo] != XG_LOC_ARENA ||
        g->values[vi].nbytes != g->values[vo].nbytes)
      continue;
    alias[vo] = vi;
  }
  /* chains (reshape of a reshape) end at a value that is no copy's output:
   * a value has one producer, so following alias terminates */
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    uint32_t r = vi;
    while (alias[r] != r) r = alias[r];
    alias[vi] = r;
  }
}

static pte_status place_arena(const xg_graph *g, const uint32_t *step_of_node, xg_mem *mem, xg_plan *p) {
  uint32_t count = 0;
  uint32_t *alias = (uint32_t *)xg_mem_array(mem, g->nvalues, sizeof(uint32_t));
  if (!alias) return out_of_memory();
  alias_copies(g, p, alias);
  for (uint32_t vi = 0; vi < g->nvalues; vi++) count += p->loc[vi] == XG_LOC_ARENA && alias[vi] == vi;
  if (!count) return PTE_OK;
  live *L = (live *)xg_mem_array(mem, count, sizeof(live));
  uint32_t *slot = (uint32_t *)xg_mem_array(mem, g->nvalues, sizeof(uint32_t));
  if (!L || !slot) return out_of_memory();
  uint32_t k = 0;
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    if (p->loc[vi] != XG_LOC_ARENA || alias[vi] != vi) continue;
    L[k].value = vi;
    L[k].first = L[k].last = step_of_node[g->values[vi].producer];
    L[k].size = round_up(g->values[vi].nbytes + XG_EXTRA_BYTES, 64);
    slot[vi] = k++;
  }
  /* Lifetimes: from the range owner's producer to the last use of any value
   * sharing the range (a copy's output is produced after its input). */
  for (uint32_t vi = 0; vi < g->nvalues; vi++)
    if (p->loc[vi] == XG_LOC_ARENA && alias[vi] != vi) {
      live *l = &L[slot[alias[vi]]];
      const uint32_t s = step_of_node[g->values[vi].producer];
      if (s > l->last) l->last = s;
    }
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    const xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    for (uint32_t j = 0; j < n->nin; j++) {
      uint32_t vi = n->in[j];
      if (vi == XG_NONE || p->loc[vi] != XG_LOC_ARENA) continue;
      live *l = &L[slot[alias[vi]]];
      if (step_of_node[ni] > l->last) l->last = step_of_node[ni];
    }
  }
  pte_status st = fit_ranges(L, count, p);
  for (uint32_t vi = 0; vi < g->nvalues && !st; vi++)
    if (p->loc[vi] == XG_LOC_ARENA) p->offset[vi] = p->offset[alias[vi]];
  return st;
}

/* ---- the plan ---- */

/* Working state of xg_make_plan (from the delegate's memory). */
typedef struct planner {
  xg_graph *g;
  xg_mem *mem;
  xg_plan *p;
  uint32_t *order, nlive; /* live nodes in execution order */
  uint32_t *seg_of_node;  /* while scheduling: the mode a node ran in; then its segment or UINT32_MAX */
  uint32_t *step_of_node;
  uint32_t *cons_start, *cons; /* consumers of each value (CSR), live ones first, UINT32_MAX after */
} planner;

#define PLAN_ARRAY(ps, n, type) ((type *)xg_mem_array((ps)->mem, (n), sizeof(type)))

static pte_status find_consumers(planner *ps, uint32_t *waiting) {
  const xg_graph *g = ps->g;
  const uint32_t nn = g->nnodes, nv = g->nvalues;
  size_t nedges = 0;
  ps->cons_start = PLAN_ARRAY(ps, (size_t)nv + 1, uint32_t);
  uint32_t *fill = PLAN_ARRAY(ps, (size_t)nv + 1, uint32_t);
  if (!ps->cons_start || !fill) return out_of_memory();
  for (uint32_t ni = 0; ni < nn; ni++)
    for (uint32_t j = 0; j < g->nodes[ni].nin; j++)
      if (g->nodes[ni].in[j] != XG_NONE) ps->cons_start[g->nodes[ni].in[j] + 1]++, nedges++;
  for (uint32_t vi = 0; vi < nv; vi++) ps->cons_start[vi + 1] += ps->cons_start[vi];
  uint32_t *cons = ps->cons = PLAN_ARRAY(ps, nedges + 1, uint32_t);
  if (!cons) return out_of_memory();
  memcpy(fill, ps->cons_start, ((size_t)nv + 1) * sizeof(uint32_t));
  for (uint32_t ni = 0; ni < nn; ni++)
    for (uint32_t j = 0; j < g->nodes[ni].nin; j++) {
      uint32_t vi = g->nodes[ni].in[j];
      if (vi == XG_NONE) continue;
      cons[fill[vi]++] = ni;
      if (g->values[vi].producer >= 0) waiting[ni]++;
    }
  /* Dead nodes neither run nor count as consumers. */
  for (uint32_t vi = 0; vi < nv; vi++) {
    uint32_t w = ps->cons_start[vi];
    for (uint32_t c = ps->cons_start[vi]; c < fill[vi]; c++)
      if (g->nodes[cons[c]].exec != XG_EXEC_DEAD) cons[w++] = cons[c];
    for (uint32_t c = w; c < fill[vi]; c++) cons[c] = UINT32_MAX;
  }
  return PTE_OK;
}

static void push_ready(const xg_graph *g, heap *hx, heap *hn, uint32_t ni) {
  const xg_node *n = &g->nodes[ni];
  if (n->exec == XG_EXEC_XNN) heap_push(hx, ni);
  if (n->exec == XG_EXEC_NATIVE || is_flexible(n)) heap_push(hn, ni);
}

/* Greedy list scheduling (see the top of the file) into ps->order. */
static pte_status schedule(planner *ps) {
  const xg_graph *g = ps->g;
  const uint32_t nn = g->nnodes;
  uint32_t *waiting = PLAN_ARRAY(ps, nn, uint32_t);
  uint8_t *done = PLAN_ARRAY(ps, nn, uint8_t);
  heap hx = {PLAN_ARRAY(ps, nn, uint32_t), 0}, hn = {PLAN_ARRAY(ps, nn, uint32_t), 0};
  if (!waiting || !done || !hx.a || !hn.a) return out_of_memory();
  pte_status st = find_consumers(ps, waiting);
  if (st) return st;
  ps->nlive = 0;
  for (uint32_t ni = 0; ni < nn; ni++) {
    if (g->nodes[ni].exec == XG_EXEC_DEAD) continue;
    ps->nlive++;
    if (!waiting[ni]) push_ready(g, &hx, &hn, ni);
  }
  int mode = 0; /* XG_EXEC_* */
  for (uint32_t nsched = 0; nsched < ps->nlive; nsched++) {
    /* Drop entries already scheduled through the other heap. */
    while (hx.n && done[hx.a[0]]) heap_pop(&hx);
    while (hn.n && done[hn.a[0]]) heap_pop(&hn);
    if (!hx.n && !hn.n)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: %u of %u nodes can never run (their inputs form a cycle)",
                       ps->nlive - nsched, ps->nlive);
    if (mode == 0) {
      /* Start with the mode of the first ready node that is not a plain copy. */
      uint32_t a = hx.n ? hx.a[0] : UINT32_MAX, b = hn.n ? hn.a[0] : UINT32_MAX;
      mode = (a < b && !is_flexible(&g->nodes[a])) || !hn.n ? XG_EXEC_XNN : XG_EXEC_NATIVE;
    }
    heap *h = mode == XG_EXEC_XNN ? &hx : &hn;
    if (!h->n) {
      mode = mode == XG_EXEC_XNN ? XG_EXEC_NATIVE : XG_EXEC_XNN;
      h = mode == XG_EXEC_XNN ? &hx : &hn;
    }
    uint32_t ni = heap_pop(h);
    done[ni] = 1;
    ps->order[nsched] = ni;
    ps->seg_of_node[ni] = (uint32_t)mode; /* provisional: the mode it ran in */
    for (uint32_t k = 0; k < g->nodes[ni].nout; k++) {
      uint32_t vo = g->nodes[ni].out[k];
      for (uint32_t c = ps->cons_start[vo]; c < ps->cons_start[vo + 1] && ps->cons[c] != UINT32_MAX; c++)
        if (--waiting[ps->cons[c]] == 0) push_ready(g, &hx, &hn, ps->cons[c]);
    }
  }
  return PTE_OK;
}

/* End of the run of the order starting at i: a segment when it holds at
 * least one real XNNPACK node (not only copies), else one native step. */
static uint32_t run_end(const planner *ps, uint32_t i, bool *segment) {
  uint32_t j = i;
  bool real = false;
  while (j < ps->nlive && ps->seg_of_node[ps->order[j]] == XG_EXEC_XNN)
    real |= !is_flexible(&ps->g->nodes[ps->order[j]]), j++;
  *segment = j > i && real;
  return j > i ? j : i + 1;
}

/* Cut the order into steps: segments and native steps. */
static pte_status cut_steps(planner *ps) {
  xg_graph *g = ps->g;
  xg_plan *p = ps->p;
  uint32_t nsegs = 0, nsteps = 0;
  bool seg;
  for (uint32_t i = 0, end; i < ps->nlive; i = end) {
    end = run_end(ps, i, &seg);
    if (seg) nsegs++, nsteps++;
    else nsteps += end - i;
  }
  p->segs = PLAN_ARRAY(ps, (size_t)nsegs + 1, xg_segment);
  p->steps = PLAN_ARRAY(ps, (size_t)nsteps + 1, xg_step);
  if (!p->segs || !p->steps) return out_of_memory();
  uint32_t fill = 0;
  for (uint32_t i = 0, end; i < ps->nlive; i = end) {
    end = run_end(ps, i, &seg);
    if (seg) {
      xg_segment *s = &p->segs[p->nsegs];
      s->first = fill;
      s->count = end - i;
      for (uint32_t k = i; k < end; k++) {
        p->seg_nodes[fill++] = ps->order[k];
        ps->step_of_node[ps->order[k]] = p->nsteps;
        g->nodes[ps->order[k]].exec = XG_EXEC_XNN; /* the copies of this run too */
        ps->seg_of_node[ps->order[k]] = p->nsegs;
      }
      p->steps[p->nsteps].kind = XG_STEP_XNN;
      p->steps[p->nsteps].index = p->nsegs;
      p->steps[p->nsteps].debug_id = -1;
      p->nsteps++, p->nsegs++;
      continue;
    }
    for (uint32_t k = i; k < end; k++) {
      uint32_t ni = ps->order[k];
      g->nodes[ni].exec = XG_EXEC_NATIVE;
      ps->seg_of_node[ni] = UINT32_MAX;
      ps->step_of_node[ni] = p->nsteps;
      p->steps[p->nsteps].kind = XG_STEP_NATIVE;
      p->steps[p->nsteps].index = ni;
      p->steps[p->nsteps].debug_id = g->nodes[ni].debug_handle;
      p->nsteps++;
    }
  }
  for (uint32_t ni = 0; ni < g->nnodes; ni++)
    p->node_seg[ni] = ps->seg_of_node[ni] == UINT32_MAX ? XG_NONE : ps->seg_of_node[ni];
  return PTE_OK;
}

/* Where each value lives, and which constants are copied: those XNNPACK
 * reads at run time, and misaligned ones. */
static void place_values(planner *ps) {
  const xg_graph *g = ps->g;
  xg_plan *p = ps->p;
  for (uint32_t e = 0; e <= g->num_externs; e++) p->ext_value[e] = XG_NONE;
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    const xg_value *v = &g->values[vi];
    if (v->has_data) {
      p->loc[vi] = v->uses ? XG_LOC_STATIC : XG_LOC_NONE;
    } else if (v->flags) {
      p->loc[vi] = XG_LOC_EXTERNAL;
      p->ext_value[v->external_id] = vi;
      if (v->external_id + 1 > p->nargs) p->nargs = v->external_id + 1;
      if (v->nbytes > p->max_external_bytes) p->max_external_bytes = v->nbytes;
    } else if (v->producer >= 0 && g->nodes[v->producer].exec != XG_EXEC_DEAD) {
      uint32_t s = ps->seg_of_node[v->producer];
      bool inside = s != UINT32_MAX;
      for (uint32_t c = ps->cons_start[vi]; inside && c < ps->cons_start[vi + 1] && ps->cons[c] != UINT32_MAX;
           c++)
        inside = ps->seg_of_node[ps->cons[c]] == s;
      p->loc[vi] = inside ? XG_LOC_XNN_INTERNAL : XG_LOC_ARENA;
      if (inside) p->xnn_internal_bytes += v->nbytes;
    } else {
      p->loc[vi] = XG_LOC_NONE;
    }
  }
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    const xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    for (uint32_t j = 0; j < n->nin; j++) {
      uint32_t vi = n->in[j];
      if (vi == XG_NONE || p->loc[vi] != XG_LOC_STATIC || p->static_copy[vi]) continue;
      bool misaligned = ((uintptr_t)g->values[vi].data % 16) != 0;
      if (misaligned || (n->exec == XG_EXEC_XNN && !xg_input_is_packed(n, j))) {
        p->static_copy[vi] = 1;
        p->static_copy_bytes += round_up(g->values[vi].nbytes + XG_EXTRA_BYTES, 64);
      }
    }
  }
}

/* A native copy of a delegate input (reshape, copy, a transpose that moves
 * no byte) read only by native nodes needs no bytes moved either: its
 * output reads the bound input (XG_LOC_BOUND, the input's external id; a
 * run binds every input before any node runs, and inputs are read-only). */
static void alias_bound_copies(planner *ps) {
  xg_graph *g = ps->g;
  xg_plan *p = ps->p;
  for (uint32_t k = 0; k < ps->nlive; k++) {
    const xg_node *n = &g->nodes[ps->order[k]];
    if (n->exec != XG_EXEC_NATIVE || !n->copy_like || n->nin != 1 || n->nout != 1) continue;
    const uint32_t vi = n->in[0], vo = n->out[0];
    if (vi == XG_NONE || vo == XG_NONE || p->loc[vo] != XG_LOC_ARENA ||
        g->values[vi].nbytes != g->values[vo].nbytes)
      continue;
    const bool input = p->loc[vi] == XG_LOC_BOUND ||
                       (p->loc[vi] == XG_LOC_EXTERNAL && (g->values[vi].flags & XG_FLAG_EXTERNAL_INPUT));
    bool native = input;
    for (uint32_t c = ps->cons_start[vo]; native && c < ps->cons_start[vo + 1] && ps->cons[c] != UINT32_MAX;
         c++)
      native = g->nodes[ps->cons[c]].exec == XG_EXEC_NATIVE;
    if (!native) continue;
    p->loc[vo] = XG_LOC_BOUND;
    g->values[vo].external_id = g->values[vi].external_id;
  }
}

/* Values crossing each segment's boundary: counted, then listed. */
static size_t list_boundaries(const xg_graph *g, xg_plan *p, uint32_t *mark, uint32_t *out) {
  size_t next = 0;
  for (uint32_t s = 0; s < p->nsegs; s++) {
    if (out) p->segs[s].ext_first = (uint32_t)next;
    for (uint32_t k = 0; k < p->segs[s].count; k++) {
      const xg_node *n = &g->nodes[p->seg_nodes[p->segs[s].first + k]];
      for (uint32_t j = 0; j < (uint32_t)n->nin + n->nout; j++) {
        uint32_t vi = j < n->nin ? n->in[j] : n->out[j - n->nin];
        if (vi == XG_NONE || (p->loc[vi] != XG_LOC_ARENA && p->loc[vi] != XG_LOC_EXTERNAL)) continue;
        if (mark[vi] == s + 1) continue;
        mark[vi] = s + 1;
        if (out) out[next] = vi;
        next++;
      }
    }
    if (out) p->segs[s].nexternal = (uint32_t)next - p->segs[s].ext_first;
  }
  return next;
}

static pte_status find_boundaries(planner *ps) {
  const uint32_t nv = ps->g->nvalues;
  uint32_t *mark = PLAN_ARRAY(ps, nv, uint32_t);
  if (!mark) return out_of_memory();
  size_t count = list_boundaries(ps->g, ps->p, mark, NULL);
  ps->p->seg_ext = PLAN_ARRAY(ps, count + 1, uint32_t);
  if (!ps->p->seg_ext) return out_of_memory();
  memset(mark, 0, (size_t)nv * sizeof(uint32_t));
  list_boundaries(ps->g, ps->p, mark, ps->p->seg_ext);
  return PTE_OK;
}

/* Tracer event names. */
static pte_status name_steps(planner *ps) {
  xg_plan *p = ps->p;
  for (uint32_t i = 0; i < p->nsteps; i++) {
    xg_step *s = &p->steps[i];
    char buf[96];
    if (s->kind == XG_STEP_XNN)
      snprintf(buf, sizeof buf, "XNNPACK runtime %u (%u nodes)", s->index, p->segs[s->index].count);
    else
      snprintf(buf, sizeof buf, "native %s (node %u)", xg_node_type_name(ps->g->nodes[s->index].type),
               s->index);
    size_t len = strlen(buf) + 1;
    char *name = (char *)xg_mem_alloc(ps->mem, len);
    if (!name) return out_of_memory();
    memcpy(name, buf, len);
    s->name = name;
  }
  return PTE_OK;
}

pte_status xg_make_plan(xg_graph *g, xg_mem *mem, xg_plan *p) {
  memset(p, 0, sizeof *p);
  const uint32_t nn = g->nnodes, nv = g->nvalues;
  planner ps = {g, mem, p, NULL, 0, NULL, NULL, NULL, NULL};
  p->loc = PLAN_ARRAY(&ps, nv, uint8_t);
  p->offset = PLAN_ARRAY(&ps, nv, size_t);
  p->static_copy = PLAN_ARRAY(&ps, nv, uint8_t);
  p->batched = PLAN_ARRAY(&ps, nv, uint8_t);
  p->ext_value = PLAN_ARRAY(&ps, (size_t)g->num_externs + 1, uint32_t);
  p->seg_nodes = PLAN_ARRAY(&ps, nn, uint32_t);
  p->node_seg = PLAN_ARRAY(&ps, nn, uint32_t);
  ps.order = PLAN_ARRAY(&ps, nn, uint32_t);
  ps.step_of_node = PLAN_ARRAY(&ps, nn, uint32_t);
  ps.seg_of_node = PLAN_ARRAY(&ps, nn, uint32_t);
  if (!p->loc || !p->offset || !p->static_copy || !p->batched || !p->ext_value || !p->seg_nodes ||
      !p->node_seg || !ps.order || !ps.step_of_node || !ps.seg_of_node)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK plan: out of memory for %u nodes", nn);
  for (uint32_t ni = 0; ni < nn; ni++) ps.seg_of_node[ni] = UINT32_MAX;
  pte_status st;
  if ((st = schedule(&ps)) || (st = cut_steps(&ps))) return st;
  place_values(&ps);
  alias_bound_copies(&ps);
  if ((st = find_boundaries(&ps)) || (st = place_arena(g, ps.step_of_node, mem, p))) return st;
  analyse_batch(g, ps.order, ps.nlive, p);
  return name_steps(&ps);
}
