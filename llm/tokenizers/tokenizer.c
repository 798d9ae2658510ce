/* The tokenizer object shared by the three formats: pieces in one pool,
 * hash maps over them, added-token matching, encoding and streamed
 * decoding. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

pte_status tok_fail(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pte_error(PTE_ERR_INVALID_PROGRAM, "tokenizer: %s", msg);
}

void pte_llm_ids_free(pte_llm_ids *ids) {
  if (!ids) return;
  free(ids->ids);
  ids->ids = NULL;
  ids->n = ids->cap = 0;
}

pte_status tok_ids_push(pte_llm_ids *ids, int32_t id) {
  if (ids->n == ids->cap) {
    size_t nc = ids->cap ? ids->cap * 2 : 64;
    int32_t *na = realloc(ids->ids, nc * sizeof *na);
    if (!na) return tok_fail("out of memory");
    ids->ids = na;
    ids->cap = nc;
  }
  ids->ids[ids->n++] = id;
  return PTE_OK;
}

pte_llm_tokenizer *tok_new(int32_t format, int32_t kind) {
  pte_llm_tokenizer *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->format = format;
  t->kind = kind;
  t->unk_id = t->bos_id = t->eos_id = -1;
  for (int i = 0; i < 256; i++) t->byte_id[i] = t->spm_byte_id[i] = -1;
  return t;
}

pte_status tok_reserve(pte_llm_tokenizer *t, int32_t n) {
  if (n < 0 || n > TOK_MAX_TOKENS) return tok_fail("%d tokens: more than %d", (int)n, TOK_MAX_TOKENS);
  if (n <= t->ncap) return PTE_OK;
  uint32_t *off = realloc(t->off, (size_t)n * sizeof *off);
  if (!off) return tok_fail("out of memory");
  t->off = off;
  uint32_t *len = realloc(t->len, (size_t)n * sizeof *len);
  if (!len) return tok_fail("out of memory");
  t->len = len;
  uint8_t *attr = realloc(t->attr, (size_t)n);
  if (!attr) return tok_fail("out of memory");
  t->attr = attr;
  for (int32_t i = t->ncap; i < n; i++) {
    t->off[i] = t->len[i] = 0;
    t->attr[i] = 0;
  }
  t->ncap = n;
  return PTE_OK;
}

pte_status tok_set_piece(pte_llm_tokenizer *t, int32_t id, const void *bytes, size_t n, uint8_t attr) {
  if (id < 0 || id >= TOK_MAX_TOKENS) return tok_fail("token id %d out of range", (int)id);
  if (n > TOK_MAX_PIECE)
    return tok_fail("token %d is %zu bytes long (at most %d)", (int)id, n, TOK_MAX_PIECE);
  if (id >= t->ncap) {
    /* grow geometrically: pieces usually arrive in id order */
    int32_t want = t->ncap * 2 > id + 1 ? t->ncap * 2 : id + 1;
    if (want > TOK_MAX_TOKENS) want = id + 1;
    pte_status st = tok_reserve(t, want);
    if (st) return st;
  }
  if (id >= t->n) t->n = id + 1;
  if (t->attr[id] & TA_PRESENT) return tok_fail("token id %d is defined twice", (int)id);
  if (t->pool_len + n > UINT32_MAX) return tok_fail("token text too large");
  if (t->pool_len + n > t->pool_cap) {
    size_t nc = t->pool_cap ? t->pool_cap : 4096;
    while (nc < t->pool_len + n) nc *= 2;
    uint8_t *np = realloc(t->pool, nc);
    if (!np) return tok_fail("out of memory");
    t->pool = np;
    t->pool_cap = nc;
  }
  if (n) memcpy(t->pool + t->pool_len, bytes, n);
  t->off[id] = (uint32_t)t->pool_len;
  t->len[id] = (uint32_t)n;
  t->attr[id] = (uint8_t)(attr | TA_PRESENT);
  t->pool_len += n;
  return PTE_OK;
}

static uint64_t hash_bytes(const uint8_t *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
  return h;
}

int32_t tok_map_get(const pte_llm_tokenizer *t, const tok_map *m, const void *bytes, size_t n) {
  if (!m->cap) return -1;
  size_t mask = m->cap - 1, i = (size_t)hash_bytes(bytes, n) & mask;
  for (;;) {
    int32_t id = m->slots[i];
    if (id < 0) return -1;
    if (t->len[id] == n && !memcmp(t->pool + t->off[id], bytes, n)) return id;
    i = (i + 1) & mask;
  }
}

