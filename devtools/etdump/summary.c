/* The per-operator summary: rows aggregated over every execute recorded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etdump_internal.h"

static bool summarized(int32_t kind) {
  return kind == PTE_EVENT_OPERATOR || kind == PTE_EVENT_DELEGATE || kind == PTE_EVENT_MOVE ||
         kind == PTE_EVENT_JUMP || kind == PTE_EVENT_FREE || kind == PTE_EVENT_BACKEND;
}

uint64_t pte_etdump_execute_ns(const pte_etdump *e, int64_t *count) {
  uint64_t total = 0;
  int64_t n = 0;
  for (int32_t i = 0; e && i < e->nrecs; i++) {
    const etd_rec *r = &e->recs[i];
    if (r->kind == PTE_EVENT_EXECUTE && r->end) {
      total += r->end - r->start;
      n++;
    }
  }
  if (count) *count = n;
  return total;
}

static int cmp_rows(const void *pa, const void *pb) {
  const pte_etdump_row *a = (const pte_etdump_row *)pa, *b = (const pte_etdump_row *)pb;
  bool ba = a->kind == PTE_EVENT_BACKEND, bb = b->kind == PTE_EVENT_BACKEND;
  if (ba != bb) return ba ? 1 : -1; /* delegate-internal rows after instruction rows */
  if (a->total_ns != b->total_ns) return a->total_ns > b->total_ns ? -1 : 1;
  int c = strcmp(a->name, b->name);
  return c ? c : (a->kind > b->kind) - (a->kind < b->kind);
}

/* All rows, sorted; *n receives how many. NULL when out of memory. */
static pte_etdump_row *build_rows(const pte_etdump *e, int32_t *n) {
  *n = 0;
  /* One slot per (name, kind): names are few, kinds nine. */
  size_t slots = (size_t)e->nnames * 9 + 1;
  int32_t *slot_row = (int32_t *)malloc(slots * sizeof(int32_t));
  pte_etdump_row *rows = (pte_etdump_row *)calloc((size_t)e->nrecs + 1, sizeof(pte_etdump_row));
  if (!slot_row || !rows) {
    free(slot_row);
    free(rows);
    return NULL;
  }
  memset(slot_row, 0xff, slots * sizeof(int32_t));
  uint64_t run_ns = pte_etdump_execute_ns(e, NULL);
  for (int32_t i = 0; i < e->nrecs; i++) {
    const etd_rec *r = &e->recs[i];
    if (!r->end || !summarized(r->kind) || r->name < 0) continue;
    size_t s = (size_t)r->name * 9 + r->kind;
    if (slot_row[s] < 0) {
      slot_row[s] = (*n)++;
      pte_etdump_row *row = &rows[slot_row[s]];
      row->name = etd_name(e, r->name);
      row->kind = r->kind;
      row->min_ns = UINT64_MAX;
    }
    pte_etdump_row *row = &rows[slot_row[s]];
    uint64_t d = r->end - r->start;
    row->count++;
    row->total_ns += d;
    if (d < row->min_ns) row->min_ns = d;
    if (d > row->max_ns) row->max_ns = d;
  }
  for (int32_t i = 0; i < *n; i++) {
    rows[i].mean_ns = (double)rows[i].total_ns / (double)rows[i].count;
    rows[i].share = run_ns ? (double)rows[i].total_ns / (double)run_ns : 0.0;
  }
  qsort(rows, (size_t)*n, sizeof *rows, cmp_rows);
  free(slot_row);
  return rows;
}

int32_t pte_etdump_summary(const pte_etdump *e, pte_etdump_row *out, int32_t max_rows) {
  if (!e) return 0;
  int32_t n;
  pte_etdump_row *rows = build_rows(e, &n);
  if (!rows) return -1;
  for (int32_t i = 0; out && i < n && i < max_rows; i++) out[i] = rows[i];
  free(rows);
  return n;
}

/* snprintf into buf at *len, counting what would not fit. */
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...) PTE_PRINTF(4, 5);
static void put(char *buf, size_t size, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *len += (size_t)k;
}

size_t pte_etdump_table(const pte_etdump *e, char *buf, size_t size) {
  size_t len = 0;
  if (buf && size) buf[0] = 0;
  if (!e) return 0;
  int32_t n;
  pte_etdump_row *rows = build_rows(e, &n);
  if (!rows) {
    put(buf, size, &len, "(out of memory building the summary)\n");
    return len;
  }
  int64_t runs;
  uint64_t run_ns = pte_etdump_execute_ns(e, &runs);
  int w = 8;
  for (int32_t i = 0; i < n; i++) {
    int l = (int)strlen(rows[i].name) + (rows[i].kind == PTE_EVENT_BACKEND ? 2 : 0);
    if (l > w) w = l;
  }
  if (w > 72) w = 72;
  put(buf, size, &len, "%d execute(s), %.3f ms in total, %.3f ms per execute", (int)runs,
      (double)run_ns / 1e6, runs ? (double)run_ns / 1e6 / (double)runs : 0.0);
  if (e->dropped || e->dropped_dbg)
    put(buf, size, &len, "; %lld events and %lld values DROPPED (buffer full)", (long long)e->dropped,
        (long long)e->dropped_dbg);
  put(buf, size, &len, "\n%-*s %-9s %8s %12s %11s %11s %11s %7s\n", w, "operator", "kind", "count",
      "total ms", "mean us", "min us", "max us", "share");
  bool backend_header = false;
  uint64_t instr_ns = 0;
  for (int32_t i = 0; i < n; i++) {
    const pte_etdump_row *r = &rows[i];
    if (r->kind == PTE_EVENT_BACKEND && !backend_header) {
      put(buf, size, &len, "inside delegates (already counted in their DELEGATE rows):\n");
      backend_header = true;
    }
    if (r->kind != PTE_EVENT_BACKEND) instr_ns += r->total_ns;
    put(buf, size, &len, "%s%-*.*s %-9s %8lld %12.3f %11.3f %11.3f %11.3f %6.1f%%\n",
        r->kind == PTE_EVENT_BACKEND ? "  " : "", r->kind == PTE_EVENT_BACKEND ? w - 2 : w,
        r->kind == PTE_EVENT_BACKEND ? w - 2 : w, r->name, etd_kind_name(r->kind), (long long)r->count,
        (double)r->total_ns / 1e6, r->mean_ns / 1e3, (double)r->min_ns / 1e3, (double)r->max_ns / 1e3,
        100.0 * r->share);
  }
  if (runs)
    put(buf, size, &len,
        "instructions cover %.1f%% of the execute time (the rest: the interpreter loop and tracing)\n",
        run_ns ? 100.0 * (double)instr_ns / (double)run_ns : 0.0);
  free(rows);
  return len;
}
