/* Hugging Face tokenizer.json: a BPE model over byte-level pieces (GPT-2's
 * byte-to-character table), the ByteLevel pre-tokenizer (GPT-2 pattern) or
 * a Split on the Llama-3 / Qwen2 pattern followed by ByteLevel without its
 * regex, the ByteLevel decoder, and added tokens. Anything else (another
 * model, a normalizer, an unknown pattern) is refused by name rather than
 * tokenized differently from the reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tok_internal.h"

static const char kGpt2Pat[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
static const char kLlama3Pat[] =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
    "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

/* GPT-2's table: printable Latin-1 bytes stand for themselves, the others
 * for U+0100 upwards in byte order. */
static int byte_of_char(uint32_t cp) {
  static int table[324];
  static int ready = 0;
  if (!ready) {
    for (int i = 0; i < 324; i++) table[i] = -1;
    int next = 256;
    for (int b = 0; b < 256; b++) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      table[printable ? b : next++] = b;
    }
    ready = 1;
  }
  return cp < 324 ? table[cp] : -1;
}

/* Byte-level text (UTF-8 of mapped characters) to raw bytes; -1 if a
 * character is outside the table. */
static long unmap(const char *s, size_t n, uint8_t *out, size_t cap) {
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    uint32_t cp;
    size_t sub;
    int k = utf8_next((const uint8_t *)s + i, n - i, &cp, &sub);
    int b = k > 0 ? byte_of_char(cp) : -1;
    if (b < 0 || o >= cap) return -1;
    out[o++] = (uint8_t)b;
    i += (size_t)k;
  }
  return (long)o;
}

static bool is_null_or_empty(const jv *v) {
  return !v || v->type == J_NULL || (v->type == J_STR && v->n == 0) || (v->type == J_ARR && v->n == 0);
}

static bool get_bool(const jv *o, const char *key, bool dflt) {
  const jv *v = json_get(o, key);
  return v && (v->type == J_TRUE || v->type == J_FALSE) ? v->type == J_TRUE : dflt;
}

static bool as_id(const jv *v, int32_t *id) {
  if (!v || v->type != J_NUM || v->num < 0 || v->num >= TOK_MAX_TOKENS || v->num != (double)(int32_t)v->num)
    return false;
  *id = (int32_t)v->num;
  return true;
}

/* The pre-tokenizer: ByteLevel, or Sequence [Split(pattern), ByteLevel]. */
static pte_status pre_tokenizer(pte_llm_tokenizer *t, const jv *pt) {
  if (!pt || pt->type != J_OBJ)
    return tok_fail("tokenizer.json: no pre_tokenizer (a byte-level one is needed)");
  const jv *type = json_get(pt, "type");
  if (json_is_str(type, "ByteLevel")) {
    if (!get_bool(pt, "use_regex", true))
      return tok_fail("tokenizer.json: ByteLevel without a split pattern");
    t->pattern = PRETOK_GPT2;
    t->add_prefix_space = get_bool(pt, "add_prefix_space", true);
    return PTE_OK;
  }
  const jv *list = json_get(pt, "pretokenizers");
  if (!json_is_str(type, "Sequence") || !list || list->type != J_ARR || list->n != 2)
    return tok_fail("tokenizer.json: unsupported pre_tokenizer (ByteLevel, or Split then ByteLevel)");
  const jv *split = &list->kid[0], *bl = &list->kid[1];
  if (!json_is_str(json_get(split, "type"), "Split") || !json_is_str(json_get(bl, "type"), "ByteLevel"))
    return tok_fail("tokenizer.json: unsupported pre_tokenizer sequence (Split then ByteLevel)");
  if (get_bool(bl, "use_regex", true))
    return tok_fail("tokenizer.json: ByteLevel after Split must not split again");
  t->add_prefix_space = get_bool(bl, "add_prefix_space", true);
  if (!json_is_str(json_get(split, "behavior"), "Isolated") || get_bool(split, "invert", false))
    return tok_fail("tokenizer.json: Split must be Isolated, not inverted");
  const jv *pat = json_get(json_get(split, "pattern"), "Regex");
  if (!pat || pat->type != J_STR) return tok_fail("tokenizer.json: Split needs a Regex pattern");
  if (!strcmp(pat->s, kLlama3Pat)) {
    t->pattern = PRETOK_LLAMA3;
  } else if (!strcmp(pat->s, kGpt2Pat)) {
    t->pattern = PRETOK_GPT2;
  } else {
    /* Qwen2: Llama-3's with single digits */
    char qwen[sizeof kLlama3Pat];
    const char *d = strstr(kLlama3Pat, "\\p{N}{1,3}");
    size_t at = (size_t)(d - kLlama3Pat);
    snprintf(qwen, sizeof qwen, "%.*s\\p{N}%s", (int)at, kLlama3Pat, d + strlen("\\p{N}{1,3}"));
    if (strcmp(pat->s, qwen)) return tok_fail("tokenizer.json: unsupported split pattern %.80s", pat->s);
    t->pattern = PRETOK_QWEN2;
  }
  return PTE_OK;
}