/* Build a map over the ids with `attr` set; a repeated piece fails. */
static pte_status map_build(pte_llm_tokenizer *t, tok_map *m, uint8_t attr, const char *what) {
  size_t count = 0;
  for (int32_t i = 0; i < t->n; i++) count += (t->attr[i] & attr) != 0;
  free(m->slots);
  m->cap = 16;
  while (m->cap < count * 2) m->cap *= 2;
  m->slots = malloc(m->cap * sizeof(int32_t));
  if (!m->slots) return tok_fail("out of memory");
  for (size_t i = 0; i < m->cap; i++) m->slots[i] = -1;
  size_t mask = m->cap - 1;
  for (int32_t id = 0; id < t->n; id++) {
    if (!(t->attr[id] & attr)) continue;
    const uint8_t *s = t->pool + t->off[id];
    size_t n = t->len[id], i = (size_t)hash_bytes(s, n) & mask;
    for (;;) {
      int32_t o = m->slots[i];
      if (o < 0) break;
      if (t->len[o] == n && !memcmp(t->pool + t->off[o], s, n))
        return tok_fail("%s tokens %d and %d have the same text", what, (int)o, (int)id);
      i = (i + 1) & mask;
    }
    m->slots[i] = id;
  }
  return PTE_OK;
}

pte_status tok_pairs_put(tok_pair_map *m, int32_t a, int32_t b, int32_t rank, int32_t merged) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t nc = m->cap ? m->cap * 2 : 1024;
    tok_pair_map nm = {calloc(nc, sizeof(uint64_t)), malloc(nc * sizeof(int32_t)),
                       malloc(nc * sizeof(int32_t)), nc, 0};
    if (!nm.keys || !nm.rank || !nm.merged) {
      free(nm.keys);
      free(nm.rank);
      free(nm.merged);
      return tok_fail("out of memory");
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i])
        (void)tok_pairs_put(&nm, (int32_t)(m->keys[i] >> 32) - 1, (int32_t)(uint32_t)m->keys[i] - 1,
                            m->rank[i], m->merged[i]);
    free(m->keys);
    free(m->rank);
    free(m->merged);
    *m = nm;
  }
  /* ids + 1 so that 0 marks an empty slot */
  uint64_t key = ((uint64_t)(uint32_t)(a + 1) << 32) | (uint32_t)(b + 1);
  size_t mask = m->cap - 1, i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (m->keys[i] && m->keys[i] != key) i = (i + 1) & mask;
  if (m->keys[i]) return PTE_OK; /* a repeated merge keeps its first (lowest) rank */
  m->keys[i] = key;
  m->rank[i] = rank;
  m->merged[i] = merged;
  m->n++;
  return PTE_OK;
}

bool tok_pairs_get(const tok_pair_map *m, int32_t a, int32_t b, int32_t *rank, int32_t *merged) {
  if (!m->cap) return false;
  uint64_t key = ((uint64_t)(uint32_t)(a + 1) << 32) | (uint32_t)(b + 1);
  size_t mask = m->cap - 1, i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
  while (m->keys[i]) {
    if (m->keys[i] == key) {
      *rank = m->rank[i];
      *merged = m->merged[i];
      return true;
    }
    i = (i + 1) & mask;
  }
  return false;
}

pte_status tok_finish(pte_llm_tokenizer *t) {
  pte_status st = map_build(t, &t->vocab, TA_IN_VOCAB, "vocabulary");
  if (!st) st = map_build(t, &t->added_map, TA_ADDED, "added");
  if (st) return st;
  free(t->added);
  t->n_added = 0;
  t->added = malloc(((size_t)t->n + 1) * sizeof(int32_t));
  if (!t->added) return tok_fail("out of memory");
  memset(t->added_first, 0, sizeof t->added_first);
  for (int32_t i = 0; i < t->n; i++)
    if ((t->attr[i] & TA_ADDED) && t->len[i] > 0) {
      t->added[t->n_added++] = i;
      uint8_t c = t->pool[t->off[i]];
      t->added_first[c >> 3] |= (uint8_t)(1u << (c & 7));
    }
  /* longest first, so that the first match at a position is the longest */
  for (int32_t i = 1; i < t->n_added; i++) {
    int32_t v = t->added[i], j = i - 1;
    while (j >= 0 && t->len[t->added[j]] < t->len[v]) {
      t->added[j + 1] = t->added[j];
      j--;
    }
    t->added[j + 1] = v;
  }
  if (t->kind == TOK_BYTELEVEL) {
    for (int b = 0; b < 256; b++) {
      uint8_t c = (uint8_t)b;
      t->byte_id[b] = tok_map_get(t, &t->vocab, &c, 1);
      if (t->byte_id[b] < 0) return tok_fail("the vocabulary has no token for the byte 0x%02x", b);
    }
  }
  return PTE_OK;
}

