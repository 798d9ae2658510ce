/* Internal to libpterun_llm: the tokenizer's tables and the pieces the three
 * file formats share (UTF-8, the split patterns, byte-level BPE, hash maps). */
#ifndef PTERUN_LLM_TOK_INTERNAL_H
#define PTERUN_LLM_TOK_INTERNAL_H

#include <pterun/llm.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hostile files: bounds that no real tokenizer comes near. */
#define TOK_MAX_TOKENS (1 << 22)
#define TOK_MAX_PIECE 4096

enum { TOK_BYTELEVEL = 1, TOK_SPM_BPE = 2, TOK_SPM_UNIGRAM = 3 };
enum { PRETOK_NONE = 0, PRETOK_GPT2 = 1, PRETOK_LLAMA3 = 2, PRETOK_QWEN2 = 3 };
/* Per-id attributes. */
enum {
  TA_PRESENT = 1,   /* the id has a piece */
  TA_ADDED = 2,     /* matched in text as itself (HF added, tiktoken special, SPM user-defined) */
  TA_SPECIAL = 4,   /* a special token (HF special, tiktoken special) */
  TA_CONTROL = 8,   /* SPM control: decodes to nothing */
  TA_UNK = 16,      /* SPM unknown */
  TA_BYTE = 32,     /* SPM byte piece <0xXX> */
  TA_UNUSED = 64,   /* SPM unused: never produced */
  TA_IN_VOCAB = 128 /* part of the model's vocabulary (BPE lookups) */
};

typedef struct tok_map { /* bytes -> id, open addressing over ids */
  int32_t *slots;
  size_t cap; /* power of two */
} tok_map;

typedef struct tok_pair_map { /* (left id, right id) -> (rank, merged id) */
  uint64_t *keys;
  int32_t *rank, *merged;
  size_t cap, n;
} tok_pair_map;

struct pte_llm_tokenizer {
  int32_t format, kind, pattern;
  int32_t n;           /* ids 0 .. n-1 */
  int32_t ncap;        /* ids allocated */
  uint32_t *off, *len; /* piece bytes of each id in pool */
  uint8_t *attr;
  uint8_t *pool;
  size_t pool_len, pool_cap;
  tok_map vocab; /* model pieces (TA_IN_VOCAB) */
  tok_map added_map;
  int32_t *added; /* ids with TA_ADDED, longest first */
  int32_t n_added;
  uint8_t added_first[32]; /* bitmap of their first bytes */
  /* byte-level BPE */
  tok_pair_map merges; /* HF merges; tiktoken ranks by bytes instead */
  bool rank_by_bytes, whole_word_first, add_prefix_space;
  int32_t byte_id[256];
  /* sentencepiece */
  float *score;
  float min_score, max_score;
  int32_t unk_id, max_piece_chars;
  bool byte_fallback, add_dummy_prefix, remove_extra_ws, escape_ws;
  int32_t spm_byte_id[256];
  int32_t bos_id, eos_id;
  /* sentencepiece: pieces as they decode (U+2581 as a space, byte pieces as
   * their byte), for pte_llm_tokenizer_piece */
  uint8_t *dpool;
  uint32_t *doff, *dlen;
};

/* ---- construction (tokenizer.c) ---- */
pte_llm_tokenizer *tok_new(int32_t format, int32_t kind);
/* Set id's piece (copied); fails on duplicates within the same map, ids out of range. */
pte_status tok_set_piece(pte_llm_tokenizer *t, int32_t id, const void *bytes, size_t n, uint8_t attr);
/* Room for ids 0 .. n-1. */
pte_status tok_reserve(pte_llm_tokenizer *t, int32_t n);
/* After every piece is set: maps, added-token order, byte ids. */
pte_status tok_finish(pte_llm_tokenizer *t);
int32_t tok_map_get(const pte_llm_tokenizer *t, const tok_map *m, const void *bytes, size_t n);
pte_status tok_pairs_put(tok_pair_map *m, int32_t a, int32_t b, int32_t rank, int32_t merged);
bool tok_pairs_get(const tok_pair_map *m, int32_t a, int32_t b, int32_t *rank, int32_t *merged);
pte_status tok_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define K_TRY(expr)            \
  do {                         \
    pte_status k_st_ = (expr); \
    if (k_st_) return k_st_;   \
  } while (0)

/* ---- growable id list ---- */
pte_status tok_ids_push(pte_llm_ids *ids, int32_t id);

/* ---- UTF-8 (utf8.c) ---- */
/* Length of the valid UTF-8 sequence at s (1..4), or 0 when s[0..] starts
 * an invalid one; *cp receives the code point. `sub` receives the length
 * of the maximal invalid subpart (what one U+FFFD replaces) when invalid. */
int utf8_next(const uint8_t *s, size_t n, uint32_t *cp, size_t *sub);
/* Copy of s with each maximal invalid subpart replaced by U+FFFD (malloc'd). */
uint8_t *utf8_sanitize(const uint8_t *s, size_t n, size_t *out_n);
size_t utf8_put(uint32_t cp, uint8_t *out);
bool uni_is_letter(uint32_t cp);
bool uni_is_number(uint32_t cp);
bool uni_is_space(uint32_t cp);

/* ---- split patterns (pretok.c) over valid UTF-8: length of the piece at s ---- */
size_t pretok_next(int32_t pattern, const uint8_t *s, size_t n);

/* ---- byte-level BPE of one piece (bpe.c) ---- */
pte_status bpe_encode_piece(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out);

/* ---- sentencepiece models (spm.c) ---- */
pte_status spm_encode_text(const pte_llm_tokenizer *t, const uint8_t *s, size_t n, pte_llm_ids *out);

/* ---- loaders ---- */
pte_status tok_load_hf_json(const uint8_t *buf, size_t n, pte_llm_tokenizer **out);
pte_status tok_load_tiktoken(const uint8_t *buf, size_t n, pte_llm_tokenizer **out);
pte_status tok_load_spm(const uint8_t *buf, size_t n, pte_llm_tokenizer **out);

#endif
