/* Captured values as .npy files plus an index.json, for tools that compare a
 * run against another implementation (tools/debug_diverge.py). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etdump_internal.h"

/* NumPy type string per dtype; bfloat16 has none, so its bits go out as
 * uint16 and index.json says so. */
static const char *npy_descr(int32_t dtype) {
  switch (dtype) {
    case PTE_UINT8: return "|u1";
    case PTE_INT8: return "|i1";
    case PTE_INT16: return "<i2";
    case PTE_INT32: return "<i4";
    case PTE_INT64: return "<i8";
    case PTE_FLOAT16: return "<f2";
    case PTE_FLOAT32: return "<f4";
    case PTE_FLOAT64: return "<f8";
    case PTE_BOOL: return "|b1";
    case PTE_BFLOAT16: return "<u2";
    case PTE_UINT16: return "<u2";
    case PTE_UINT32: return "<u4";
    case PTE_UINT64: return "<u8";
    case PTE_COMPLEX64: return "<c8";
    case PTE_COMPLEX128: return "<c16";
    default: return NULL;
  }
}

/* The value's elements in row-major order of its sizes: captured bytes are
 * the tensor's storage, which follows its dim order. */
static void *logical_copy(const pte_etdump *e, const etd_dbg *d, size_t es) {
  size_t n = d->nbytes / es;
  uint8_t *dst = (uint8_t *)malloc(d->nbytes ? d->nbytes : 1);
  if (!dst) return NULL;
  const uint8_t *src = e->dbuf + d->offset;
  int64_t idx[PTE_MAX_DIM] = {0};
  for (size_t i = 0; i < n; i++) {
    int64_t off = 0;
    for (int32_t k = 0; k < d->dim; k++) off += idx[k] * d->strides[k];
    if (off < 0 || (size_t)off >= n) { /* strides that do not describe dense storage */
      free(dst);
      return NULL;
    }
    memcpy(dst + i * es, src + (size_t)off * es, es);
    for (int32_t k = d->dim - 1; k >= 0; k--) {
      if (++idx[k] < d->sizes[k]) break;
      idx[k] = 0;
    }
  }
  return dst;
}

static pte_status write_npy(const pte_etdump *e, const etd_dbg *d, const char *path) {
  const char *descr = npy_descr(d->dtype);
  size_t es = pte_dtype_size(d->dtype);
  char shape[PTE_MAX_DIM * 24 + 8];
  size_t used = 0;
  shape[0] = 0;
  for (int32_t i = 0; i < d->dim; i++)
    used += (size_t)snprintf(shape + used, sizeof shape - used, "%lld,%s", (long long)d->sizes[i],
                             i + 1 < d->dim ? " " : "");
  if (d->dim > 1) shape[--used] = 0; /* "(2, 3)" but "(4,)" */
  char header[512];
  int hn = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr,
                    shape);
  if (hn < 0 || hn > 440) return pte_error(PTE_ERR_INTERNAL, "npy header too long");
  size_t total = 10 + (size_t)hn + 1;
  size_t padn = (64 - total % 64) % 64;
  void *data = logical_copy(e, d, es);
  if (!data) return pte_error(PTE_ERR_OUT_OF_MEMORY, "cannot lay out a captured tensor for '%s'", path);
  FILE *f = fopen(path, "wb");
  if (!f) {
    free(data);
    return pte_error(PTE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  }
  uint16_t hl = (uint16_t)((size_t)hn + padn + 1);
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)hn, f) == (size_t)hn;
  for (size_t i = 0; ok && i < padn; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  if (ok && d->nbytes) ok = fwrite(data, 1, d->nbytes, f) == d->nbytes;
  if (fclose(f) != 0) ok = false;
  free(data);
  return ok ? PTE_OK : pte_error(PTE_ERR_IO, "writing '%s' failed", path);
}

static void sanitize(char *dst, size_t n, const char *s) {
  size_t i = 0;
  for (; *s && i + 1 < n; s++) {
    char c = *s;
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                c == '-' || c == '_';
    dst[i++] = keep ? c : '_';
  }
  dst[i] = 0;
}