void pte_llm_tokenizer_free(pte_llm_tokenizer *t) {
  if (!t) return;
  free(t->off);
  free(t->len);
  free(t->attr);
  free(t->pool);
  free(t->vocab.slots);
  free(t->added_map.slots);
  free(t->added);
  free(t->merges.keys);
  free(t->merges.rank);
  free(t->merges.merged);
  free(t->score);
  free(t->dpool);
  free(t->doff);
  free(t->dlen);
  free(t);
}

pte_llm_tokenizer_format pte_llm_tokenizer_get_format(const pte_llm_tokenizer *t) {
  return (pte_llm_tokenizer_format)t->format;
}
int32_t pte_llm_tokenizer_vocab_size(const pte_llm_tokenizer *t) { return t->n; }
int32_t pte_llm_tokenizer_bos(const pte_llm_tokenizer *t) { return t->bos_id; }
int32_t pte_llm_tokenizer_eos(const pte_llm_tokenizer *t) { return t->eos_id; }

int32_t pte_llm_tokenizer_find(const pte_llm_tokenizer *t, const char *text) {
  size_t n = strlen(text);
  int32_t id = tok_map_get(t, &t->added_map, text, n);
  if (id < 0) id = tok_map_get(t, &t->vocab, text, n);
  return id;
}

pte_status pte_llm_tokenizer_add_special(pte_llm_tokenizer *t, const char *text, int32_t id) {
  size_t n = strlen(text);
  if (n == 0) return tok_fail("a special token needs text");
  if (id >= 0 && id < t->n && (t->attr[id] & TA_PRESENT))
    return tok_fail("token id %d is already defined", (int)id);
  if (tok_map_get(t, &t->added_map, text, n) >= 0) return tok_fail("special token '%s' exists", text);
  pte_status st = tok_set_piece(t, id, text, n, TA_ADDED | TA_SPECIAL);
  return st ? st : tok_finish(t);
}

/* Llama-3's named specials (the Llama 3.1+ list of Meta's and ExecuTorch's
 * tokenizers); the rest of the 256 are reserved_special_token_2, _3, ... */
static const char *const kLlama3Named[] = {"<|begin_of_text|>",
                                           "<|end_of_text|>",
                                           "<|reserved_special_token_0|>",
                                           "<|reserved_special_token_1|>",
                                           "<|finetune_right_pad_id|>",
                                           "<|step_id|>",
                                           "<|start_header_id|>",
                                           "<|end_header_id|>",
                                           "<|eom_id|>",
                                           "<|eot_id|>",
                                           "<|python_tag|>",
                                           "<|image|>"};
enum { LLAMA3_NUM_SPECIALS = 256 };

pte_status pte_llm_tokenizer_add_llama3_specials(pte_llm_tokenizer *t) {
  const int32_t base = t->n, nnamed = (int32_t)(sizeof kLlama3Named / sizeof kLlama3Named[0]);
  char name[64];
  /* all checked before any is added, so a refusal leaves the tokenizer as it was */
  for (int pass = 0; pass < 2; pass++)
    for (int32_t i = 0; i < LLAMA3_NUM_SPECIALS; i++) {
      const char *text = i < nnamed ? kLlama3Named[i] : name;
      if (i >= nnamed) snprintf(name, sizeof name, "<|reserved_special_token_%d|>", (int)(i - nnamed + 2));
      if (pass == 0 && pte_llm_tokenizer_find(t, text) >= 0)
        return tok_fail("special token '%s' exists", text);
      /* one map rebuild at the end, not one per token */
      pte_status st = pass ? tok_set_piece(t, base + i, text, strlen(text), TA_ADDED | TA_SPECIAL) : PTE_OK;
      if (st) return st;
    }
  pte_status st = tok_finish(t);
  if (st) return st;
  t->bos_id = base;
  t->eos_id = base + 1;
  return PTE_OK;
}

