/* .npy reader and writer. The reader treats its input as hostile. */
#include "npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *descr;
  int32_t dtype;
} k_descrs[] = {
    {"<f4", PTE_FLOAT32},   {"<f8", PTE_FLOAT64},     {"<f2", PTE_FLOAT16}, {"<i8", PTE_INT64},
    {"<i4", PTE_INT32},     {"<i2", PTE_INT16},       {"|i1", PTE_INT8},    {"|u1", PTE_UINT8},
    {"|b1", PTE_BOOL},      {"<u2", PTE_UINT16},      {"<u4", PTE_UINT32},  {"<u8", PTE_UINT64},
    {"<c8", PTE_COMPLEX64}, {"<c16", PTE_COMPLEX128},
};

static const char *find_key(const char *h, size_t n, const char *key) {
  size_t kl = strlen(key);
  for (size_t i = 0; i + kl <= n; i++)
    if (memcmp(h + i, key, kl) == 0) {
      const char *p = h + i + kl;
      while (p < h + n && (*p == ' ' || *p == ':')) p++;
      return p < h + n ? p : NULL;
    }
  return NULL;
}

pte_status npy_parse(const void *buf, size_t size, npy_array *out) {
  const uint8_t *b = (const uint8_t *)buf;
  memset(out, 0, sizeof *out);
  if (size < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "not a .npy file (bad magic)");
  uint8_t major = b[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)b[8] | ((size_t)b[9] << 8);
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy header is truncated");
    hlen = pte_fb_u32(b + 8);
    hstart = 12;
  } else {
    return pte_error(PTE_ERR_NOT_SUPPORTED, ".npy format version %u is not supported", major);
  }
  if (hlen > size - hstart)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy header runs past the end of the file");
  const char *h = (const char *)b + hstart;
  const char *d = find_key(h, hlen, "'descr'");
  if (!d || *d != '\'') return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy header has no 'descr'");
  d++;
  const char *end = memchr(d, '\'', (size_t)(h + hlen - d));
  if (!end) return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy 'descr' is not terminated");
  size_t dl = (size_t)(end - d);
  out->dtype = -1;
  for (size_t i = 0; i < sizeof k_descrs / sizeof k_descrs[0]; i++)
    if (strlen(k_descrs[i].descr) == dl && memcmp(k_descrs[i].descr, d, dl) == 0)
      out->dtype = k_descrs[i].dtype;
  if (out->dtype < 0)
    return pte_error(PTE_ERR_NOT_SUPPORTED, ".npy dtype '%.*s' is not supported", (int)(dl < 16 ? dl : 16),
                     d);
  const char *f = find_key(h, hlen, "'fortran_order'");
  if (!f) return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy header has no 'fortran_order'");
  if ((size_t)(h + hlen - f) >= 4 && memcmp(f, "True", 4) == 0)
    return pte_error(PTE_ERR_NOT_SUPPORTED, "Fortran-ordered .npy arrays are not supported");
  const char *s = find_key(h, hlen, "'shape'");
  if (!s || *s != '(') return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy header has no 'shape' tuple");
  s++;
  size_t elems = 1;
  const char *hend = h + hlen;
  while (s < hend && *s != ')') {
    while (s < hend && (*s == ' ' || *s == ',')) s++;
    if (s < hend && *s == ')') break;
    if (s >= hend || *s < '0' || *s > '9')
      return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy shape is malformed");
    uint64_t v = 0;
    while (s < hend && *s >= '0' && *s <= '9') {
      if (v > (UINT64_C(1) << 40))
        return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy shape dimension is too large");
      v = v * 10 + (uint64_t)(*s - '0');
      s++;
    }
    if (out->dim >= PTE_MAX_DIM)
      return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy array has more than %d dims", PTE_MAX_DIM);
    out->sizes[out->dim++] = (int64_t)v;
    if (__builtin_mul_overflow(elems, (size_t)v, &elems))
      return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy array size overflows");
  }
  if (s >= hend) return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy shape tuple is not closed");
  size_t nbytes;
  if (__builtin_mul_overflow(elems, pte_dtype_size(out->dtype), &nbytes))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy array size overflows");
  size_t data_off = hstart + hlen;
  if (nbytes > size - data_off)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, ".npy data is truncated: %zu bytes expected, %zu present",
                     nbytes, size - data_off);
  out->data = b + data_off;
  out->nbytes = nbytes;
  return PTE_OK;
}

