/* tiktoken files: one "<base64 bytes> <rank>" line per token, the rank
 * being both the token id and its merge priority. The file carries neither
 * the split pattern nor special tokens: the pattern is Llama-3's (tiktoken's
 * cl100k), specials come from pte_llm_tokenizer_add_special. */
#include <stdlib.h>
#include <string.h>

#include "tok_internal.h"

static int b64(uint8_t c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Strict base64 (padding optional); -1 when malformed. */
static long b64_decode(const uint8_t *s, size_t n, uint8_t *out, size_t cap) {
  while (n && s[n - 1] == '=') n--;
  if (n % 4 == 1) return -1;
  size_t o = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; i++) {
    int v = b64(s[i]);
    if (v < 0) return -1;
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (o >= cap) return -1;
      out[o++] = (uint8_t)(acc >> bits);
    }
  }
  return (long)o;
}

pte_status tok_load_tiktoken(const uint8_t *buf, size_t n, pte_llm_tokenizer **out) {
  pte_llm_tokenizer *t = tok_new(PTE_LLM_TOKENIZER_TIKTOKEN, TOK_BYTELEVEL);
  if (!t) return tok_fail("out of memory");
  t->pattern = PRETOK_LLAMA3;
  t->rank_by_bytes = t->whole_word_first = true;
  pte_status st = PTE_OK;
  size_t line = 0;
  uint8_t piece[TOK_MAX_PIECE];
  for (size_t i = 0; i < n && !st;) {
    size_t e = i;
    while (e < n && buf[e] != '\n') e++;
    line++;
    size_t le = e;
    if (le > i && buf[le - 1] == '\r') le--;
    if (le > i) {
      size_t sp = i;
      while (sp < le && buf[sp] != ' ') sp++;
      if (sp == le || sp == i) {
        st = tok_fail("tiktoken line %zu: expected '<base64> <rank>'", line);
        break;
      }
      long len = b64_decode(buf + i, sp - i, piece, sizeof piece);
      if (len <= 0) {
        st = tok_fail("tiktoken line %zu: bad base64 token (or longer than %d bytes)", line, TOK_MAX_PIECE);
        break;
      }
      int64_t rank = 0;
      size_t j = sp + 1;
      if (j >= le) st = tok_fail("tiktoken line %zu: missing rank", line);
      for (; j < le && !st; j++) {
        if (buf[j] < '0' || buf[j] > '9' || rank > TOK_MAX_TOKENS)
          st = tok_fail("tiktoken line %zu: bad rank (a number below %d)", line, TOK_MAX_TOKENS);
        else rank = rank * 10 + (buf[j] - '0');
      }
      if (!st && rank >= TOK_MAX_TOKENS) st = tok_fail("tiktoken line %zu: rank too large", line);
      if (!st) st = tok_set_piece(t, (int32_t)rank, piece, (size_t)len, TA_IN_VOCAB);
    }
    i = e + 1;
  }
  if (!st && t->n == 0) st = tok_fail("tiktoken file has no tokens");
  if (!st) st = tok_finish(t);
  if (st) {
    pte_llm_tokenizer_free(t);
    return st;
  }
  *out = t;
  return PTE_OK;
}