/* Encode a stretch of text without added tokens. */
static pte_status encode_plain(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out) {
  uint8_t *tmp = NULL;
  if (t->add_prefix_space && n && s[0] != ' ') {
    tmp = malloc(n + 1);
    if (!tmp) return tok_fail("out of memory");
    tmp[0] = ' ';
    memcpy(tmp + 1, s, n);
    s = tmp;
    n++;
  }
  pte_status st = PTE_OK;
  for (size_t i = 0; i < n && !st;) {
    size_t k = pretok_next(t->pattern, s + i, n - i);
    st = bpe_encode_piece(t, s + i, k, out);
    i += k;
  }
  free(tmp);
  return st;
}

pte_status pte_llm_tokenizer_encode(const pte_llm_tokenizer *t, const char *text, size_t len,
                                    pte_llm_ids *out) {
  if (!t || !out || (!text && len)) return tok_fail("encode: null argument");
  size_t n;
  uint8_t *s = utf8_sanitize((const uint8_t *)text, len, &n);
  if (!s) return tok_fail("out of memory");
  if (t->kind != TOK_BYTELEVEL) {
    /* sentencepiece normalizes the whole text, then matches its
     * user-defined pieces itself */
    pte_status st = spm_encode_text(t, s, n, out);
    free(s);
    return st;
  }
  pte_status st = PTE_OK;
  size_t start = 0;
  for (size_t i = 0; i < n && !st;) {
    int32_t hit = -1;
    if (t->n_added && (t->added_first[s[i] >> 3] & (1u << (s[i] & 7)))) {
      for (int32_t a = 0; a < t->n_added; a++) {
        int32_t id = t->added[a];
        if (t->len[id] <= n - i && !memcmp(s + i, t->pool + t->off[id], t->len[id])) {
          hit = id;
          break;
        }
      }
    }
    if (hit < 0) {
      i++;
      continue;
    }
    st = encode_plain(t, s + start, i - start, out);
    if (!st) st = tok_ids_push(out, hit);
    i += t->len[hit];
    start = i;
  }
  if (!st) st = encode_plain(t, s + start, n - start, out);
  free(s);
  return st;
}

const char *pte_llm_tokenizer_piece(const pte_llm_tokenizer *t, int32_t id, size_t *len) {
  if (!t || id < 0 || id >= t->n || !(t->attr[id] & TA_PRESENT) || (t->attr[id] & TA_UNUSED)) return NULL;
  if (t->dpool) {
    *len = t->dlen[id];
    return (const char *)t->dpool + t->doff[id];
  }
  *len = t->len[id];
  return (const char *)t->pool + t->off[id];
}

/* ---- streamed decoding ---- */

void pte_llm_decoder_init(pte_llm_decoder *d, const pte_llm_tokenizer *tok) {
  memset(d, 0, sizeof *d);
  d->tok = tok;
}

void pte_llm_decoder_free(pte_llm_decoder *d) {
  free(d->buf);
  d->buf = NULL;
  d->cap = 0;
}

static bool reserve(pte_llm_decoder *d, size_t need) {
  if (need <= d->cap) return true;
  size_t nc = d->cap ? d->cap : 256;
  while (nc < need) nc *= 2;
  char *nb = realloc(d->buf, nc);
  if (!nb) return false;
  d->buf = nb;
  d->cap = nc;
  return true;
}

/* Emit the complete characters of pending + bytes, keep an incomplete tail. */
static pte_status emit(pte_llm_decoder *d, const uint8_t *b, size_t n, size_t *len) {
  size_t total = (size_t)d->npending + n;
  /* the output (at most 3 bytes per input byte) at the front of buf, the
   * input behind it: no allocation per token once buf is large enough */
  if (!reserve(d, total * 4 + 8)) return tok_fail("out of memory");
  uint8_t *in = (uint8_t *)d->buf + total * 3 + 8;
  memcpy(in, d->pending, (size_t)d->npending);
  if (n) memcpy(in + d->npending, b, n);
  size_t o = 0, i = 0;
  d->npending = 0;
  while (i < total) {
    uint32_t cp;
    size_t sub;
    int k = utf8_next(in + i, total - i, &cp, &sub);
    if (k > 0) {
      memcpy(d->buf + o, in + i, (size_t)k);
      o += (size_t)k;
      i += (size_t)k;
    } else if (i + sub == total && sub < 4 && in[i] >= 0xC2 && in[i] <= 0xF4) {
      /* a character cut at the end: wait for the next token */
      memcpy(d->pending, in + i, sub);
      d->npending = (int32_t)sub;
      break;
    } else {
      o += utf8_put(0xFFFD, (uint8_t *)d->buf + o);
      i += sub;
    }
  }
  *len = o;
  return PTE_OK;
}

