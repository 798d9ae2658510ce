/* The recorder: creation, the tracer callbacks, name interning.
 *
 * The callbacks run on the execute path, so they never allocate, lock or do
 * I/O: a record is a few stores into the array reserved at create, a name is
 * looked up in a preallocated table, a captured tensor is one memcpy into the
 * debug buffer. */
#define _POSIX_C_SOURCE 200809L
#include "etdump_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEFAULT_EVENTS 65536
#define DEFAULT_DEBUG_VALUES 16384
#define DEFAULT_NAMES 4096
#define DEFAULT_NAMES_BYTES (256u * 1024u)
#define MAX_COUNT (1 << 28) /* keeps every size computation far from overflow */

static inline uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- memory plan ---- */

typedef struct plan {
  int32_t max_recs, max_dbg, max_names;
  size_t names_bytes, dbuf;
  uint32_t hsize;
  size_t off_struct, off_recs, off_blocks, off_dbg, off_names, off_name_off, off_htab, off_pcache, off_dbuf,
      total;
} plan;

static size_t align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

static bool make_plan(const pte_etdump_options *o, plan *p) {
  memset(p, 0, sizeof *p);
  if (o && (o->abi < PTE_ABI_OLDEST || o->abi > PTE_ABI_VERSION)) return false;
  p->max_recs = o && o->max_events > 0 ? o->max_events : DEFAULT_EVENTS;
  p->dbuf = o ? o->debug_buffer_size : 0;
  p->max_dbg = p->dbuf ? (o->max_debug_values > 0 ? o->max_debug_values : DEFAULT_DEBUG_VALUES) : 0;
  p->max_names = o && o->max_names > 0 ? o->max_names : DEFAULT_NAMES;
  p->names_bytes = o && o->names_bytes > 0 ? o->names_bytes : DEFAULT_NAMES_BYTES;
  if (p->max_recs > MAX_COUNT || p->max_dbg > MAX_COUNT || p->max_names > MAX_COUNT ||
      p->names_bytes > ((size_t)1 << 31) || p->dbuf > ((size_t)1 << 40))
    return false;
  p->hsize = 16;
  while (p->hsize < 2u * (uint32_t)p->max_names) p->hsize <<= 1;
  size_t at = 0;
  p->off_struct = at;
  at = align_up(at + sizeof(pte_etdump), 64);
  p->off_recs = at;
  at = align_up(at + (size_t)p->max_recs * sizeof(etd_rec), 64);
  p->off_blocks = at;
  at = align_up(at + (size_t)p->max_recs + 1, 64);
  p->off_dbg = at;
  at = align_up(at + (size_t)p->max_dbg * sizeof(etd_dbg), 64);
  p->off_names = at;
  at = align_up(at + p->names_bytes, 64);
  p->off_name_off = at;
  at = align_up(at + (size_t)p->max_names * sizeof(int32_t), 64);
  p->off_htab = at;
  at = align_up(at + (size_t)p->hsize * sizeof(int32_t), 64);
  p->off_pcache = at;
  at = align_up(at + (size_t)p->hsize * sizeof(etd_pslot), 64);
  p->off_dbuf = at;
  at = align_up(at + p->dbuf, 64);
  p->total = at + 64; /* room to align a caller's block */
  return true;
}

size_t pte_etdump_memory_size(const pte_etdump_options *o) {
  plan p;
  return make_plan(o, &p) ? p.total : 0;
}

/* ---- names ---- */

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static uint32_t hash_ptr(const char *s) {
  uint64_t v = (uint64_t)(uintptr_t)s;
  v ^= v >> 29;
  v *= 0xbf58476d1ce4e5b9ull;
  return (uint32_t)(v >> 32);
}

static int32_t intern_slow(pte_etdump *e, const char *s) {
  uint32_t h = hash_str(s) & e->hmask;
  for (;;) {
    int32_t id = e->htab[h];
    if (id < 0) break;
    if (strcmp(e->names + e->name_off[id], s) == 0) return id;
    h = (h + 1) & e->hmask;
  }
  size_t len = strlen(s);
  if (e->nnames >= e->max_names || len + 1 > e->names_cap - e->names_used) return 0;
  int32_t id = e->nnames++;
  e->name_off[id] = (int32_t)e->names_used;
  memcpy(e->names + e->names_used, s, len + 1);
  e->names_used += len + 1;
  e->htab[h] = id;
  return id;
}

