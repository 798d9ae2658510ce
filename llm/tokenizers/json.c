/* JSON (RFC 8259) into a tree. Depth and size are bounded, errors carry
 * the byte offset. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

#define J_MAX_DEPTH 64

typedef struct jp {
  const uint8_t *s;
  size_t n, i;
  char *err;
  size_t errn;
} jp;

static bool fail(jp *p, const char *what) {
  snprintf(p->err, p->errn, "JSON: %s at byte %zu", what, p->i);
  return false;
}

static void ws(jp *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static int hex4(const uint8_t *s) {
  int v = 0;
  for (int k = 0; k < 4; k++) {
    int c = s[k], d = c >= '0' && c <= '9'   ? c - '0'
                      : c >= 'a' && c <= 'f' ? c - 'a' + 10
                      : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                             : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

static bool parse_str(jp *p, jv *v) {
  p->i++; /* opening quote */
  size_t start = p->i;
  /* first pass: find the end (escapes never grow the text) */
  while (p->i < p->n && p->s[p->i] != '"') {
    if (p->s[p->i] < 0x20) return fail(p, "control character in a string");
    if (p->s[p->i] == '\\') p->i++;
    p->i++;
  }
  if (p->i >= p->n) return fail(p, "unterminated string");
  size_t end = p->i;
  p->i++;
  char *o = malloc(end - start + 1);
  if (!o) return fail(p, "out of memory");
  size_t k = 0;
  for (size_t i = start; i < end;) {
    uint8_t c = p->s[i];
    if (c != '\\') {
      o[k++] = (char)c;
      i++;
      continue;
    }
    if (i + 1 >= end) {
      free(o);
      p->i = i;
      return fail(p, "bad escape");
    }
    uint8_t e = p->s[i + 1];
    i += 2;
    switch (e) {
      case '"': o[k++] = '"'; break;
      case '\\': o[k++] = '\\'; break;
      case '/': o[k++] = '/'; break;
      case 'b': o[k++] = '\b'; break;
      case 'f': o[k++] = '\f'; break;
      case 'n': o[k++] = '\n'; break;
      case 'r': o[k++] = '\r'; break;
      case 't': o[k++] = '\t'; break;
      case 'u': {
        int u = i + 4 <= end ? hex4(p->s + i) : -1;
        if (u < 0) {
          free(o);
          p->i = i;
          return fail(p, "bad \\u escape");
        }
        i += 4;
        uint32_t cp = (uint32_t)u;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= end && p->s[i] == '\\' && p->s[i + 1] == 'u') {
          int lo = hex4(p->s + i + 2);
          if (lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t)lo - 0xDC00);
            i += 6;
          }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* a lone surrogate */
        /* \u escapes take 6 bytes and write at most 4: k stays behind i */
        k += utf8_put(cp, (uint8_t *)o + k);
        break;
      }
      default:
        free(o);
        p->i = i;
        return fail(p, "bad escape");
    }
  }
  o[k] = 0;
  v->type = J_STR;
  v->s = o;
  v->n = k;
  return true;
}

static bool parse_val(jp *p, jv *v, int depth);

static bool push(jp *p, jv **kids, size_t *n, size_t *cap, jv **slot) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    jv *nk = realloc(*kids, nc * sizeof **kids);
    if (!nk) return fail(p, "out of memory");
    *kids = nk;
    *cap = nc;
  }
  *slot = &(*kids)[(*n)++];
  memset(*slot, 0, sizeof **slot);
  return true;
}

static bool parse_container(jp *p, jv *v, int depth, bool obj) {
  if (depth >= J_MAX_DEPTH) return fail(p, "nested too deeply");
  p->i++;
  v->type = obj ? J_OBJ : J_ARR;
  size_t cap = 0, cnt = 0;
  ws(p);
  if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) {
    p->i++;
    return true;
  }
  for (;;) {
    jv *slot;
    ws(p);
    if (obj) {
      if (p->i >= p->n || p->s[p->i] != '"') return fail(p, "expected a member name");
      /* key and value slots together (zeroed), so a failure frees cleanly */
      if (!push(p, &v->kid, &cnt, &cap, &slot) || !push(p, &v->kid, &cnt, &cap, &slot)) return false;
      v->n = cnt / 2;
      if (!parse_str(p, &v->kid[cnt - 2])) return false;
      ws(p);
      if (p->i >= p->n || p->s[p->i] != ':') return fail(p, "expected ':'");
      p->i++;
      ws(p);
    } else {
      if (!push(p, &v->kid, &cnt, &cap, &slot)) return false;
      v->n = cnt;
    }
    if (!parse_val(p, &v->kid[cnt - 1], depth + 1)) return false;
    ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->n && p->s[p->i] == (obj ? '}' : ']')) {
      p->i++;
      return true;
    }
    return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
  }
}

static bool parse_val(jp *p, jv *v, int depth) {
  ws(p);
  if (p->i >= p->n) return fail(p, "unexpected end");
  uint8_t c = p->s[p->i];
  if (c == '"') return parse_str(p, v);
  if (c == '{') return parse_container(p, v, depth, true);
  if (c == '[') return parse_container(p, v, depth, false);
  static const struct {
    const char *w;
    int t;
  } kWords[] = {{"null", J_NULL}, {"true", J_TRUE}, {"false", J_FALSE}};
  for (int k = 0; k < 3; k++) {
    size_t L = strlen(kWords[k].w);
    if (p->n - p->i >= L && !memcmp(p->s + p->i, kWords[k].w, L)) {
      v->type = kWords[k].t;
      p->i += L;
      return true;
    }
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    char tmp[64];
    size_t k = 0;
    while (p->i < p->n && k < sizeof tmp - 1 &&
           ((p->s[p->i] >= '0' && p->s[p->i] <= '9') || p->s[p->i] == '-' || p->s[p->i] == '+' ||
            p->s[p->i] == '.' || p->s[p->i] == 'e' || p->s[p->i] == 'E'))
      tmp[k++] = (char)p->s[p->i++];
    tmp[k] = 0;
    char *endp;
    v->num = strtod(tmp, &endp);
    if (*endp) return fail(p, "bad number");
    v->type = J_NUM;
    return true;
  }
  return fail(p, "unexpected character");
}

bool json_parse(const uint8_t *buf, size_t n, jv *out, char *err, size_t errn) {
  jp p = {buf, n, 0, err, errn};
  memset(out, 0, sizeof *out);
  if (!parse_val(&p, out, 0)) {
    json_free(out);
    return false;
  }
  ws(&p);
  if (p.i != n) {
    json_free(out);
    return fail(&p, "trailing characters");
  }
  return true;
}

void json_free(jv *v) {
  if (!v) return;
  size_t kids = v->type == J_OBJ ? v->n * 2 : v->type == J_ARR ? v->n : 0;
  for (size_t i = 0; i < kids; i++) json_free(&v->kid[i]);
  free(v->kid);
  free(v->s);
  memset(v, 0, sizeof *v);
}

const jv *json_get(const jv *obj, const char *key) {
  if (!obj || obj->type != J_OBJ) return NULL;
  for (size_t i = 0; i < obj->n; i++)
    if (!strcmp(obj->kid[2 * i].s, key)) return &obj->kid[2 * i + 1];
  return NULL;
}

bool json_is_str(const jv *v, const char *s) { return v && v->type == J_STR && !strcmp(v->s, s); }
