#define _POSIX_C_SOURCE 200809L /* clock_gettime */
/* The text-generation runner over a .pte: the metadata methods, "forward"
 * as ExecuTorch's LLM exporters write it (tokens [1, S] int64, then the
 * positions: [S] cache_position from transformers, or [1] input_pos from
 * ExecuTorch's llama export; logits [1, S, V] or [1, V]), prefill in as few
 * calls as the program's bounds allow, decoding, sampling and the stats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../tokenizers/tok_internal.h"

struct pte_llm_runner {
  pte_data_map *map;
  pte_program *prog;
  pte_method *fwd;
  pte_llm_tokenizer *tok;
  pte_llm_metadata meta;
  int32_t n_inputs;
  bool pos_per_token; /* positions input is [S] (else [1]: the start) */
  int64_t pos;        /* next position */
  pte_llm_ids history;
  double load_ms;
  int64_t prefill_limit; /* 0: the program's bound */
  uint64_t rng;
  bool seeded;
  volatile int stop; /* pte_llm_runner_stop */
  int64_t *io;       /* tokens then positions of a forward call, reused */
  int64_t io_cap;    /* tokens io holds */
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static bool has_method(const pte_program *p, const char *name) {
  for (int32_t i = 0; i < pte_program_method_count(p); i++)
    if (!strcmp(pte_program_method_name(p, i), name)) return true;
  return false;
}

/* Run a metadata method: its first output as integers (up to max). */
static int32_t read_meta(pte_program *p, const char *name, int64_t *out, int32_t max) {
  if (!has_method(p, name)) return 0;
  pte_method *m = NULL;
  int32_t n = 0;
  if (pte_method_load(p, name, NULL, &m) == PTE_OK && pte_method_num_inputs(m) == 0 &&
      pte_method_execute(m) == PTE_OK && pte_method_num_outputs(m) > 0) {
    const pte_value *v = pte_method_output(m, 0);
    if (v->tag == PTE_TAG_INT || v->tag == PTE_TAG_BOOL) {
      out[n++] = v->tag == PTE_TAG_INT ? v->u.i : v->u.b;
    } else if (v->tag == PTE_TAG_INT_LIST) {
      for (int32_t i = 0; i < v->len && n < max; i++) out[n++] = v->u.items[i]->u.i;
    } else if (v->tag == PTE_TAG_TENSOR && v->u.tensor->data) {
      const pte_tensor *t = v->u.tensor;
      for (int64_t i = 0; i < pte_tensor_numel(t) && n < max; i++)
        out[n++] = t->dtype == PTE_INT64   ? ((const int64_t *)t->data)[i]
                   : t->dtype == PTE_INT32 ? ((const int32_t *)t->data)[i]
                   : t->dtype == PTE_BOOL  ? ((const uint8_t *)t->data)[i]
                                           : 0;
    }
    for (int32_t i = 1; i < pte_method_num_outputs(m) && n < max; i++) {
      const pte_value *w = pte_method_output(m, i);
      if (w->tag == PTE_TAG_INT) out[n++] = w->u.i;
    }
  }
  pte_method_free(m);
  return n;
}

static int64_t meta1(pte_program *p, const char *name) {
  int64_t v = -1;
  return read_meta(p, name, &v, 1) == 1 ? v : -1;
}

