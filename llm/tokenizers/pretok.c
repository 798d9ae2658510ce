/* The two split patterns byte-level BPE tokenizers use, written out as the
 * matchers their regular expressions are (alternatives tried in order, each
 * greedy, with the backtracking the lookahead needs):
 *   GPT-2:   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *   Llama-3 (and tiktoken's cl100k):
 *            (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
 *             ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
 * Qwen2's is Llama-3's with \p{N} for \p{N}{1,3}. The input is valid UTF-8
 * (the caller sanitized it). */
#include "tok_internal.h"

typedef struct cur {
  const uint8_t *s;
  size_t n;
} cur;

/* Code point at i and its length (0 at the end). */
static size_t at(const cur *c, size_t i, uint32_t *cp) {
  if (i >= c->n) return 0;
  size_t sub;
  int k = utf8_next(c->s + i, c->n - i, cp, &sub);
  if (k <= 0) { /* not reached on sanitized text; treat a byte as a symbol */
    *cp = 0xFFFD;
    return 1;
  }
  return (size_t)k;
}

static bool is_other(uint32_t cp) { return !uni_is_space(cp) && !uni_is_letter(cp) && !uni_is_number(cp); }

/* Run of code points satisfying pred from i: end offset. */
static size_t run(const cur *c, size_t i, bool (*pred)(uint32_t)) {
  uint32_t cp;
  size_t k;
  while ((k = at(c, i, &cp)) && pred(cp)) i += k;
  return i;
}

static size_t contraction(const cur *c, bool icase) {
  static const char *const kSuffixes[] = {"s", "t", "re", "ve", "m", "ll", "d"};
  if (c->n < 2 || c->s[0] != '\'') return 0;
  for (int k = 0; k < 7; k++) {
    size_t L = kSuffixes[k][1] ? 2 : 1;
    if (c->n < 1 + L) continue;
    bool ok = true;
    for (size_t j = 0; j < L && ok; j++) {
      uint8_t ch = c->s[1 + j];
      if (icase && ch >= 'A' && ch <= 'Z') ch = (uint8_t)(ch + 32);
      ok = ch == (uint8_t)kSuffixes[k][j];
    }
    if (ok) return 1 + L;
  }
  return 0;
}

/* \s+(?!\S) then \s+ at the start (the start is whitespace). */
static size_t spaces(const cur *c) {
  size_t end = run(c, 0, uni_is_space);
  if (end >= c->n) return end;
  /* followed by a non-space: give its last whitespace character back */
  size_t last = 0, i = 0;
  uint32_t cp;
  while (i < end) {
    last = i;
    i += at(c, i, &cp);
  }
  return last > 0 ? last : end;
}

static bool is_crlf(uint32_t cp) { return cp == '\r' || cp == '\n'; }

static size_t gpt2(const cur *c) {
  size_t k = contraction(c, false);
  if (k) return k;
  uint32_t c0 = 0, c1 = 0;
  size_t k0 = at(c, 0, &c0), i = 0;
  if (c0 == ' ') {
    size_t k1 = at(c, k0, &c1);
    if (k1) {
      if (uni_is_letter(c1)) return run(c, k0, uni_is_letter);
      if (uni_is_number(c1)) return run(c, k0, uni_is_number);
      if (is_other(c1)) return run(c, k0, is_other);
    }
  }
  if (uni_is_letter(c0)) return run(c, i, uni_is_letter);
  if (uni_is_number(c0)) return run(c, i, uni_is_number);
  if (is_other(c0)) return run(c, i, is_other);
  return spaces(c);
}

static bool not_crlf_letter_number(uint32_t cp) {
  return !is_crlf(cp) && !uni_is_letter(cp) && !uni_is_number(cp);
}

static size_t llama3(const cur *c, int max_digits) {
  size_t k = contraction(c, true);
  if (k) return k;
  uint32_t c0 = 0, c1 = 0;
  size_t k0 = at(c, 0, &c0);
  /* [^\r\n\p{L}\p{N}]?\p{L}+ */
  if (uni_is_letter(c0)) return run(c, 0, uni_is_letter);
  if (not_crlf_letter_number(c0) && at(c, k0, &c1) && uni_is_letter(c1)) return run(c, k0, uni_is_letter);
  /* \p{N}{1,3} */
  if (uni_is_number(c0)) {
    size_t i = k0;
    for (int d = 1; d < max_digits; d++) {
      size_t kk = at(c, i, &c1);
      if (!kk || !uni_is_number(c1)) break;
      i += kk;
    }
    return i;
  }
  /*  ?[^\s\p{L}\p{N}]+[\r\n]* */
  size_t start = c0 == ' ' ? k0 : 0;
  if (at(c, start, &c1) && is_other(c1)) return run(c, run(c, start, is_other), is_crlf);
  /* \s*[\r\n]+ : up to the last CR/LF of the whitespace run */
  size_t end = run(c, 0, uni_is_space), i = 0, after_crlf = 0;
  while (i < end) {
    size_t kk = at(c, i, &c1);
    i += kk;
    if (is_crlf(c1)) after_crlf = i;
  }
  if (after_crlf) return after_crlf;
  return spaces(c);
}

size_t pretok_next(int32_t pattern, const uint8_t *s, size_t n) {
  if (n == 0) return 0;
  cur c = {s, n};
  size_t k = pattern == PRETOK_GPT2     ? gpt2(&c)
             : pattern == PRETOK_LLAMA3 ? llama3(&c, 3)
             : pattern == PRETOK_QWEN2  ? llama3(&c, 1)
                                        : n;
  return k ? k : 1;
}
