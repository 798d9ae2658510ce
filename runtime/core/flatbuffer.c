/* A flatbuffer verifier driven by a schema description (pte_fb_table).
 * Everything the readers in runtime.h touch is checked here first, so a
 * hostile file fails with a message naming the path of the bad field. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define FB_MAX_DEPTH 64
/* Bounds the work on files that share subtables many times over. */
#define FB_MAX_VISITS (1u << 24)

typedef struct fb_path_elem {
  const char *table;
  const char *field;
  int64_t index; /* -1: not a vector element */
} fb_path_elem;

typedef struct fb_verifier {
  const uint8_t *buf;
  size_t size;
  uint32_t visits;
  int depth;
  fb_path_elem path[FB_MAX_DEPTH + 1];
} fb_verifier;

static pte_status fb_fail(fb_verifier *v, const char *fmt, ...) PTE_PRINTF(2, 3);

static pte_status fb_fail(fb_verifier *v, const char *fmt, ...) {
  char where[512];
  size_t used = 0;
  where[0] = 0;
  for (int i = 0; i < v->depth && used < sizeof where; i++) {
    const fb_path_elem *e = &v->path[i];
    if (i == 0) used += (size_t)snprintf(where + used, sizeof where - used, "%s", e->table);
    if (e->field && used < sizeof where)
      used += (size_t)snprintf(where + used, sizeof where - used, ".%s", e->field);
    if (e->index >= 0 && used < sizeof where)
      used += (size_t)snprintf(where + used, sizeof where - used, "[%lld]", (long long)e->index);
  }
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pte_error(PTE_ERR_INVALID_PROGRAM, "%s: %s", where[0] ? where : "root", msg);
}

static bool fb_range(const fb_verifier *v, uint64_t pos, uint64_t len) {
  return pos <= v->size && len <= v->size - pos;
}

static pte_status fb_verify_table(fb_verifier *v, uint64_t pos, const pte_fb_table *schema);

/* Follow the uoffset stored at `at` and return the absolute target. */
static pte_status fb_follow(fb_verifier *v, uint64_t at, uint64_t *target) {
  if (!fb_range(v, at, 4)) return fb_fail(v, "offset field at %llu is out of bounds", (unsigned long long)at);
  uint64_t t = at + pte_fb_u32(v->buf + at);
  if (t >= v->size)
    return fb_fail(v, "offset points to %llu, past the end (%zu)", (unsigned long long)t, v->size);
  *target = t;
  return PTE_OK;
}

static pte_status fb_verify_string(fb_verifier *v, uint64_t pos) {
  if (!fb_range(v, pos, 4)) return fb_fail(v, "string header out of bounds");
  uint64_t len = pte_fb_u32(v->buf + pos);
  if (!fb_range(v, pos + 4, len + 1))
    return fb_fail(v, "string of length %llu runs past the end", (unsigned long long)len);
  if (v->buf[pos + 4 + len] != 0) return fb_fail(v, "string is not NUL-terminated");
  return PTE_OK;
}

static pte_status fb_verify_vector(fb_verifier *v, uint64_t pos, uint64_t elem, uint32_t *len) {
  if (!fb_range(v, pos, 4)) return fb_fail(v, "vector header out of bounds");
  if (pos % 4) return fb_fail(v, "vector at %llu is misaligned", (unsigned long long)pos);
  uint64_t n = pte_fb_u32(v->buf + pos);
  if (n > (v->size / (elem ? elem : 1)) || !fb_range(v, pos + 4, n * elem))
    return fb_fail(v, "vector of %llu elements runs past the end", (unsigned long long)n);
  *len = (uint32_t)n;
  return PTE_OK;
}