static pte_status setup(pte_llm_runner *r) {
  pte_llm_metadata *md = &r->meta;
  md->max_seq_len = meta1(r->prog, "get_max_seq_len");
  md->max_context_len = meta1(r->prog, "get_max_context_len");
  md->vocab_size = meta1(r->prog, "get_vocab_size");
  md->bos_id = meta1(r->prog, "get_bos_id");
  md->use_kv_cache = (int32_t)meta1(r->prog, "use_kv_cache");
  md->enable_dynamic_shape = (int32_t)meta1(r->prog, "enable_dynamic_shape");
  md->n_eos = read_meta(r->prog, "get_eos_ids", md->eos_ids, 8);
  if (md->n_eos == 0) md->n_eos = read_meta(r->prog, "get_eos_id", md->eos_ids, 8);
  if (md->n_eos == 0 && pte_llm_tokenizer_eos(r->tok) >= 0)
    md->eos_ids[md->n_eos++] = pte_llm_tokenizer_eos(r->tok);
  if (md->bos_id < 0) md->bos_id = pte_llm_tokenizer_bos(r->tok);
  if (!has_method(r->prog, "forward")) return tok_fail("the program has no forward method");
  pte_io_info in0, in1;
  pte_method_info mi;
  K_TRY(pte_program_method_info(r->prog, "forward", &mi));
  r->n_inputs = mi.num_inputs;
  if (mi.num_inputs < 1 || mi.num_inputs > 2)
    return tok_fail("forward takes %d inputs: expected tokens, and positions with a KV cache",
                    (int)mi.num_inputs);
  K_TRY(pte_program_method_input(r->prog, "forward", 0, &in0));
  if (in0.tag != PTE_TAG_TENSOR || in0.dtype != PTE_INT64 || in0.dim != 2 || in0.sizes[0] != 1)
    return tok_fail("forward's first input must be int64 tokens [1, S]");
  md->max_prefill = in0.sizes[1];
  if (in0.dynamism == PTE_SHAPE_STATIC && in0.sizes[1] != 1)
    return tok_fail("forward takes a fixed %lld tokens per call: only 1 (or a dynamic length) is supported",
                    (long long)in0.sizes[1]);
  if (mi.num_inputs == 2) {
    K_TRY(pte_program_method_input(r->prog, "forward", 1, &in1));
    if (in1.tag != PTE_TAG_TENSOR || in1.dtype != PTE_INT64 || in1.dim != 1)
      return tok_fail("forward's second input must be int64 positions");
    r->pos_per_token = in1.sizes[0] > 1 || in1.dynamism != PTE_SHAPE_STATIC;
  }
  if (md->max_seq_len <= 0) md->max_seq_len = md->max_context_len > 0 ? md->max_context_len : 1 << 20;
  /* the history holds at most a sequence: sized once, decode steps do not grow it */
  if (md->max_seq_len < (1 << 20)) {
    int32_t *h = malloc((size_t)md->max_seq_len * sizeof *h);
    if (!h) return tok_fail("out of memory");
    r->history.ids = h, r->history.cap = (size_t)md->max_seq_len, r->history.n = 0;
  }
  return pte_method_load(r->prog, "forward", NULL, &r->fwd);
}

pte_status pte_llm_runner_create(const char *model_path, const char *data_path, const char *tokenizer_path,
                                 pte_llm_runner **out) {
  if (!out || !model_path || !tokenizer_path) return tok_fail("runner: null argument");
  *out = NULL;
  double t0 = now_ms();
  pte_llm_runner *r = calloc(1, sizeof *r);
  if (!r) return tok_fail("out of memory");
  pte_status st = pte_llm_tokenizer_load_file(tokenizer_path, &r->tok);
  /* A tiktoken file carries no specials; the runner reads it as Llama-3's
   * (its split pattern), so it gets Llama-3's, as ExecuTorch's runner does. */
  if (!st && pte_llm_tokenizer_get_format(r->tok) == PTE_LLM_TOKENIZER_TIKTOKEN)
    st = pte_llm_tokenizer_add_llama3_specials(r->tok);
  if (!st && data_path) st = pte_data_map_load_file(data_path, NULL, &r->map);
  if (!st) {
    pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
    po.data_maps = &r->map;
    po.num_data_maps = r->map ? 1 : 0;
    st = pte_program_load_file(model_path, &po, &r->prog);
  }
  if (!st) st = setup(r);
  if (st) {
    pte_llm_runner_free(r);
    return st;
  }
  r->load_ms = now_ms() - t0;
  *out = r;
  return PTE_OK;
}