pte_status npy_read_file(const char *path, npy_array *out, void **owned) {
  *owned = NULL;
  FILE *f = fopen(path, "rb");
  if (!f)
    return pte_error(errno == ENOENT ? PTE_ERR_NOT_FOUND : PTE_ERR_IO, "cannot open '%s': %s", path,
                     strerror(errno));
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return pte_error(PTE_ERR_IO, "cannot read '%s'", path);
  }
  long len = ftell(f);
  rewind(f);
  if (len < 0) {
    fclose(f);
    return pte_error(PTE_ERR_IO, "cannot read '%s'", path);
  }
  /* Over-allocate and align so the data (at a 64-byte header boundary) is aligned. */
  void *buf = aligned_alloc(64, ((size_t)len + 64) & ~(size_t)63);
  if (!buf) {
    fclose(f);
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
  }
  size_t got = fread(buf, 1, (size_t)len, f);
  fclose(f);
  if (got != (size_t)len) {
    free(buf);
    return pte_error(PTE_ERR_IO, "short read on '%s'", path);
  }
  pte_status st = npy_parse(buf, (size_t)len, out);
  if (st) {
    char msg[512];
    snprintf(msg, sizeof msg, "%s", pte_last_error());
    free(buf);
    return pte_error(st, "%s: %s", path, msg);
  }
  *owned = buf;
  return PTE_OK;
}

static const char *descr_of(int32_t dtype) {
  for (size_t i = 0; i < sizeof k_descrs / sizeof k_descrs[0]; i++)
    if (k_descrs[i].dtype == dtype) return k_descrs[i].descr;
  return NULL;
}

pte_status npy_write_file(const char *path, const pte_tensor *t) {
  const char *descr = descr_of(t->dtype);
  if (!descr)
    return pte_error(PTE_ERR_NOT_SUPPORTED, "cannot write dtype %s to .npy", pte_dtype_name(t->dtype));
  pte_tensor row_major;
  void *tmp = NULL;
  if (!pte_tensor_is_contiguous(t)) { /* e.g. channels-last: .npy is row-major */
    tmp = malloc(pte_tensor_nbytes(t));
    if (!tmp || pte_tensor_init(&row_major, t->dtype, t->dim, t->sizes, tmp) ||
        pte_tensor_copy(&row_major, t)) {
      free(tmp);
      return pte_error(PTE_ERR_OUT_OF_MEMORY, "cannot convert a strided tensor for writing");
    }
    t = &row_major;
  }
  char shape[256];
  size_t used = 0;
  for (int32_t i = 0; i < t->dim && used < sizeof shape; i++)
    used += (size_t)snprintf(shape + used, sizeof shape - used, "%lld,%s", (long long)t->sizes[i],
                             (t->dim > 1 && i + 1 < t->dim) ? " " : "");
  if (t->dim > 1 && used > 0 && shape[used - 1] == ',') shape[--used] = 0;
  shape[used < sizeof shape ? used : sizeof shape - 1] = 0;
  char header[512];
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr,
                   shape);
  if (n < 0 || n > 400) {
    free(tmp);
    return pte_error(PTE_ERR_INTERNAL, "npy header too long");
  }
  size_t total = 10 + (size_t)n + 1;
  size_t pad = (64 - total % 64) % 64;
  FILE *f = fopen(path, "wb");
  if (!f) {
    free(tmp);
    return pte_error(PTE_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
  }
  uint16_t hl = (uint16_t)((size_t)n + pad + 1);
  unsigned char pre[10] = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hl & 0xff), (unsigned char)(hl >> 8)};
  bool ok = fwrite(pre, 1, 10, f) == 10 && fwrite(header, 1, (size_t)n, f) == (size_t)n;
  for (size_t i = 0; ok && i < pad; i++) ok = fputc(' ', f) != EOF;
  ok = ok && fputc('\n', f) != EOF;
  size_t nbytes = pte_tensor_nbytes(t);
  if (ok && nbytes) ok = t->data && fwrite(t->data, 1, nbytes, f) == nbytes;
  if (fclose(f) != 0) ok = false;
  free(tmp);
  if (!ok) return pte_error(PTE_ERR_IO, "writing '%s' failed", path);
  return PTE_OK;
}
