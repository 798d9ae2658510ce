/* Chrome trace-event JSON (the "JSON Object Format" that chrome://tracing and
 * Perfetto read): one complete ("X") event per record, ts and dur in
 * microseconds, all on one thread so nesting follows from the times. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "etdump_internal.h"

/* Nanoseconds as microseconds with three decimals: exact, so a child that
 * nests inside its parent in ns still does after the conversion. */
static void put_us(FILE *f, uint64_t ns) {
  fprintf(f, "%" PRIu64 ".%03u", ns / 1000u, (unsigned)(ns % 1000u));
}

pte_status pte_etdump_write_trace(const pte_etdump *e, const char *path) {
  if (!e || !path) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump and path must not be NULL");
  FILE *f = fopen(path, "w");
  if (!f) return pte_error(PTE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  uint64_t t0 = UINT64_MAX;
  for (int32_t i = 0; i < e->nrecs; i++)
    if (e->recs[i].end && e->recs[i].start < t0) t0 = e->recs[i].start;
  fprintf(f, "{\"traceEvents\": [\n");
  fprintf(f,
          "  {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": "
          "\"pterun\"}},\n");
  fprintf(f,
          "  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 1, \"args\": {\"name\": "
          "\"execute\"}}");
  int32_t run = -1, block = -1;
  for (int32_t i = 0; i < e->nrecs; i++) {
    const etd_rec *r = &e->recs[i];
    if (r->block != block) {
      block = r->block;
      if (e->block_kind[block] == ETD_BLOCK_EXECUTE) run++;
    }
    if (!r->end) continue; /* never closed: no duration to show */
    fprintf(f, ",\n  {\"name\": ");
    etd_json_str(f, etd_name(e, r->name));
    fprintf(f, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": 1, \"ts\": ", etd_kind_name(r->kind));
    put_us(f, r->start - t0);
    fprintf(f, ", \"dur\": ");
    put_us(f, r->end - r->start);
    fprintf(f, ", \"args\": {");
    const char *sep = "";
    if (r->method >= 0) {
      fprintf(f, "\"method\": ");
      etd_json_str(f, etd_name(e, r->method));
      sep = ", ";
    }
    if (r->instruction >= 0) {
      fprintf(f, "%s\"instruction\": %d, \"chain\": %d", sep, (int)r->instruction, (int)r->chain);
      sep = ", ";
    }
    if (r->debug_id >= 0) {
      fprintf(f, "%s\"debug_id\": %lld", sep, (long long)r->debug_id);
      sep = ", ";
    }
    if (e->block_kind[r->block] == ETD_BLOCK_EXECUTE) fprintf(f, "%s\"execute\": %d", sep, (int)run);
    fprintf(f, "}}");
  }
  fprintf(f, "\n],\n\"displayTimeUnit\": \"ns\",\n");
  fprintf(f,
          "\"otherData\": {\"producer\": \"pterun etdump %s\", \"clock\": \"CLOCK_MONOTONIC\", "
          "\"dropped_events\": %lld, \"executes\": %d}}\n",
          pte_version(), (long long)e->dropped, (int)e->executes);
  bool ok = !ferror(f);
  if (fclose(f) != 0) ok = false;
  return ok ? PTE_OK : pte_error(PTE_ERR_IO, "writing '%s' failed", path);
}