void pte_llm_runner_free(pte_llm_runner *r) {
  if (!r) return;
  pte_method_free(r->fwd);
  pte_program_free(r->prog);
  pte_data_map_free(r->map);
  pte_llm_tokenizer_free(r->tok);
  pte_llm_ids_free(&r->history);
  free(r->io);
  free(r);
}

const pte_llm_metadata *pte_llm_runner_metadata(const pte_llm_runner *r) { return &r->meta; }
const pte_llm_tokenizer *pte_llm_runner_tokenizer(const pte_llm_runner *r) { return r->tok; }

void pte_llm_runner_stop(pte_llm_runner *r) { r->stop = 1; }

void pte_llm_runner_set_max_prefill(pte_llm_runner *r, int64_t n) { r->prefill_limit = n > 0 ? n : 0; }

void pte_llm_runner_reset(pte_llm_runner *r) {
  r->pos = 0;
  r->history.n = 0;
}

/* One forward call over ids[0 .. n) at r->pos; *logits: the last row. */
static pte_status step(pte_llm_runner *r, const int32_t *ids, int64_t n, const float **logits,
                       int64_t *vocab) {
  if (n > r->io_cap) { /* grows for a longer prompt only: a decode step allocates nothing */
    int64_t *io = realloc(r->io, (size_t)n * 2 * sizeof(int64_t));
    if (!io) return tok_fail("out of memory");
    r->io = io, r->io_cap = n;
  }
  int64_t *tok = r->io, *pos = tok + n;
  for (int64_t i = 0; i < n; i++) {
    tok[i] = ids[i];
    pos[i] = r->pos + i;
  }
  pte_tensor tt, tp;
  int64_t s0[2] = {1, n}, s1[1] = {r->pos_per_token ? n : 1};
  pte_tensor_init(&tt, PTE_INT64, 2, s0, tok);
  pte_tensor_init(&tp, PTE_INT64, 1, s1, pos);
  pte_status st = pte_method_set_input_tensor(r->fwd, 0, &tt);
  if (!st && r->n_inputs == 2) st = pte_method_set_input_tensor(r->fwd, 1, &tp);
  if (!st) st = pte_method_execute(r->fwd);
  if (st) return st;
  const pte_value *v = pte_method_output(r->fwd, 0);
  if (v->tag != PTE_TAG_TENSOR || v->u.tensor->dtype != PTE_FLOAT32 || v->u.tensor->dim < 2)
    return tok_fail("forward's first output must be float32 logits");
  const pte_tensor *t = v->u.tensor;
  int64_t V = t->sizes[t->dim - 1], rows = pte_tensor_numel(t) / (V ? V : 1);
  if (V <= 0 || rows <= 0) return tok_fail("forward returned empty logits");
  *vocab = V;
  *logits = (const float *)t->data + (rows - 1) * V;
  r->pos += n;
  return PTE_OK;
}

static bool is_eos(const pte_llm_runner *r, int32_t id) {
  for (int32_t i = 0; i < r->meta.n_eos; i++)
    if (r->meta.eos_ids[i] == id) return true;
  return false;
}