pte_status pte_etdump_write_debug_tensors(const pte_etdump *e, const char *dir, int32_t execute) {
  if (!e || !dir) return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump and dir must not be NULL");
  if (e->executes == 0) return pte_error(PTE_ERR_INVALID_STATE, "etdump: no execute was recorded");
  int32_t want = execute < 0 ? e->executes - 1 : execute;
  if (want >= e->executes)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump: execute %d requested, %d recorded", (int)execute,
                     (int)e->executes);
  int32_t block = -1;
  for (int32_t b = 0, k = 0; b < e->nblocks; b++)
    if (e->block_kind[b] == ETD_BLOCK_EXECUTE && k++ == want) {
      block = b;
      break;
    }
  /* no stat first: it is a glibc 2.33 symbol, and mkdir says EEXIST */
  if (mkdir(dir, 0777) != 0 && errno != EEXIST)
    return pte_error(PTE_ERR_IO, "cannot create '%s': %s", dir, strerror(errno));
  char path[4096];
  snprintf(path, sizeof path, "%s/index.json", dir);
  FILE *idx = fopen(path, "w");
  if (!idx) return pte_error(PTE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  /* Occurrences of each instruction in this execute (loops run one twice). */
  int32_t maxi = 0;
  for (int32_t i = 0; i < e->ndbg; i++)
    if (e->dbg[i].block == block && e->dbg[i].instruction + 1 > maxi) maxi = e->dbg[i].instruction + 1;
  int32_t *seen = (int32_t *)calloc((size_t)maxi + 1, sizeof(int32_t));
  int32_t *last_after = (int32_t *)calloc((size_t)maxi + 1, sizeof(int32_t));
  if (!seen || !last_after) {
    free(seen);
    free(last_after);
    fclose(idx);
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: out of memory");
  }
  const char *method = "";
  for (int32_t i = 0; i < e->nrecs; i++)
    if (e->recs[i].block == block && e->recs[i].kind == PTE_EVENT_EXECUTE)
      method = etd_name(e, e->recs[i].method);
  fprintf(idx, "{\"method\": ");
  etd_json_str(idx, method);
  fprintf(idx, ", \"execute\": %d, \"dropped_values\": %lld, \"values\": [", (int)want,
          (long long)e->dropped_dbg);
  pte_status st = PTE_OK;
  int32_t count = 0;
  for (int32_t i = 0; i < e->ndbg && !st; i++) {
    const etd_dbg *d = &e->dbg[i];
    if (d->block != block) continue;
    int32_t occurrence = 0;
    if (!d->is_output && d->instruction >= 0) {
      /* A new occurrence starts when the instruction ran again (new record). */
      if (seen[d->instruction] && last_after[d->instruction] != (int32_t)d->after) seen[d->instruction]++;
      if (!seen[d->instruction]) seen[d->instruction] = 1;
      last_after[d->instruction] = (int32_t)d->after;
      occurrence = seen[d->instruction] - 1;
    }
    const char *op = etd_name(e, d->name);
    fprintf(idx, "%s\n  {\"instruction\": %d, \"op\": ", count++ ? "," : "",
            (int)(d->is_output ? -1 : d->instruction));
    etd_json_str(idx, d->is_output ? "output" : op);
    fprintf(idx, ", \"kind\": \"%s\", \"index\": %d, \"occurrence\": %d, \"program_output\": %s",
            etd_kind_name(d->kind), (int)d->index, (int)occurrence, d->is_output ? "true" : "false");
    if (d->debug_id >= 0) fprintf(idx, ", \"debug_id\": %lld", (long long)d->debug_id);
    if (d->tag == PTE_TAG_TENSOR) {
      char file[512], clean[256];
      sanitize(clean, sizeof clean, op);
      if (d->is_output) snprintf(file, sizeof file, "output_%d.npy", (int)d->index);
      else if (occurrence)
        snprintf(file, sizeof file, "%d_%s_%d_r%d.npy", (int)d->instruction, clean, (int)d->index,
                 (int)occurrence);
      else snprintf(file, sizeof file, "%d_%s_%d.npy", (int)d->instruction, clean, (int)d->index);
      fprintf(idx, ", \"dtype\": \"%s\", \"shape\": [", pte_dtype_name(d->dtype));
      for (int32_t k = 0; k < d->dim; k++) fprintf(idx, "%s%lld", k ? ", " : "", (long long)d->sizes[k]);
      fprintf(idx, "]");
      if (npy_descr(d->dtype)) {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        st = write_npy(e, d, path);
        fprintf(idx, ", \"file\": ");
        etd_json_str(idx, file);
        if (d->dtype == PTE_BFLOAT16) fprintf(idx, ", \"stored_as\": \"uint16 bits\"");
      }
    } else if (d->tag == PTE_TAG_INT || d->tag == PTE_TAG_BOOL) {
      fprintf(idx, ", \"value\": %lld", (long long)d->scalar.i);
    } else if (d->tag == PTE_TAG_DOUBLE) {
      if (isfinite(d->scalar.d)) fprintf(idx, ", \"value\": %.17g", d->scalar.d);
      else fprintf(idx, ", \"value\": \"%s\"", isnan(d->scalar.d) ? "nan" : d->scalar.d > 0 ? "inf" : "-inf");
    } else {
      fprintf(idx, ", \"value\": null");
    }
    fprintf(idx, "}");
  }
  fprintf(idx, "\n]}\n");
  free(seen);
  free(last_after);
  bool ok = !ferror(idx);
  if (fclose(idx) != 0) ok = false;
  if (!st && !ok) st = pte_error(PTE_ERR_IO, "writing '%s/index.json' failed", dir);
  return st;
}