static pte_status load(pte_llm_tokenizer *t, const jv *root) {
  if (root->type != J_OBJ) return tok_fail("tokenizer.json: not an object");
  const jv *model = json_get(root, "model");
  if (!model || model->type != J_OBJ) return tok_fail("tokenizer.json: no model");
  const jv *type = json_get(model, "type");
  if (type && !json_is_str(type, "BPE"))
    return tok_fail("tokenizer.json: model %s is not supported (BPE only)",
                    type->type == J_STR ? type->s : "?");
  if (get_bool(model, "byte_fallback", false))
    return tok_fail("tokenizer.json: byte_fallback BPE is not supported");
  if (!is_null_or_empty(json_get(model, "continuing_subword_prefix")) ||
      !is_null_or_empty(json_get(model, "end_of_word_suffix")))
    return tok_fail("tokenizer.json: subword prefixes/suffixes are not supported");
  const jv *drop = json_get(model, "dropout");
  if (drop && drop->type == J_NUM && drop->num != 0)
    return tok_fail("tokenizer.json: BPE dropout is not supported");
  if (!is_null_or_empty(json_get(root, "normalizer")))
    return tok_fail("tokenizer.json: normalizers are not supported (byte-level BPE has none)");
  const jv *dec = json_get(root, "decoder");
  if (dec && dec->type != J_NULL && !json_is_str(json_get(dec, "type"), "ByteLevel"))
    return tok_fail("tokenizer.json: decoder must be ByteLevel");
  K_TRY(pre_tokenizer(t, json_get(root, "pre_tokenizer")));
  t->whole_word_first = get_bool(model, "ignore_merges", false);

  const jv *vocab = json_get(model, "vocab");
  if (!vocab || vocab->type != J_OBJ || vocab->n == 0)
    return tok_fail("tokenizer.json: model.vocab missing or empty");
  if (vocab->n > TOK_MAX_TOKENS) return tok_fail("tokenizer.json: vocabulary too large");
  uint8_t piece[TOK_MAX_PIECE];
  for (size_t i = 0; i < vocab->n; i++) {
    const jv *k = &vocab->kid[2 * i];
    int32_t id;
    if (!as_id(&vocab->kid[2 * i + 1], &id))
      return tok_fail("tokenizer.json: vocab entry %zu has a bad id", i);
    long len = unmap(k->s, k->n, piece, sizeof piece);
    if (len < 0) return tok_fail("tokenizer.json: vocab token %.40s is not byte-level text", k->s);
    K_TRY(tok_set_piece(t, id, piece, (size_t)len, TA_IN_VOCAB));
  }
  const jv *added = json_get(root, "added_tokens");
  for (size_t i = 0; added && added->type == J_ARR && i < added->n; i++) {
    const jv *a = &added->kid[i], *content = json_get(a, "content");
    int32_t id;
    if (!as_id(json_get(a, "id"), &id) || !content || content->type != J_STR || content->n == 0)
      return tok_fail("tokenizer.json: added token %zu needs an id and content", i);
    if (get_bool(a, "lstrip", false) || get_bool(a, "rstrip", false) || get_bool(a, "single_word", false))
      return tok_fail("tokenizer.json: added token %.40s: lstrip/rstrip/single_word are not supported",
                      content->s);
    uint8_t attr = (uint8_t)(TA_ADDED | (get_bool(a, "special", false) ? TA_SPECIAL : 0));
    if (id < t->n && (t->attr[id] & TA_PRESENT)) {
      /* also in the vocabulary: the same text, now matched first */
      if (t->len[id] != content->n || memcmp(t->pool + t->off[id], content->s, content->n))
        return tok_fail("tokenizer.json: added token %d differs from its vocabulary entry", (int)id);
      t->attr[id] |= attr;
    } else {
      K_TRY(tok_set_piece(t, id, content->s, content->n, attr));
    }
  }
  K_TRY(tok_finish(t));

  const jv *merges = json_get(model, "merges");
  if (!merges || merges->type != J_ARR) return tok_fail("tokenizer.json: model.merges missing");
  for (size_t r = 0; r < merges->n; r++) {
    const jv *m = &merges->kid[r];
    const char *a, *b;
    size_t la, lb;
    if (m->type == J_STR) {
      const char *sp = memchr(m->s, ' ', m->n);
      if (!sp || memchr(sp + 1, ' ', m->n - (size_t)(sp + 1 - m->s)))
        return tok_fail("tokenizer.json: merge %zu is not 'a b'", r);
      a = m->s;
      la = (size_t)(sp - m->s);
      b = sp + 1;
      lb = m->n - la - 1;
    } else if (m->type == J_ARR && m->n == 2 && m->kid[0].type == J_STR && m->kid[1].type == J_STR) {
      a = m->kid[0].s;
      la = m->kid[0].n;
      b = m->kid[1].s;
      lb = m->kid[1].n;
    } else {
      return tok_fail("tokenizer.json: merge %zu is not a pair", r);
    }
    uint8_t pa[TOK_MAX_PIECE], pb[TOK_MAX_PIECE];
    long na = unmap(a, la, pa, sizeof pa), nb = unmap(b, lb, pb, sizeof pb);
    if (na <= 0 || nb <= 0 || (size_t)(na + nb) > sizeof piece)
      return tok_fail("tokenizer.json: merge %zu has a token that is not byte-level text", r);
    memcpy(piece, pa, (size_t)na);
    memcpy(piece + na, pb, (size_t)nb);
    int32_t ia = tok_map_get(t, &t->vocab, pa, (size_t)na), ib = tok_map_get(t, &t->vocab, pb, (size_t)nb),
            im = tok_map_get(t, &t->vocab, piece, (size_t)(na + nb));
    if (ia < 0 || ib < 0 || im < 0)
      return tok_fail("tokenizer.json: merge %zu uses tokens not in the vocabulary", r);
    K_TRY(tok_pairs_put(&t->merges, ia, ib, (int32_t)r, im));
  }
  return PTE_OK;
}

pte_status tok_load_hf_json(const uint8_t *buf, size_t n, pte_llm_tokenizer **out) {
  jv root;
  char err[160];
  if (!json_parse(buf, n, &root, err, sizeof err)) return tok_fail("tokenizer.json: %s", err);
  pte_llm_tokenizer *t = tok_new(PTE_LLM_TOKENIZER_HF_JSON, TOK_BYTELEVEL);
  pte_status st = t ? load(t, &root) : tok_fail("out of memory");
  json_free(&root);
  if (st) {
    pte_llm_tokenizer_free(t);
    return st;
  }
  *out = t;
  return PTE_OK;
}
