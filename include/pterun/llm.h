/*
 * pterun LLM extension (libpterun_llm): what running a language model needs
 * beyond the ATen kernels.
 *
 * The custom operators that ExecuTorch's LLM exporters emit (the `llama::`
 * namespace), float32, tiled and parallel on the process thread pool:
 *   llama::custom_sdpa.out        attention of a query block over a KV cache
 *                                 laid out [batch, max_seq, kv_heads, head_dim],
 *                                 from start_pos, causal or with a mask,
 *                                 grouped-query (heads a multiple of kv_heads)
 *   llama::sdpa_with_kv_cache.out the same after writing k and v into the caches
 *   llama::update_cache.out       cache[:, start_pos : start_pos + seq] = value
 *   llama::update_cache_with_indices.out  cache[b, indices[b, s]] = value[b, s]
 *
 * Linking the shared library registers them (library name "llm"); a static
 * build calls pte_llm_register() once.
 *
 * Tokenizers (pte_llm_tokenizer_*): Hugging Face tokenizer.json (BPE with
 * the byte-level pre-tokenizer and decoder, GPT-2 and Llama-3 split
 * patterns, added tokens), tiktoken files (Llama-3 split pattern; the file
 * has no special tokens: the runner adds Llama-3's, a caller may add its own) and sentencepiece .model files
 * (BPE and unigram, identity normalization). Text is bytes: invalid UTF-8 is read as U+FFFD per maximal
 * invalid subpart, as Python's "replace" does.
 */
#ifndef PTERUN_LLM_H
#define PTERUN_LLM_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register the LLM custom operators (priority PTE_PRIORITY_PORTABLE). Idempotent. */
PTE_API pte_status pte_llm_register(void);

/* Number of operators this library provides. */
PTE_API int32_t pte_llm_count(void);

/* ---- tokenizers ---- */

typedef struct pte_llm_tokenizer pte_llm_tokenizer;

typedef enum pte_llm_tokenizer_format {
  PTE_LLM_TOKENIZER_AUTO = 0, /* from the content: JSON, tiktoken lines, else protobuf */
  PTE_LLM_TOKENIZER_HF_JSON = 1,
  PTE_LLM_TOKENIZER_TIKTOKEN = 2,
  PTE_LLM_TOKENIZER_SENTENCEPIECE = 3
} pte_llm_tokenizer_format;

/* A growable list of token ids (zero-initialize; pte_llm_ids_free). */
typedef struct pte_llm_ids {
  int32_t *ids;
  size_t n, cap;
} pte_llm_ids;
PTE_API void pte_llm_ids_free(pte_llm_ids *ids);

/* Load a tokenizer; a malformed or hostile file fails with a message
 * (pte_last_error) naming what is wrong. */
PTE_API pte_status pte_llm_tokenizer_load_file(const char *path, pte_llm_tokenizer **out);
PTE_API pte_status pte_llm_tokenizer_load_buffer(const void *data, size_t size,
                                                 pte_llm_tokenizer_format format, pte_llm_tokenizer **out);
PTE_API void pte_llm_tokenizer_free(pte_llm_tokenizer *tok);
PTE_API pte_llm_tokenizer_format pte_llm_tokenizer_get_format(const pte_llm_tokenizer *tok);
/* Ids are 0 .. vocab_size - 1 (some may be unused). */
PTE_API int32_t pte_llm_tokenizer_vocab_size(const pte_llm_tokenizer *tok);
/* Add a special token (matched in text, decoded as its text); for tiktoken
 * files, which do not carry them. */
PTE_API pte_status pte_llm_tokenizer_add_special(pte_llm_tokenizer *tok, const char *text, int32_t id);
/* Add Llama-3's 256 special tokens after the last id, as Meta's and
 * ExecuTorch's Llama-3 tokenizers do for a tiktoken file: <|begin_of_text|>
 * (then the BOS id), <|end_of_text|> (the EOS id), ..., <|eot_id|>,
 * <|python_tag|>, <|image|>, then <|reserved_special_token_N|> up to 256.
 * Refused when one of them is already present. */
PTE_API pte_status pte_llm_tokenizer_add_llama3_specials(pte_llm_tokenizer *tok);
/* The id of a token given its text (special tokens included), or -1. */
PTE_API int32_t pte_llm_tokenizer_find(const pte_llm_tokenizer *tok, const char *text);
/* BOS/EOS ids the file declares (sentencepiece), or -1. */
PTE_API int32_t pte_llm_tokenizer_bos(const pte_llm_tokenizer *tok);
PTE_API int32_t pte_llm_tokenizer_eos(const pte_llm_tokenizer *tok);

/* Append the ids of text[0 .. len) to out. Special and added tokens in the
 * text are matched as themselves. */
PTE_API pte_status pte_llm_tokenizer_encode(const pte_llm_tokenizer *tok, const char *text, size_t len,
                                            pte_llm_ids *out);
