/* Flatbuffer builder; see fbb.h. Scalars are stored little-endian whatever the
 * host, as the format requires. */
#include "fbb.h"

#include <stdlib.h>
#include <string.h>

void fbb_init(fbb *b) {
  memset(b, 0, sizeof *b);
  b->minalign = 1;
}

void fbb_release(fbb *b) {
  free(b->buf);
  b->buf = NULL;
  b->cap = b->size = 0;
}

static inline uint8_t *top(fbb *b) { return b->buf + b->cap - b->size; }

static bool reserve(fbb *b, size_t n) {
  if (b->oom) return false;
  if (b->cap - b->size >= n) return true;
  size_t ncap = b->cap ? b->cap : 4096;
  while (ncap - b->size < n) {
    if (ncap > ((size_t)1 << 31)) { /* uoffsets are 32-bit */
      b->oom = true;
      return false;
    }
    ncap *= 2;
  }
  uint8_t *nb = (uint8_t *)malloc(ncap);
  if (!nb) {
    b->oom = true;
    return false;
  }
  if (b->size) memcpy(nb + ncap - b->size, top(b), b->size);
  free(b->buf);
  b->buf = nb;
  b->cap = ncap;
  return true;
}

static void pad(fbb *b, size_t n) {
  if (!n || !reserve(b, n)) return;
  b->size += n;
  memset(top(b), 0, n);
}

/* Pad so that after `len` more bytes the write position is `align`-aligned
 * (relative to the end, which is where the finished buffer is aligned). */
static void prep(fbb *b, size_t align, size_t len) {
  if (align > b->minalign) b->minalign = align;
  pad(b, (size_t)(-(b->size + len)) & (align - 1));
}

static void push(fbb *b, const void *p, size_t n) {
  if (!reserve(b, n)) return;
  b->size += n;
  memcpy(top(b), p, n);
}

static void push_le(fbb *b, uint64_t v, size_t n) {
  uint8_t tmp[8];
  for (size_t i = 0; i < n; i++) tmp[i] = (uint8_t)(v >> (8 * i));
  push(b, tmp, n);
}

static void put_le(uint8_t *p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

fbb_ref fbb_string(fbb *b, const char *s) {
  size_t len = strlen(s);
  prep(b, 4, len + 1);
  pad(b, 1); /* terminating NUL */
  push(b, s, len);
  push_le(b, len, 4);
  return (fbb_ref)b->size;
}

fbb_ref fbb_vec_scalars(fbb *b, size_t elem, size_t count, const void *data) {
  size_t n = elem * count;
  prep(b, 4, n);
  prep(b, elem, n);
  const uint8_t *src = (const uint8_t *)data;
  if (reserve(b, n)) {
    b->size += n;
    uint8_t *dst = top(b);
    for (size_t i = 0; i < count; i++) { /* host order -> little-endian */
      uint64_t v = 0;
      switch (elem) {
        case 1: v = src[i]; break;
        case 2: {
          uint16_t x;
          memcpy(&x, src + 2 * i, 2);
          v = x;
          break;
        }
        case 4: {
          uint32_t x;
          memcpy(&x, src + 4 * i, 4);
          v = x;
          break;
        }
        default: memcpy(&v, src + 8 * i, 8); break;
      }
      put_le(dst + elem * i, v, elem);
    }
  }
  push_le(b, count, 4);
  return (fbb_ref)b->size;
}

fbb_ref fbb_vec_refs(fbb *b, const fbb_ref *refs, size_t count) {
  prep(b, 4, 4 * count);
  for (size_t i = count; i-- > 0;) push_le(b, (uint32_t)(b->size + 4 - refs[i]), 4);
  push_le(b, count, 4);
  return (fbb_ref)b->size;
}

void fbb_table_start(fbb *b) {
  b->table_start = b->size;
  memset(b->field, 0, sizeof b->field);
  b->nfields = 0;
}

/* The table's inline size starts at its first field, not at the padding
 * before it, so tables with the same fields get identical, shared vtables. */
static void field_start(fbb *b) {
  if (b->nfields == 0) b->table_start = b->size;
}

static void add_scalar(fbb *b, int slot, uint64_t v, size_t n) {
  prep(b, n, n);
  field_start(b);
  push_le(b, v, n);
  b->field[slot] = (uint32_t)b->size;
  if (slot + 1 > b->nfields) b->nfields = slot + 1;
}

void fbb_add_u8(fbb *b, int slot, uint8_t v) { add_scalar(b, slot, v, 1); }
void fbb_add_i32(fbb *b, int slot, int32_t v) { add_scalar(b, slot, (uint32_t)v, 4); }
void fbb_add_u32(fbb *b, int slot, uint32_t v) { add_scalar(b, slot, v, 4); }
void fbb_add_i64(fbb *b, int slot, int64_t v) { add_scalar(b, slot, (uint64_t)v, 8); }
void fbb_add_u64(fbb *b, int slot, uint64_t v) { add_scalar(b, slot, v, 8); }
void fbb_add_f64(fbb *b, int slot, double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  add_scalar(b, slot, u, 8);
}

void fbb_add_ref(fbb *b, int slot, fbb_ref ref) {
  prep(b, 4, 4);
  field_start(b);
  push_le(b, (uint32_t)(b->size + 4 - ref), 4);
  b->field[slot] = (uint32_t)b->size;
  if (slot + 1 > b->nfields) b->nfields = slot + 1;
}

fbb_ref fbb_table_end(fbb *b) {
  prep(b, 4, 4);
  push_le(b, 0, 4); /* soffset to the vtable, patched below */
  fbb_ref table = (fbb_ref)b->size;
  uint8_t vt[4 + 2 * FBB_MAX_FIELDS];
  size_t vtsize = 4 + 2 * (size_t)b->nfields;
  put_le(vt, vtsize, 2);
  put_le(vt + 2, table - b->table_start, 2);
  for (int i = 0; i < b->nfields; i++) put_le(vt + 4 + 2 * i, b->field[i] ? table - b->field[i] : 0, 2);
  if (b->oom) return 0;
  /* Share an identical vtable written before (it lies after this table, so
   * the soffset is negative, which the format allows). */
  for (int i = 0; i < b->nvtables; i++) {
    const uint8_t *old = b->buf + b->cap - b->vtables[i];
    if ((size_t)(old[0] | (old[1] << 8)) == vtsize && memcmp(old, vt, vtsize) == 0) {
      put_le(b->buf + b->cap - table, (uint32_t)((int64_t)b->vtables[i] - (int64_t)table), 4);
      return table;
    }
  }
  push(b, vt, vtsize);
  fbb_ref vref = (fbb_ref)b->size;
  if (b->oom) return 0;
  put_le(b->buf + b->cap - table, (uint32_t)(vref - table), 4);
  if (b->nvtables < FBB_VTABLE_CACHE) b->vtables[b->nvtables++] = vref;
  else b->vtables[vref % FBB_VTABLE_CACHE] = vref;
  return table;
}

const uint8_t *fbb_finish(fbb *b, fbb_ref root, const char *identifier, bool size_prefixed, size_t *size) {
  prep(b, b->minalign < 4 ? 4 : b->minalign, 4 + (identifier ? 4 : 0) + (size_prefixed ? 4 : 0));
  if (identifier) push(b, identifier, 4);
  push_le(b, (uint32_t)(b->size + 4 - root), 4);
  if (size_prefixed) push_le(b, b->size, 4);
  if (b->oom) return NULL;
  *size = b->size;
  return top(b);
}
