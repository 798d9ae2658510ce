/* sentencepiece .model files (a ModelProto in protobuf wire format) and
 * their two models:
 *   unigram: the best-scoring segmentation (Viterbi over characters; an
 *            unknown character costs the lowest score minus 10, user-defined
 *            pieces score length * best score, so they always win);
 *   BPE:     from characters, repeatedly merge the adjacent pair whose
 *            concatenation is the highest-scoring piece (leftmost on ties).
 * Unknown characters become <unk>, or their bytes' <0xXX> pieces with byte
 * fallback. Normalization: the identity rule only (no precompiled
 * character map), with sentencepiece's whitespace handling: extra spaces
 * removed, a dummy prefix space, spaces written as U+2581. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

static const uint8_t kSpace[3] = {0xE2, 0x96, 0x81}; /* U+2581 */

/* ---- protobuf wire format ---- */

typedef struct pb {
  const uint8_t *s;
  size_t n, i;
} pb;

static bool varint(pb *p, uint64_t *v) {
  *v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (p->i >= p->n) return false;
    uint8_t b = p->s[p->i++];
    *v |= (uint64_t)(b & 0x7F) << shift;
    if (!(b & 0x80)) return true;
  }
  return false;
}

/* Next field: number, wire type, and for length-delimited fields the bytes. */
static bool field(pb *p, uint32_t *num, int *wt, uint64_t *v, pb *sub) {
  uint64_t key;
  if (!varint(p, &key)) return false;
  *num = (uint32_t)(key >> 3);
  *wt = (int)(key & 7);
  switch (*wt) {
    case 0: return varint(p, v);
    case 1:
      if (p->n - p->i < 8) return false;
      memcpy(v, p->s + p->i, 8);
      p->i += 8;
      return true;
    case 5: {
      if (p->n - p->i < 4) return false;
      uint32_t w;
      memcpy(&w, p->s + p->i, 4);
      *v = w;
      p->i += 4;
      return true;
    }
    case 2:
      if (!varint(p, v) || *v > p->n - p->i) return false;
      *sub = (pb){p->s + p->i, (size_t)*v, 0};
      p->i += (size_t)*v;
      return true;
    default: return false;
  }
}

enum { P_NORMAL = 1, P_UNKNOWN = 2, P_CONTROL = 3, P_USER = 4, P_UNUSED = 5, P_BYTE = 6 };

static pte_status parse_piece(pte_llm_tokenizer *t, pb p, int32_t id, float *scores, size_t *ns) {
  pb text = {0};
  bool has_text = false;
  float score = 0;
  uint64_t type = P_NORMAL;
  uint32_t num;
  int wt;
  uint64_t v;
  pb sub;
  while (p.i < p.n) {
    if (!field(&p, &num, &wt, &v, &sub)) return tok_fail("sentencepiece: piece %d is malformed", (int)id);
    if (num == 1 && wt == 2) {
      text = sub;
      has_text = true;
    } else if (num == 2 && wt == 5) {
      uint32_t w = (uint32_t)v;
      memcpy(&score, &w, 4);
    } else if (num == 3 && wt == 0) {
      type = v;
    }
  }
  if (!has_text || text.n == 0) return tok_fail("sentencepiece: piece %d has no text", (int)id);
  if (type < P_NORMAL || type > P_BYTE)
    return tok_fail("sentencepiece: piece %d has unknown type %llu", (int)id, (unsigned long long)type);
  if (score != score) return tok_fail("sentencepiece: piece %d has a NaN score", (int)id);
  uint8_t attr = type == P_NORMAL    ? TA_IN_VOCAB
                 : type == P_USER    ? (uint8_t)(TA_IN_VOCAB | TA_ADDED)
                 : type == P_UNKNOWN ? TA_UNK
                 : type == P_CONTROL ? TA_CONTROL
                 : type == P_UNUSED  ? TA_UNUSED
                                     : TA_BYTE;
  if (type == P_BYTE) {
    static const char hex[] = "0123456789ABCDEF";
    const char *h1, *h2;
    if (text.n != 6 || memcmp(text.s, "<0x", 3) || text.s[5] != '>' || !(h1 = memchr(hex, text.s[3], 16)) ||
        !(h2 = memchr(hex, text.s[4], 16)))
      return tok_fail("sentencepiece: byte piece %d is not <0xXX>", (int)id);
    int b = (int)((h1 - hex) * 16 + (h2 - hex));
    if (t->spm_byte_id[b] >= 0) return tok_fail("sentencepiece: byte 0x%02X has two pieces", b);
    t->spm_byte_id[b] = id;
  }
  if (type == P_UNKNOWN) {
    if (t->unk_id >= 0) return tok_fail("sentencepiece: two unknown pieces");
    t->unk_id = id;
  }
  scores[id] = score;
  (*ns)++;
  return tok_set_piece(t, id, text.s, text.n, attr);
}