/* Names given by the runtime point into methods that may be freed before the
 * etdump is written, so they are copied once. The pointer cache makes the
 * common case one hash: within one top-level event (a load or an execute) the
 * program and method cannot be freed, so a pointer seen earlier in the same
 * event still holds the same string; across events a strcmp confirms it (a
 * freed string's address may have been reused for another). Id 0 is "?"
 * (table full). */
static inline int32_t intern(pte_etdump *e, const char *s) {
  if (!s) return -1;
  etd_pslot *ps = &e->pcache[hash_ptr(s) & e->hmask];
  if (ps->ptr == s && (ps->epoch == e->epoch || strcmp(e->names + e->name_off[ps->id], s) == 0)) {
    ps->epoch = e->epoch;
    return ps->id;
  }
  int32_t id = intern_slow(e, s);
  ps->ptr = s;
  ps->id = id;
  ps->epoch = e->epoch;
  return id;
}

int32_t etd_intern(pte_etdump *e, const char *s) { return s ? intern_slow(e, s) : -1; }

/* ---- tracer callbacks ---- */

static inline void push_open(pte_etdump *e, int32_t rec) {
  if (e->depth < ETD_MAX_DEPTH) e->stack[e->depth++] = rec;
  else e->overflow++;
}

static uint64_t on_begin(void *user, const pte_event *ev) {
  pte_etdump *e = (pte_etdump *)user;
  int32_t kind = ev->kind;
  if (e->depth == 0 && e->overflow == 0) e->epoch++; /* a new top-level event: see intern */
  bool new_block = e->nblocks == 0 || kind == PTE_EVENT_EXECUTE ||
                   ((kind == PTE_EVENT_PROGRAM_LOAD || kind == PTE_EVENT_METHOD_LOAD) &&
                    e->block_kind[e->nblocks - 1] != ETD_BLOCK_DEFAULT);
  if (e->nrecs >= e->max_recs || (new_block && e->nblocks > e->max_recs)) {
    e->dropped++;
    if (new_block) e->block_ok = false;
    push_open(e, -1);
    return ETD_NO_TOKEN;
  }
  if (new_block) {
    e->block_kind[e->nblocks++] = kind == PTE_EVENT_EXECUTE ? ETD_BLOCK_EXECUTE : ETD_BLOCK_DEFAULT;
    e->block_ok = true;
    if (kind == PTE_EVENT_EXECUTE) e->executes++;
  }
  int32_t idx = e->nrecs++;
  etd_rec *r = &e->recs[idx];
  int32_t parent = e->depth > 0 ? e->stack[e->depth - 1] : -1;
  r->end = 0;
  r->debug_id = ev->debug_id;
  r->name = intern(e, ev->name);
  r->method = intern(e, ev->method);
  r->instruction = ev->instruction;
  /* A delegate that does not know its call site inherits the DELEGATE_CALL's. */
  if (kind == PTE_EVENT_BACKEND && r->instruction < 0 && parent >= 0)
    r->instruction = e->recs[parent].instruction;
  r->chain = (int16_t)(kind == PTE_EVENT_BACKEND && ev->chain < 0 ? 0 : ev->chain);
  r->parent = parent;
  r->block = e->nblocks - 1;
  r->kind = (uint8_t)kind;
  r->depth = (uint8_t)(e->depth < 255 ? e->depth : 255);
  push_open(e, idx);
  r->start = now_ns(); /* last, so the bookkeeping above is not timed */
  return (uint64_t)idx;
}

static void on_end(void *user, const pte_event *ev, uint64_t token) {
  uint64_t t = now_ns(); /* first, for the same reason */
  pte_etdump *e = (pte_etdump *)user;
  (void)ev;
  if (e->overflow > 0) e->overflow--;
  else if (e->depth > 0) e->depth--;
  if (token < (uint64_t)e->nrecs) e->recs[token].end = t > e->recs[token].start ? t : e->recs[token].start;
}