static pte_status fb_verify_field(fb_verifier *v, uint64_t table, uint32_t vt, uint16_t vsize, uint16_t tsize,
                                  int slot, const pte_fb_slot *f, uint8_t union_tag) {
  uint32_t at = 4u + 2u * (uint32_t)slot;
  uint16_t off = (at + 2 <= vsize) ? pte_fb_u16(v->buf + vt + at) : 0;
  if (!off) return PTE_OK;
  uint32_t inline_size = 4;
  if (f->kind == PTE_FB_SCALAR || f->kind == PTE_FB_STRUCT) inline_size = f->size;
  if (f->kind == PTE_FB_UNION_TYPE) inline_size = 1;
  if ((uint32_t)off + inline_size > tsize)
    return fb_fail(v, "field at offset %u (+%u bytes) lies outside its table of %u bytes", (unsigned)off,
                   (unsigned)inline_size, (unsigned)tsize);
  uint64_t p = table + off;
  uint64_t target = 0;
  uint32_t n = 0;
  pte_status st;
  switch (f->kind) {
    case PTE_FB_SCALAR:
    case PTE_FB_STRUCT:
    case PTE_FB_UNION_TYPE: return PTE_OK;
    case PTE_FB_STRING:
      if ((st = fb_follow(v, p, &target))) return st;
      return fb_verify_string(v, target);
    case PTE_FB_TABLE:
      if ((st = fb_follow(v, p, &target))) return st;
      return fb_verify_table(v, target, f->table);
    case PTE_FB_UNION:
      if (union_tag == 0) return PTE_OK;
      if (union_tag > f->num_members)
        return fb_fail(v, "union tag %u is out of range (1..%u)", union_tag, f->num_members);
      if ((st = fb_follow(v, p, &target))) return st;
      return fb_verify_table(v, target, f->members[union_tag - 1]);
    case PTE_FB_VEC_SCALAR:
      if ((st = fb_follow(v, p, &target))) return st;
      return fb_verify_vector(v, target, f->size, &n);
    case PTE_FB_VEC_STRING:
    case PTE_FB_VEC_TABLE:
      if ((st = fb_follow(v, p, &target))) return st;
      if ((st = fb_verify_vector(v, target, 4, &n))) return st;
      for (uint32_t i = 0; i < n; i++) {
        uint64_t e = 0;
        v->path[v->depth - 1].index = i;
        if ((st = fb_follow(v, target + 4 + 4ull * i, &e))) return st;
        st = f->kind == PTE_FB_VEC_STRING ? fb_verify_string(v, e) : fb_verify_table(v, e, f->table);
        if (st) return st;
      }
      v->path[v->depth - 1].index = -1;
      return PTE_OK;
    default: return fb_fail(v, "bad schema description");
  }
}

static pte_status fb_verify_table(fb_verifier *v, uint64_t pos, const pte_fb_table *schema) {
  if (v->depth >= FB_MAX_DEPTH) return fb_fail(v, "tables nest deeper than %d", FB_MAX_DEPTH);
  if (++v->visits > FB_MAX_VISITS) return fb_fail(v, "too many tables (shared subtables?)");
  if (!fb_range(v, pos, 4) || pos % 4)
    return fb_fail(v, "%s table at %llu is out of bounds or misaligned", schema->name,
                   (unsigned long long)pos);
  int64_t vt = (int64_t)pos - (int32_t)pte_fb_u32(v->buf + pos);
  if (vt < 0 || !fb_range(v, (uint64_t)vt, 4) || vt % 2)
    return fb_fail(v, "%s vtable offset is out of bounds", schema->name);
  uint16_t vsize = pte_fb_u16(v->buf + vt);
  uint16_t tsize = pte_fb_u16(v->buf + vt + 2);
  if (vsize < 4 || vsize % 2 || !fb_range(v, (uint64_t)vt, vsize))
    return fb_fail(v, "%s vtable size %u is invalid", schema->name, (unsigned)vsize);
  if (tsize < 4 || !fb_range(v, pos, tsize))
    return fb_fail(v, "%s table size %u runs past the end", schema->name, (unsigned)tsize);

  fb_path_elem *e = &v->path[v->depth++];
  e->table = schema->name;
  uint8_t union_tag = 0;
  for (int s = 0; s < schema->num_fields; s++) {
    const pte_fb_slot *f = &schema->fields[s];
    e->field = f->name;
    e->index = -1;
    pte_status st = fb_verify_field(v, pos, (uint32_t)vt, vsize, tsize, s, f, union_tag);
    if (st) return st;
    if (f->kind == PTE_FB_UNION_TYPE) {
      pte_fb fb = {v->buf, v->size};
      union_tag = (uint8_t)pte_fb_scalar(fb, (uint32_t)pos, s, 1, 0);
    } else {
      union_tag = 0;
    }
  }
  v->depth--;
  return PTE_OK;
}

pte_status pte_fb_verify(const void *buf, size_t size, const pte_fb_table *root, const char *identifier) {
  if (!buf || size < 8 || size > 0xFFFFFFFFu)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "%s: flatbuffer of %zu bytes is too small or too large",
                     root ? root->name : "flatbuffer", size);
  const uint8_t *b = (const uint8_t *)buf;
  if (identifier && memcmp(b + 4, identifier, 4) != 0) {
    char got[5] = {0};
    for (int i = 0; i < 4; i++) got[i] = (b[4 + i] >= 32 && b[4 + i] < 127) ? (char)b[4 + i] : '?';
    return pte_error(PTE_ERR_INVALID_PROGRAM, "%s: file identifier is '%s', expected '%.4s'", root->name, got,
                     identifier);
  }
  fb_verifier v;
  memset(&v, 0, sizeof v);
  v.buf = b;
  v.size = size;
  uint64_t rootpos = pte_fb_u32(b);
  return fb_verify_table(&v, rootpos, root);
}