/* The decoded form of every piece (pte_llm_tokenizer_piece, the decoder). */
static pte_status build_decoded(pte_llm_tokenizer *t, const uint8_t *unk_surface, size_t unk_len) {
  size_t total = 0;
  for (int32_t i = 0; i < t->n; i++) total += t->len[i] + unk_len;
  t->dpool = malloc(total ? total : 1);
  t->doff = malloc((size_t)t->n * sizeof(uint32_t));
  t->dlen = malloc((size_t)t->n * sizeof(uint32_t));
  if (!t->dpool || !t->doff || !t->dlen) return tok_fail("out of memory");
  size_t o = 0;
  for (int32_t id = 0; id < t->n; id++) {
    const uint8_t *s = t->pool + t->off[id];
    size_t n = t->len[id], start = o;
    uint8_t a = t->attr[id];
    if (a & TA_BYTE) {
      for (int b = 0; b < 256; b++)
        if (t->spm_byte_id[b] == id) t->dpool[o++] = (uint8_t)b;
    } else if (a & TA_UNK) {
      memcpy(t->dpool + o, unk_surface, unk_len);
      o += unk_len;
    } else if (!(a & (TA_CONTROL | TA_UNUSED))) {
      for (size_t i = 0; i < n;) {
        if (n - i >= 3 && !memcmp(s + i, kSpace, 3)) {
          t->dpool[o++] = ' ';
          i += 3;
        } else {
          t->dpool[o++] = s[i++];
        }
      }
    }
    t->doff[id] = (uint32_t)start;
    t->dlen[id] = (uint32_t)(o - start);
  }
  return PTE_OK;
}