static void on_output(void *user, const pte_event *ev, int32_t index, const pte_value *v) {
  pte_etdump *e = (pte_etdump *)user;
  if (!e->block_ok) return; /* its run block was dropped: do not mix it into another */
  if (e->ndbg >= e->max_dbg) {
    e->dropped_dbg++;
    return;
  }
  etd_dbg *d = &e->dbg[e->ndbg];
  memset(d, 0, offsetof(etd_dbg, sizes));
  d->after = e->nrecs;
  d->debug_id = ev->debug_id;
  d->block = e->nblocks - 1;
  d->instruction = ev->instruction;
  d->name = intern(e, ev->name);
  d->method = intern(e, ev->method);
  d->index = index;
  d->kind = (uint8_t)ev->kind;
  d->is_output = ev->kind == PTE_EVENT_EXECUTE;
  switch (v->tag) {
    case PTE_TAG_TENSOR: {
      const pte_tensor *t = v->u.tensor;
      size_t es = pte_dtype_size(t->dtype);
      if (!es || t->dim < 0 || t->dim > PTE_MAX_DIM) {
        e->dropped_dbg++;
        return;
      }
      size_t n = (size_t)pte_tensor_numel(t) * es;
      size_t off = align_up(e->dbuf_used, 16);
      if (n && (!t->data || off > e->dbuf_cap || n > e->dbuf_cap - off)) {
        e->dropped_dbg++;
        return;
      }
      d->tag = PTE_TAG_TENSOR;
      d->dtype = t->dtype;
      d->dim = t->dim;
      for (int32_t i = 0; i < t->dim; i++) {
        d->sizes[i] = t->sizes[i];
        d->strides[i] = t->strides[i];
      }
      d->offset = off;
      d->has_data = 1;
      if (n) {
        memcpy(e->dbuf + off, t->data, n);
        d->nbytes = n;
        e->dbuf_used = off + n;
      }
      break;
    }
    case PTE_TAG_INT:
      d->tag = PTE_TAG_INT;
      d->scalar.i = v->u.i;
      break;
    case PTE_TAG_BOOL:
      d->tag = PTE_TAG_BOOL;
      d->scalar.i = v->u.b;
      break;
    case PTE_TAG_DOUBLE:
      d->tag = PTE_TAG_DOUBLE;
      d->scalar.d = v->u.d;
      break;
    case PTE_TAG_NONE: d->tag = PTE_TAG_NONE; break;
    default: return; /* strings and lists are not values an instruction produces */
  }
  e->ndbg++;
}

/* ---- lifecycle ---- */

pte_status pte_etdump_create(const pte_etdump_options *o, pte_etdump **out) {
  if (!out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump: out must not be NULL");
  *out = NULL;
  if (o && pte_abi_check(o->abi, "pte_etdump_options")) return PTE_ERR_NOT_SUPPORTED;
  plan p;
  if (!make_plan(o, &p))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump: options ask for too much memory");
  uint8_t *base;
  void *owned = NULL;
  if (o && o->memory) {
    if (o->memory_size < p.total)
      return pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: %zu bytes of memory given, %zu needed", o->memory_size,
                       p.total);
    base = (uint8_t *)align_up((size_t)(uintptr_t)o->memory, 64);
  } else {
    owned = malloc(p.total);
    if (!owned) return pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: cannot allocate %zu bytes", p.total);
    base = (uint8_t *)align_up((size_t)(uintptr_t)owned, 64);
  }
  pte_etdump *e = (pte_etdump *)(base + p.off_struct);
  memset(e, 0, sizeof *e);
  e->owned = owned;
  e->recs = (etd_rec *)(base + p.off_recs);
  e->max_recs = p.max_recs;
  e->block_kind = base + p.off_blocks;
  e->dbg = (etd_dbg *)(base + p.off_dbg);
  e->max_dbg = p.max_dbg;
  e->dbuf = base + p.off_dbuf;
  e->dbuf_cap = p.dbuf;
  e->names = (char *)(base + p.off_names);
  e->names_cap = p.names_bytes;
  e->name_off = (int32_t *)(base + p.off_name_off);
  e->max_names = p.max_names;
  e->htab = (int32_t *)(base + p.off_htab);
  e->pcache = (etd_pslot *)(base + p.off_pcache);
  e->hmask = p.hsize - 1;
  memset(e->htab, 0xff, (size_t)p.hsize * sizeof(int32_t));
  memset(e->pcache, 0, (size_t)p.hsize * sizeof(etd_pslot));
  e->epoch = 1;
  intern_slow(e, "?");
  e->tracer.abi = PTE_ABI_VERSION;
  e->tracer.user = e;
  e->tracer.begin = on_begin;
  e->tracer.end = on_end;
  e->tracer.output = on_output;
  e->tracer.capture_outputs = p.dbuf > 0;
  *out = e;
  return PTE_OK;
}

