/* libFuzzer targets for the tokenizers (libpterun_llm), one per file format
 * (FUZZ_FORMAT: 1 tokenizer.json, 2 tiktoken, 3 sentencepiece) and one for
 * text (FUZZ_FORMAT 0: the input encoded by the committed test tokenizers).
 * A file that loads is then used: a fixed text and the input itself are
 * encoded, the ids decoded in a stream whose chunks must be complete UTF-8.
 * For byte-level BPE, decoding what was encoded must give the text back
 * (with U+FFFD for invalid UTF-8). */
#include <pterun/llm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must be defined"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool valid_utf8(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    int need = c < 0x80                 ? 0
               : c >= 0xC2 && c <= 0xDF ? 1
               : c >= 0xE0 && c <= 0xEF ? 2
               : c >= 0xF0 && c <= 0xF4 ? 3
                                        : -1;
    if (need < 0 || (size_t)need >= n - i) return need == 0 && i < n;
    uint8_t lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    for (int k = 1; k <= need; k++) {
      if (s[i + k] < lo || s[i + k] > hi) return false;
      lo = 0x80;
      hi = 0xBF;
    }
    i += (size_t)need + 1;
  }
  return true;
}

/* Encode, decode streamed; the decoded text (malloc'd) in *out. */
static void roundtrip(const pte_llm_tokenizer *tok, const uint8_t *text, size_t n, char **out,
                      size_t *out_n) {
  pte_llm_ids ids = {0};
  *out = NULL;
  *out_n = 0;
  if (pte_llm_tokenizer_encode(tok, (const char *)text, n, &ids) != PTE_OK) return;
  pte_llm_decoder d;
  pte_llm_decoder_init(&d, tok);
  size_t cap = 64, len = 0;
  char *acc = malloc(cap);
  for (size_t i = 0; i <= ids.n && acc; i++) {
    const char *chunk;
    size_t cn;
    pte_status st = i < ids.n ? pte_llm_decoder_push(&d, ids.ids[i], &chunk, &cn)
                              : pte_llm_decoder_flush(&d, &chunk, &cn);
    if (st) abort(); /* ids from encode must decode */
    if (!valid_utf8((const uint8_t *)chunk, cn)) abort();
    if (len + cn > cap) {
      while (len + cn > cap) cap *= 2;
      char *na = realloc(acc, cap);
      if (!na) break;
      acc = na;
    }
    memcpy(acc + len, chunk, cn);
    len += cn;
  }
  pte_llm_decoder_free(&d);
  pte_llm_ids_free(&ids);
  *out = acc;
  *out_n = len;
}

#if FUZZ_FORMAT == 0
static pte_llm_tokenizer *g_toks[5];
static int g_ntoks = -1;

/* The Python "replace" decoding of s, to compare byte-level round trips. */
static char *sanitized(const uint8_t *s, size_t n, size_t *out_n) {
  pte_llm_tokenizer *t = g_toks[0];
  (void)t;
  char *o = malloc(n * 3 + 1);
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    size_t m = 1;
    while (m <= 4 && i + m <= n && !valid_utf8(s + i, m)) m++;
    if (m <= 4 && i + m <= n) {
      memcpy(o + k, s + i, m);
      k += m;
      i += m;
      continue;
    }
    /* maximal invalid subpart: the longest prefix that could still start a character */
    size_t sub = 1;
    uint8_t c = s[i];
    int need = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
    uint8_t lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80, hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    for (int j = 1; j <= need && i + (size_t)j < n && s[i + j] >= lo && s[i + j] <= hi; j++) {
      sub++;
      lo = 0x80;
      hi = 0xBF;
    }
    memcpy(o + k, "\xef\xbf\xbd", 3);
    k += 3;
    i += sub;
  }
  *out_n = k;
  return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (g_ntoks < 0) {
    static const char *const kFiles[] = {"gpt2_bpe.json", "llama3_bpe.json", "llama3.tiktoken",
                                         "spm_bpe.model", "spm_unigram.model"};
    g_ntoks = 0;
    for (int i = 0; i < 5; i++) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", FUZZ_TOKENIZER_DATA, kFiles[i]);
      if (pte_llm_tokenizer_load_file(path, &g_toks[g_ntoks]) != PTE_OK) {
        fprintf(stderr, "%s\n", pte_last_error());
        abort();
      }
      g_ntoks++;
    }
  }
  size_t sn;
  char *want = sanitized(data, size, &sn);
  for (int i = 0; i < g_ntoks; i++) {
    char *got;
    size_t gn;
    roundtrip(g_toks[i], data, size, &got, &gn);
    /* byte-level BPE (the first three) loses nothing */
    if (i < 3 && (gn != sn || memcmp(got, want, sn))) abort();
    free(got);
  }
  free(want);
  return 0;
}
#else
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pte_llm_tokenizer *tok = NULL;
  if (pte_llm_tokenizer_load_buffer(data, size, (pte_llm_tokenizer_format)FUZZ_FORMAT, &tok) != PTE_OK) {
    if (tok || !pte_last_error()[0]) abort(); /* a failure always says why */
    return 0;
  }
  static const char kText[] =
      "Hello, world! It's 2026. caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80 <|eot_id|>\n\n  x\xff";
  char *out;
  size_t n;
  roundtrip(tok, (const uint8_t *)kText, sizeof kText - 1, &out, &n);
  free(out);
  roundtrip(tok, data, size < 512 ? size : 512, &out, &n);
  free(out);
  /* every id decodes or fails cleanly */
  pte_llm_decoder d;
  pte_llm_decoder_init(&d, tok);
  for (int32_t id = -1; id <= pte_llm_tokenizer_vocab_size(tok) && id < 5000; id++) {
    const char *chunk;
    size_t cn;
    if (pte_llm_decoder_push(&d, id, &chunk, &cn) == PTE_OK && !valid_utf8((const uint8_t *)chunk, cn))
      abort();
  }
  pte_llm_decoder_free(&d);
  (void)pte_llm_tokenizer_find(tok, "<|eot_id|>");
  pte_llm_tokenizer_free(tok);
  return 0;
}
#endif