static pte_status load(pte_llm_tokenizer *t, const uint8_t *buf, size_t n) {
  pb p = {buf, n, 0}, sub;
  uint32_t num;
  int wt;
  uint64_t v;
  /* count the pieces first: ids are their order */
  size_t count = 0;
  while (p.i < p.n) {
    if (!field(&p, &num, &wt, &v, &sub))
      return tok_fail("sentencepiece: not a ModelProto (bad protobuf at byte %zu)", p.i);
    if (num == 1 && wt == 2) count++;
  }
  if (count == 0) return tok_fail("sentencepiece: the model has no pieces");
  if (count > TOK_MAX_TOKENS) return tok_fail("sentencepiece: too many pieces");
  K_TRY(tok_reserve(t, (int32_t)count));
  t->score = malloc(count * sizeof(float));
  if (!t->score) return tok_fail("out of memory");
  uint64_t model_type = 1;
  bool byte_fallback = false, ws_suffix = false;
  int64_t bos = 1, eos = 2;
  uint8_t unk_surface[64] = " \xe2\x81\x87 ";
  size_t unk_len = 5, ns = 0;
  t->add_dummy_prefix = t->remove_extra_ws = t->escape_ws = true;
  p.i = 0;
  while (p.i < p.n) {
    (void)field(&p, &num, &wt, &v, &sub);
    if (num == 1 && wt == 2) {
      K_TRY(parse_piece(t, sub, (int32_t)ns, t->score, &ns));
    } else if (num == 2 && wt == 2) { /* TrainerSpec */
      pb q = sub, s2;
      while (q.i < q.n) {
        if (!field(&q, &num, &wt, &v, &s2)) return tok_fail("sentencepiece: malformed trainer_spec");
        if (num == 3 && wt == 0) model_type = v;
        if (num == 35 && wt == 0) byte_fallback = v != 0;
        if (num == 24 && wt == 0) ws_suffix = v != 0;
        if (num == 41 && wt == 0) bos = (int64_t)(int32_t)v;
        if (num == 42 && wt == 0) eos = (int64_t)(int32_t)v;
        if (num == 44 && wt == 2 && s2.n < sizeof unk_surface) {
          memcpy(unk_surface, s2.s, s2.n);
          unk_len = s2.n;
        }
      }
    } else if (num == 3 && wt == 2) { /* NormalizerSpec */
      pb q = sub, s2;
      while (q.i < q.n) {
        if (!field(&q, &num, &wt, &v, &s2)) return tok_fail("sentencepiece: malformed normalizer_spec");
        if (num == 1 && wt == 2 && !(s2.n == 0 || (s2.n == 8 && !memcmp(s2.s, "identity", 8))))
          return tok_fail("sentencepiece: normalizer '%.*s' is not supported (identity only)",
                          (int)(s2.n < 40 ? s2.n : 40), (const char *)s2.s);
        if (num == 2 && wt == 2 && s2.n)
          return tok_fail("sentencepiece: precompiled normalization maps are not supported (identity only)");
        if (num == 3 && wt == 0) t->add_dummy_prefix = v != 0;
        if (num == 4 && wt == 0) t->remove_extra_ws = v != 0;
        if (num == 5 && wt == 0) t->escape_ws = v != 0;
      }
    }
  }
  if (model_type == 1) t->kind = TOK_SPM_UNIGRAM;
  else if (model_type == 2) t->kind = TOK_SPM_BPE;
  else
    return tok_fail("sentencepiece: model type %llu is not supported (unigram or BPE)",
                    (unsigned long long)model_type);
  if (ws_suffix) return tok_fail("sentencepiece: treat_whitespace_as_suffix is not supported");
  if (t->unk_id < 0) return tok_fail("sentencepiece: the model has no unknown piece");
  t->byte_fallback = byte_fallback;
  if (byte_fallback)
    for (int b = 0; b < 256; b++)
      if (t->spm_byte_id[b] < 0)
        return tok_fail("sentencepiece: byte fallback without a piece for 0x%02X", b);
  t->bos_id = bos >= 0 && bos < t->n && (t->attr[bos] & TA_CONTROL) ? (int32_t)bos : -1;
  t->eos_id = eos >= 0 && eos < t->n && (t->attr[eos] & TA_CONTROL) ? (int32_t)eos : -1;
  t->min_score = 1e30f;
  t->max_score = -1e30f;
  t->max_piece_chars = 1;
  for (int32_t i = 0; i < t->n; i++) {
    if ((t->attr[i] & TA_IN_VOCAB) && !(t->attr[i] & TA_ADDED)) {
      if (t->score[i] < t->min_score) t->min_score = t->score[i];
      if (t->score[i] > t->max_score) t->max_score = t->score[i];
    }
    if ((int32_t)t->len[i] > t->max_piece_chars) t->max_piece_chars = (int32_t)t->len[i];
  }
  if (t->min_score > t->max_score) t->min_score = t->max_score = 0;
  K_TRY(tok_finish(t));
  return build_decoded(t, unk_surface, unk_len);
}

pte_status tok_load_spm(const uint8_t *buf, size_t n, pte_llm_tokenizer **out) {
  pte_llm_tokenizer *t = tok_new(PTE_LLM_TOKENIZER_SENTENCEPIECE, TOK_SPM_UNIGRAM);
  if (!t) return tok_fail("out of memory");
  pte_status st = load(t, buf, n);
  if (st) {
    pte_llm_tokenizer_free(t);
    return st;
  }
  *out = t;
  return PTE_OK;
}

/* ---- encoding ---- */

/* Identity normalization with sentencepiece's whitespace rules. */
static uint8_t *normalize(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, size_t *out_n) {
  uint8_t *o = malloc(n * 3 + 4);
  if (!o) return NULL;
  size_t k = 0, i = 0;
  if (t->remove_extra_ws) {
    while (i < n && s[i] == ' ') i++;
    while (n > i && s[n - 1] == ' ') n--;
  }
  if (i < n && t->add_dummy_prefix) {
    if (t->escape_ws) {
      memcpy(o, kSpace, 3);
      k = 3;
    } else {
      o[k++] = ' ';
    }
  }
  for (; i < n; i++) {
    if (s[i] == ' ') {
      if (t->remove_extra_ws && i > 0 && s[i - 1] == ' ') continue;
      if (t->escape_ws) {
        memcpy(o + k, kSpace, 3);
        k += 3;
        continue;
      }
    }
    o[k++] = s[i];
  }
  *out_n = k;
  return o;
}