pte_status pte_llm_runner_generate(pte_llm_runner *r, const char *prompt, const pte_llm_config *config,
                                   pte_llm_text_fn on_text, void *user, pte_llm_ids *tokens,
                                   pte_llm_stats *stats) {
  static const pte_llm_config kDefault = PTE_LLM_CONFIG_INIT;
  const pte_llm_config *c = config ? config : &kDefault;
  pte_llm_stats s = {0};
  s.load_ms = r->load_ms;
  r->stop = 0;
  if (!r->seeded || c->seed) {
    r->rng = c->seed;
    r->seeded = true;
  }
  pte_llm_ids ids = {0};
  pte_status st = PTE_OK;
  /* a new conversation starts with BOS (unless the prompt has it) */
  if (r->pos == 0 && r->meta.bos_id >= 0) st = tok_ids_push(&ids, (int32_t)r->meta.bos_id);
  if (!st && prompt) st = pte_llm_tokenizer_encode(r->tok, prompt, strlen(prompt), &ids);
  /* a prompt that starts with the BOS text keeps a single BOS */
  if (!st && ids.n > 1 && r->pos == 0 && r->meta.bos_id >= 0 && ids.ids[1] == ids.ids[0]) {
    memmove(ids.ids + 1, ids.ids + 2, (ids.n - 2) * sizeof(int32_t));
    ids.n--;
  }
  if (st) goto done;
  if (ids.n == 0) {
    st = tok_fail("the prompt encodes to no tokens");
    goto done;
  }
  if (r->pos + (int64_t)ids.n >= r->meta.max_seq_len) {
    st = tok_fail("the prompt (%zu tokens from position %lld) does not fit the sequence length %lld", ids.n,
                  (long long)r->pos, (long long)r->meta.max_seq_len);
    goto done;
  }
  pte_llm_decoder d;
  pte_llm_decoder_init(&d, r->tok);
  const char *text;
  size_t len;
  if (c->echo && on_text) {
    for (size_t i = 0; i < ids.n && !st; i++) {
      st = pte_llm_decoder_push(&d, ids.ids[i], &text, &len);
      if (!st && len) on_text(user, text, len);
    }
    pte_llm_decoder_free(&d);
    pte_llm_decoder_init(&d, r->tok);
  }
  for (size_t i = 0; i < ids.n && !st; i++) st = tok_ids_push(&r->history, ids.ids[i]);
  double t0 = now_ms();
  const float *logits = NULL;
  int64_t V = 0;
  int64_t chunk = r->meta.max_prefill > 1 ? r->meta.max_prefill : 1;
  if (r->prefill_limit && r->prefill_limit < chunk) chunk = r->prefill_limit;
  for (size_t i = 0; i < ids.n && !st; i += (size_t)chunk) {
    int64_t n = (int64_t)(ids.n - i) < chunk ? (int64_t)(ids.n - i) : chunk;
    st = step(r, ids.ids + i, n, &logits, &V);
    s.prefill_calls++;
  }
  double t1 = now_ms();
  s.prompt_tokens = (int64_t)ids.n;
  s.prefill_ms = t1 - t0;
  int64_t limit = c->max_new_tokens > 0 ? c->max_new_tokens : r->meta.max_seq_len;
  double first = 0;
  while (!st && s.generated_tokens < limit) {
    int32_t next = pte_llm_sample(logits, V, c, r->history.ids, r->history.n, &r->rng);
    if (next < 0) {
      st = tok_fail("sampling failed");
      break;
    }
    if (s.generated_tokens == 0) first = now_ms();
    s.generated_tokens++;
    st = tok_ids_push(&r->history, next);
    if (!st && tokens) st = tok_ids_push(tokens, next);
    if (st) break;
    if (is_eos(r, next)) {
      s.stopped_at_eos = true;
      break;
    }
    if (pte_llm_decoder_push(&d, next, &text, &len) == PTE_OK && len && on_text) on_text(user, text, len);
    if (s.generated_tokens >= limit || r->pos >= r->meta.max_seq_len || r->stop) break;
    st = step(r, &next, 1, &logits, &V);
  }
  if (!st && pte_llm_decoder_flush(&d, &text, &len) == PTE_OK && len && on_text) on_text(user, text, len);
  pte_llm_decoder_free(&d);
  double t2 = now_ms();
  s.ttft_ms = first ? first - t0 : 0;
  s.decode_ms = first ? t2 - first : 0;
  s.prompt_tokens_per_s = s.prefill_ms > 0 ? (double)s.prompt_tokens * 1e3 / s.prefill_ms : 0;
  s.generated_tokens_per_s =
      s.decode_ms > 0 && s.generated_tokens > 1 ? (double)(s.generated_tokens - 1) * 1e3 / s.decode_ms : 0;
  struct rusage ru;
  if (!getrusage(RUSAGE_SELF, &ru)) s.peak_rss_bytes = (int64_t)ru.ru_maxrss * 1024;
done:
  pte_llm_ids_free(&ids);
  if (stats) *stats = s;
  return st;
}