pte_status pte_llm_decoder_push(pte_llm_decoder *d, int32_t id, const char **text, size_t *len) {
  const pte_llm_tokenizer *t = d->tok;
  size_t n = 0;
  const char *p = pte_llm_tokenizer_piece(t, id, &n);
  *text = "";
  *len = 0;
  if (!p) return tok_fail("token id %d is not in the vocabulary", (int)id);
  if (t->kind != TOK_BYTELEVEL) {
    uint8_t a = t->attr[id];
    if (a & TA_CONTROL) return PTE_OK;
    if (a & TA_UNK) {
      p = " \xe2\x81\x87 "; /* what sentencepiece prints for an unknown piece */
      n = 5;
    }
    /* the first piece loses the space the dummy prefix put in front */
    if (d->emitted == 0 && t->add_dummy_prefix && n && p[0] == ' ' && !(a & (TA_BYTE | TA_UNK))) {
      p++;
      n--;
    }
  }
  d->emitted++;
  pte_status st = emit(d, (const uint8_t *)p, n, len);
  *text = d->buf ? d->buf : "";
  return st;
}

pte_status pte_llm_decoder_flush(pte_llm_decoder *d, const char **text, size_t *len) {
  *len = 0;
  *text = "";
  if (!d->npending) return PTE_OK;
  if (!reserve(d, 8)) return tok_fail("out of memory");
  d->npending = 0;
  *len = utf8_put(0xFFFD, (uint8_t *)d->buf);
  *text = d->buf;
  return PTE_OK;
}

/* ---- loading ---- */

pte_status pte_llm_tokenizer_load_buffer(const void *data, size_t size, pte_llm_tokenizer_format format,
                                         pte_llm_tokenizer **out) {
  if (!out) return tok_fail("null output");
  *out = NULL;
  if (!data && size) return tok_fail("null data");
  const uint8_t *b = data;
  if (format == PTE_LLM_TOKENIZER_AUTO) {
    size_t i = 0;
    while (i < size && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r')) i++;
    if (i < size && b[i] == '{') {
      format = PTE_LLM_TOKENIZER_HF_JSON;
    } else {
      /* tiktoken: base64, a space, a decimal rank */
      size_t j = i;
      while (j < size && ((b[j] >= 'A' && b[j] <= 'Z') || (b[j] >= 'a' && b[j] <= 'z') ||
                          (b[j] >= '0' && b[j] <= '9') || b[j] == '+' || b[j] == '/' || b[j] == '='))
        j++;
      format =
          j > i && j < size && b[j] == ' ' ? PTE_LLM_TOKENIZER_TIKTOKEN : PTE_LLM_TOKENIZER_SENTENCEPIECE;
    }
  }
  switch (format) {
    case PTE_LLM_TOKENIZER_HF_JSON: return tok_load_hf_json(b, size, out);
    case PTE_LLM_TOKENIZER_TIKTOKEN: return tok_load_tiktoken(b, size, out);
    case PTE_LLM_TOKENIZER_SENTENCEPIECE: return tok_load_spm(b, size, out);
    default: return tok_fail("unknown tokenizer format %d", (int)format);
  }
}

pte_status pte_llm_tokenizer_load_file(const char *path, pte_llm_tokenizer **out) {
  if (!out || !path) return tok_fail("null argument");
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return tok_fail("cannot open %s", path);
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      if (cap >= ((size_t)1 << 30)) {
        fclose(f);
        free(buf);
        return tok_fail("%s is larger than 1 GB", path);
      }
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) {
        fclose(f);
        free(buf);
        return tok_fail("out of memory");
      }
      buf = nb;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    n += k;
    if (k == 0) break;
  }
  fclose(f);
  pte_status st = pte_llm_tokenizer_load_buffer(buf, n, PTE_LLM_TOKENIZER_AUTO, out);
  free(buf);
  if (st) {
    char msg[600];
    snprintf(msg, sizeof msg, "%s", pte_last_error());
    pte_error(st, "%s (%s)", msg, path);
  }
  return st;
}