static size_t char_len(const uint8_t *s, size_t n) {
  uint32_t cp;
  size_t sub;
  int k = utf8_next(s, n, &cp, &sub);
  return k > 0 ? (size_t)k : 1;
}

/* A matchable piece for s[0..n): normal or user-defined, or -1. */
static int32_t lookup(const pte_llm_tokenizer *t, const uint8_t *s, size_t n) {
  return tok_map_get(t, &t->vocab, s, n);
}

/* Emit an unknown stretch: its bytes' pieces with byte fallback, else <unk>
 * (a run of unknown characters is one <unk>, as sentencepiece merges them). */
static pte_status emit_unknown(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out,
                               bool *prev_unk) {
  if (t->byte_fallback) {
    for (size_t i = 0; i < n; i++) K_TRY(tok_ids_push(out, t->spm_byte_id[s[i]]));
    return PTE_OK;
  }
  if (*prev_unk) return PTE_OK;
  *prev_unk = true;
  return tok_ids_push(out, t->unk_id);
}

static pte_status unigram(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out) {
  typedef struct node {
    float score;
    int32_t id, from;
  } node;
  node *best = malloc((n + 1) * sizeof *best);
  if (!best) return tok_fail("out of memory");
  for (size_t i = 0; i <= n; i++) best[i] = (node){0, -1, -1};
  best[0].from = 0;
  const float unk_score = t->min_score - 10.0f;
  for (size_t at = 0; at < n;) {
    const size_t mb = char_len(s + at, n - at);
    if (best[at].from < 0) { /* unreachable: cannot happen, every char has a node */
      at += mb;
      continue;
    }
    const float base = best[at].score;
    bool single = false;
    for (size_t len = 1; len <= (size_t)t->max_piece_chars && at + len <= n; len++) {
      int32_t id = lookup(t, s + at, len);
      if (id < 0) continue;
      float sc = (t->attr[id] & TA_ADDED) ? (float)len * t->max_score - 1e-7f : t->score[id];
      float cand = sc + base;
      node *tg = &best[at + len];
      if (tg->from < 0 || cand > tg->score) *tg = (node){cand, id, (int32_t)at};
      if (len == mb) single = true;
    }
    if (!single) {
      node *tg = &best[at + mb];
      float cand = unk_score + base;
      if (tg->from < 0 || cand > tg->score) *tg = (node){cand, t->unk_id, (int32_t)at};
    }
    at += mb;
  }
  /* backtrack into a reversed list of (start, id) */
  size_t cnt = 0;
  for (size_t e = n; e > 0; e = (size_t)best[e].from) cnt++;
  int32_t *seq = malloc((cnt ? cnt : 1) * 2 * sizeof(int32_t));
  if (!seq) {
    free(best);
    return tok_fail("out of memory");
  }
  size_t k = cnt;
  for (size_t e = n; e > 0; e = (size_t)best[e].from) {
    k--;
    seq[2 * k] = best[e].from;
    seq[2 * k + 1] = (int32_t)e;
  }
  pte_status st = PTE_OK;
  bool prev_unk = false;
  for (size_t i = 0; i < cnt && !st; i++) {
    size_t b = (size_t)seq[2 * i], e = (size_t)seq[2 * i + 1];
    int32_t id = best[e].id;
    if (id == t->unk_id) {
      st = emit_unknown(t, s + b, e - b, out, &prev_unk);
    } else {
      prev_unk = false;
      st = tok_ids_push(out, id);
    }
  }
  free(seq);
  free(best);
  return st;
}

typedef struct sym {
  int32_t start, len, prev, next; /* bytes of the normalized text */
} sym;

typedef struct agenda_item {
  float score;
  int32_t left, right, len; /* len: the merged length when pushed */
} agenda_item;

static bool ag_less(const agenda_item *x, const agenda_item *y) { /* "comes out first" */
  return x->score != y->score ? x->score > y->score : x->left < y->left;
}