void pte_etdump_free(pte_etdump *e) {
  if (e) free(e->owned);
}

const pte_tracer *pte_etdump_tracer(pte_etdump *e) { return e ? &e->tracer : NULL; }

void pte_etdump_attach(pte_etdump *e, pte_method *m) {
  if (e && m) pte_method_set_tracer(m, &e->tracer);
}

pte_status pte_etdump_set_capture(pte_etdump *e, bool on) {
  if (!e) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump is NULL");
  if (on && (e->dbuf_cap == 0 || e->max_dbg == 0))
    return pte_error(PTE_ERR_INVALID_STATE, "etdump: created without a debug buffer (debug_buffer_size = 0)");
  e->tracer.capture_outputs = on;
  return PTE_OK;
}

void pte_etdump_reset(pte_etdump *e) {
  if (!e) return;
  e->nrecs = 0;
  e->dropped = 0;
  e->nblocks = 0;
  e->executes = 0;
  e->block_ok = false;
  e->depth = 0;
  e->overflow = 0;
  e->ndbg = 0;
  e->dropped_dbg = 0;
  e->dbuf_used = 0;
}

void pte_etdump_get_stats(const pte_etdump *e, pte_etdump_stats *s) {
  if (!s) return;
  memset(s, 0, sizeof *s);
  if (!e) return;
  s->events = e->nrecs;
  s->dropped_events = e->dropped;
  s->debug_values = e->ndbg;
  s->dropped_debug_values = e->dropped_dbg;
  s->debug_bytes = (int64_t)e->dbuf_used;
  s->executes = e->executes;
  s->runs = e->nblocks;
}

/* ---- shared helpers ---- */

pte_status etd_write_file(const char *path, const void *data, size_t size) {
  if (!path) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump: path is NULL");
  FILE *f = fopen(path, "wb");
  if (!f) return pte_error(PTE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  bool ok = size == 0 || fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0) ok = false;
  return ok ? PTE_OK : pte_error(PTE_ERR_IO, "writing '%s' failed", path);
}

pte_status pte_etdump_write_debug_buffer(const pte_etdump *e, const char *path) {
  if (!e) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump is NULL");
  return etd_write_file(path, e->dbuf, e->dbuf_used);
}

const char *etd_kind_name(int32_t kind) {
  switch (kind) {
    case PTE_EVENT_PROGRAM_LOAD: return "PROGRAM_LOAD";
    case PTE_EVENT_METHOD_LOAD: return "METHOD_LOAD";
    case PTE_EVENT_EXECUTE: return "EXECUTE";
    case PTE_EVENT_OPERATOR: return "OPERATOR";
    case PTE_EVENT_DELEGATE: return "DELEGATE";
    case PTE_EVENT_MOVE: return "MOVE";
    case PTE_EVENT_JUMP: return "JUMP";
    case PTE_EVENT_FREE: return "FREE";
    case PTE_EVENT_BACKEND: return "BACKEND";
    default: return "UNKNOWN";
  }
}

void etd_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}