/* The bytes id decodes to on its own (sentencepiece: '\xe2\x96\x81' as a
 * space, byte pieces as their byte); NULL for an unknown id. */
PTE_API const char *pte_llm_tokenizer_piece(const pte_llm_tokenizer *tok, int32_t id, size_t *len);

/* Streamed decoding: push ids one at a time, get text that is always
 * complete UTF-8 (a character split across tokens waits for its last
 * byte; invalid bytes become U+FFFD). */
typedef struct pte_llm_decoder {
  const pte_llm_tokenizer *tok;
  uint8_t pending[4];
  int32_t npending;
  int32_t emitted; /* tokens that produced text so far */
  char *buf;
  size_t cap;
} pte_llm_decoder;
PTE_API void pte_llm_decoder_init(pte_llm_decoder *d, const pte_llm_tokenizer *tok);
/* Text for id (valid until the next call; *len may be 0); unknown ids fail. */
PTE_API pte_status pte_llm_decoder_push(pte_llm_decoder *d, int32_t id, const char **text, size_t *len);
/* What is still pending at the end (an incomplete character: U+FFFD). */
PTE_API pte_status pte_llm_decoder_flush(pte_llm_decoder *d, const char **text, size_t *len);
PTE_API void pte_llm_decoder_free(pte_llm_decoder *d);

/* ---- the text-generation runner ---- */

/* What the program's metadata methods say (ExecuTorch's names:
 * get_max_seq_len, get_max_context_len, get_vocab_size, get_bos_id,
 * get_eos_ids / get_eos_id, use_kv_cache, enable_dynamic_shape), and what
 * the runner made of "forward". -1 when absent. */
typedef struct pte_llm_metadata {
  int64_t max_seq_len, max_context_len, vocab_size, bos_id;
  int64_t eos_ids[8];
  int32_t n_eos;
  int32_t use_kv_cache, enable_dynamic_shape; /* 0, 1 or -1 */
  int64_t max_prefill; /* tokens per forward call: > 1 when the prompt goes in one call */
} pte_llm_metadata;

typedef struct pte_llm_config {
  int32_t max_new_tokens;   /* default 64 (0: up to the sequence length) */
  float temperature;        /* <= 0: greedy */
  int32_t top_k;            /* 0: off */
  float top_p;              /* 1: off */
  float repetition_penalty; /* 1: off */
  uint64_t seed;
  bool echo; /* also print the prompt */
} pte_llm_config;
#define PTE_LLM_CONFIG_INIT \
  { 64, 0.0f, 0, 1.0f, 1.0f, 0, false }

typedef struct pte_llm_stats {
  int64_t prompt_tokens, generated_tokens, prefill_calls;
  double load_ms, prefill_ms, ttft_ms, decode_ms;
  double prompt_tokens_per_s, generated_tokens_per_s;
  int64_t peak_rss_bytes; /* the process's peak resident memory */
  bool stopped_at_eos;
} pte_llm_stats;

typedef struct pte_llm_runner pte_llm_runner;
/* Text as it is generated (complete UTF-8). */
typedef void (*pte_llm_text_fn)(void *user, const char *text, size_t len);

/* Load a program (and .ptd, may be NULL) and a tokenizer file. */
PTE_API pte_status pte_llm_runner_create(const char *model_path, const char *data_path,
                                         const char *tokenizer_path, pte_llm_runner **out);
PTE_API void pte_llm_runner_free(pte_llm_runner *r);
PTE_API const pte_llm_metadata *pte_llm_runner_metadata(const pte_llm_runner *r);
PTE_API const pte_llm_tokenizer *pte_llm_runner_tokenizer(const pte_llm_runner *r);
/* Generate from the prompt, continuing after what was generated before
 * unless reset; `on_text` may be NULL. `tokens` (may be NULL) receives the
 * generated ids. */
PTE_API pte_status pte_llm_runner_generate(pte_llm_runner *r, const char *prompt,
                                           const pte_llm_config *config, pte_llm_text_fn on_text, void *user,
                                           pte_llm_ids *tokens, pte_llm_stats *stats);
/* At most n tokens per forward call (1: token by token, as for programs
 * without a dynamic length); 0 restores what the program allows. */
PTE_API void pte_llm_runner_set_max_prefill(pte_llm_runner *r, int64_t n);
/* Ask a running generate to stop after the current token (from its text
 * callback or another thread). */
PTE_API void pte_llm_runner_stop(pte_llm_runner *r);
/* Start over at position 0 (the KV cache is rewritten as positions refill). */
PTE_API void pte_llm_runner_reset(pte_llm_runner *r);
/* Next token from logits[0 .. n) with config's sampling; `history` (the
 * ids so far) for the repetition penalty; `rng` the sampler's state. */
PTE_API int32_t pte_llm_sample(const float *logits, int64_t n, const pte_llm_config *config,
                               const int32_t *history, size_t nhistory, uint64_t *rng);

#ifdef __cplusplus
}
#endif

#endif