typedef struct agenda {
  agenda_item *a;
  size_t n, cap;
} agenda;

static bool ag_push(agenda *h, agenda_item c) {
  if (h->n == h->cap) {
    size_t nc = h->cap ? h->cap * 2 : 64;
    agenda_item *na = realloc(h->a, nc * sizeof *na);
    if (!na) return false;
    h->a = na;
    h->cap = nc;
  }
  size_t i = h->n++;
  while (i > 0 && ag_less(&c, &h->a[(i - 1) / 2])) {
    h->a[i] = h->a[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h->a[i] = c;
  return true;
}

static agenda_item ag_pop(agenda *h) {
  agenda_item top = h->a[0], last = h->a[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const agenda_item *b = &last;
    if (l < h->n && ag_less(&h->a[l], b)) {
      m = l;
      b = &h->a[l];
    }
    if (r < h->n && ag_less(&h->a[r], b)) m = r;
    if (m == i) break;
    h->a[i] = h->a[m];
    i = m;
  }
  if (h->n) h->a[i] = last;
  return top;
}

static bool ag_pair(const pte_llm_tokenizer *t, agenda *h, const uint8_t *s, const sym *y, int32_t l,
                    int32_t r) {
  if (l < 0 || r < 0) return true;
  int32_t len = y[l].len + y[r].len;
  int32_t id = lookup(t, s + y[l].start, (size_t)len);
  if (id < 0) return true;
  return ag_push(h, (agenda_item){t->score[id], l, r, len});
}

static pte_status bpe(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out) {
  if (n > INT32_MAX / 2) return tok_fail("text too long");
  sym *y = malloc((n ? n : 1) * sizeof *y);
  if (!y) return tok_fail("out of memory");
  int32_t cnt = 0;
  for (size_t i = 0; i < n;) {
    size_t len = 0;
    /* user-defined pieces are one symbol (the longest that matches) */
    for (int32_t a = 0; a < t->n_added && !len; a++) {
      int32_t id = t->added[a];
      if (t->len[id] <= n - i && !memcmp(s + i, t->pool + t->off[id], t->len[id])) len = t->len[id];
    }
    if (!len) len = char_len(s + i, n - i);
    y[cnt] = (sym){(int32_t)i, (int32_t)len, cnt - 1, -1};
    if (cnt) y[cnt - 1].next = cnt;
    cnt++;
    i += len;
  }
  agenda h = {0};
  pte_status st = PTE_OK;
  for (int32_t i = 0; i + 1 < cnt; i++)
    if (!ag_pair(t, &h, s, y, i, i + 1)) goto oom;
  while (h.n) {
    agenda_item c = ag_pop(&h);
    if (y[c.left].len == 0 || y[c.right].len == 0 || y[c.left].next != c.right ||
        y[c.left].len + y[c.right].len != c.len)
      continue; /* stale */
    y[c.left].len = c.len;
    y[c.right].len = 0;
    y[c.left].next = y[c.right].next;
    if (y[c.right].next >= 0) y[y[c.right].next].prev = c.left;
    if (!ag_pair(t, &h, s, y, y[c.left].prev, c.left) || !ag_pair(t, &h, s, y, c.left, y[c.left].next))
      goto oom;
  }
  bool prev_unk = false;
  for (int32_t i = cnt ? 0 : -1; i >= 0 && !st; i = y[i].next) {
    int32_t id = lookup(t, s + y[i].start, (size_t)y[i].len);
    if (id < 0) {
      st = emit_unknown(t, s + y[i].start, (size_t)y[i].len, out, &prev_unk);
    } else {
      prev_unk = false;
      st = tok_ids_push(out, id);
    }
  }
  free(h.a);
  free(y);
  return st;
oom:
  free(h.a);
  free(y);
  return tok_fail("out of memory");
}

pte_status spm_encode_text(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out) {
  size_t m;
  uint8_t *norm = normalize(t, s, n, &m);
  if (!norm) return tok_fail("out of memory");
  pte_status st = m == 0 ? PTE_OK : t->kind == TOK_SPM_BPE ? bpe(t, norm, m, out) : unigram(t, norm, m, out);
  free(norm);
  return st;
}
