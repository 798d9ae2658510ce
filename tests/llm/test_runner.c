/* The text-generation runner (libpterun_llm) on zoo/llm/tiny_llama: a
 * random-weight Llama-style model exported by optimum-executorch (custom_sdpa,
 * update_cache, a dynamic prefill length), whose eager greedy tokens are in
 * expected.json. Prefill in one call and token by token, both kernel sets,
 * the state that persists across calls and its reset, sampling. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/llm.h>

#include <math.h>
#include <stdint.h>

#include "../common/test_util.h"

/* Shared builds register by linking; static ones (make test-static) here. */
static void register_all(void) {
  if (pte_kernels_portable_register() || pte_kernels_optimized_register() || pte_llm_register())
    fprintf(stderr, "register: %s\n", pte_last_error());
}

#define TINY "llm/tiny_llama/"
#define NCASES 2

typedef struct tiny_case {
  char prompt[128];
  int32_t tokens[64];
  int n;
} tiny_case;

static tiny_case g_cases[NCASES];
static int g_max_new;

/* expected.json, read with the tokenizer's own JSON? No: a few fixed keys,
 * so a small scan keeps the test independent of the library. */
static bool load_expected(void) {
  size_t n;
  char *s = read_file(zoo_path(TINY "expected.json"), &n);
  if (!s) return false;
  const char *p = strstr(s, "\"max_new_tokens\": ");
  g_max_new = p ? atoi(p + 18) : 0;
  p = s;
  for (int c = 0; c < NCASES; c++) {
    p = strstr(p, "\"prompt\": \"");
    if (!p) break;
    p += 11;
    const char *e = strchr(p, '"');
    snprintf(g_cases[c].prompt, sizeof g_cases[c].prompt, "%.*s", (int)(e - p), p);
    p = strstr(e, "\"tokens\": [");
    if (!p) break;
    p += 11;
    g_cases[c].n = 0;
    while (*p && *p != ']') {
      char *q;
      long v = strtol(p, &q, 10);
      if (q == p) {
        p++;
        continue;
      }
      g_cases[c].tokens[g_cases[c].n++] = (int32_t)v;
      p = q;
    }
  }
  free(s);
  return g_max_new > 0 && g_cases[NCASES - 1].n == g_max_new;
}

static pte_llm_runner *open_runner(void) {
  pte_llm_runner *r = NULL;
  char model[1024];
  snprintf(model, sizeof model, "%s", zoo_path(TINY "model.pte"));
  if (pte_llm_runner_create(model, NULL, zoo_path(TINY "tokenizer.json"), &r) != PTE_OK)
    fprintf(stderr, "runner: %s\n", pte_last_error());
  return r;
}

static const char *same_tokens(const pte_llm_ids *got, const tiny_case *c) {
  static char msg[512];
  if ((int)got->n == c->n && !memcmp(got->ids, c->tokens, (size_t)c->n * sizeof(int32_t))) return NULL;
  int k = snprintf(msg, sizeof msg, "got");
  for (size_t i = 0; i < got->n && k < 400; i++)
    k += snprintf(msg + k, sizeof msg - (size_t)k, " %d", got->ids[i]);
  k += snprintf(msg + k, sizeof msg - (size_t)k, ", eager");
  for (int i = 0; i < c->n && k < 500; i++)
    k += snprintf(msg + k, sizeof msg - (size_t)k, " %d", c->tokens[i]);
  return msg;
}

TEST(metadata_methods) {
  pte_llm_runner *r = open_runner();
  CHECK(r, "open");
  const pte_llm_metadata *m = pte_llm_runner_metadata(r);
  CHECK(m->max_seq_len == 48 && m->vocab_size == 320, "max_seq_len %lld vocab %lld",
        (long long)m->max_seq_len, (long long)m->vocab_size);
  CHECK(m->bos_id == 0 && m->n_eos >= 1 && m->eos_ids[0] == 1, "bos %lld eos %lld", (long long)m->bos_id,
        (long long)m->eos_ids[0]);
  CHECK(m->use_kv_cache == 1 && m->enable_dynamic_shape == 1, "kv %d dynamic %d", m->use_kv_cache,
        m->enable_dynamic_shape);
  CHECK(m->max_prefill > 1, "prefill bound %lld", (long long)m->max_prefill);
  pte_llm_runner_free(r);
}

/* Every case, prefilled with at most `prefill` tokens per call (0: all). */
static void greedy_matches_eager(int64_t prefill, bool portable_only) {
  CHECK(load_expected(), "expected.json");
  if (portable_only) CHECK_OK(pte_kernel_library_set_enabled("kernels_optimized", false));
  pte_llm_runner *r = open_runner();
  CHECK(r, "open");
  pte_llm_runner_set_max_prefill(r, prefill);
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  c.max_new_tokens = g_max_new;
  for (int i = 0; i < NCASES; i++) {
    pte_llm_ids got = {0};
    pte_llm_stats s;
    pte_llm_runner_reset(r);
    CHECK_OK(pte_llm_runner_generate(r, g_cases[i].prompt, &c, NULL, NULL, &got, &s));
    const char *diff = same_tokens(&got, &g_cases[i]);
    pte_llm_ids_free(&got);
    CHECK(!diff, "case %d (prefill %lld): %s", i, (long long)prefill, diff);
    int64_t calls = prefill ? (s.prompt_tokens + prefill - 1) / prefill : 1;
    CHECK(s.prefill_calls == calls, "%lld prefill calls, expected %lld", (long long)s.prefill_calls,
          (long long)calls);
    CHECK(s.generated_tokens == g_max_new && s.prompt_tokens > 5 && s.ttft_ms > 0 &&
              s.prompt_tokens_per_s > 0 && s.generated_tokens_per_s > 0 && s.peak_rss_bytes > 0,
          "stats");
  }
  pte_llm_runner_free(r);
  if (portable_only) CHECK_OK(pte_kernel_library_set_enabled("kernels_optimized", true));
}

TEST(prefill_in_one_call) { greedy_matches_eager(0, false); }
TEST(prefill_token_by_token) { greedy_matches_eager(1, false); }
TEST(prefill_in_chunks_of_5) { greedy_matches_eager(5, false); }
TEST(portable_kernels_alone) { greedy_matches_eager(0, true); }

TEST(state_persists_until_reset) {
  CHECK(load_expected(), "expected.json");
  pte_llm_runner *r = open_runner();
  CHECK(r, "open");
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  c.max_new_tokens = g_max_new;
  pte_llm_ids a = {0}, b = {0}, again = {0};
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, &a, NULL));
  /* without a reset the second prompt continues the first conversation
   * (the KV cache holds it): not what a fresh start gives */
  CHECK_OK(pte_llm_runner_generate(r, g_cases[1].prompt, &c, NULL, NULL, &b, NULL));
  CHECK(same_tokens(&b, &g_cases[1]) != NULL, "the second prompt ignored the first");
  pte_llm_runner_reset(r);
  CHECK_OK(pte_llm_runner_generate(r, g_cases[1].prompt, &c, NULL, NULL, &again, NULL));
  const char *diff = same_tokens(&again, &g_cases[1]);
  CHECK(!diff, "after reset: %s", diff);
  /* the sequence length bounds a conversation */
  pte_llm_ids more = {0};
  pte_status st = PTE_OK;
  for (int i = 0; i < 10 && st == PTE_OK; i++)
    st = pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, &more, NULL);
  CHECK(st != PTE_OK && strstr(pte_last_error(), "does not fit the sequence length"), "overflow: %s",
        pte_last_error());
  pte_llm_ids_free(&a);
  pte_llm_ids_free(&b);
  pte_llm_ids_free(&again);
  pte_llm_ids_free(&more);
  pte_llm_runner_free(r);
}

static void collect(void *user, const char *text, size_t len) {
  pte_llm_ids *bytes = user; /* reused as a byte counter */
  bytes->n += len;
  (void)text;
}

TEST(seeded_sampling) {
  CHECK(load_expected(), "expected.json");
  pte_llm_runner *r = open_runner();
  CHECK(r, "open");
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  c.max_new_tokens = g_max_new;
  c.temperature = 1.5f;
  c.seed = 7;
  pte_llm_ids x = {0}, y = {0}, z = {0}, k1 = {0}, text = {0};
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, collect, &text, &x, NULL));
  pte_llm_runner_reset(r);
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, &y, NULL));
  CHECK(x.n == y.n && !memcmp(x.ids, y.ids, x.n * sizeof(int32_t)), "same seed, different tokens");
  CHECK(text.n > 0, "no text streamed");
  c.seed = 8;
  pte_llm_runner_reset(r);
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, &z, NULL));
  CHECK(!(x.n == z.n && !memcmp(x.ids, z.ids, x.n * sizeof(int32_t))), "another seed, the same tokens");
  CHECK(same_tokens(&x, &g_cases[0]) != NULL, "temperature 1.5 gave the greedy tokens");
  /* top-k 1 is greedy whatever the temperature */
  c.top_k = 1;
  pte_llm_runner_reset(r);
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, &k1, NULL));
  const char *diff = same_tokens(&k1, &g_cases[0]);
  CHECK(!diff, "top-k 1: %s", diff);
  pte_llm_ids_free(&x);
  pte_llm_ids_free(&y);
  pte_llm_ids_free(&z);
  pte_llm_ids_free(&k1);
  pte_llm_runner_free(r);
}

static void stop_now(void *user, const char *text, size_t len) {
  (void)text;
  (void)len;
  pte_llm_runner_stop(user);
}

TEST(stop_from_the_callback) {
  CHECK(load_expected(), "expected.json");
  pte_llm_runner *r = open_runner();
  CHECK(r, "open");
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  c.max_new_tokens = g_max_new;
  pte_llm_stats s;
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, stop_now, r, NULL, &s));
  CHECK(s.generated_tokens >= 1 && s.generated_tokens < g_max_new, "generated %lld",
        (long long)s.generated_tokens);
  /* the next generate runs to its length again */
  pte_llm_runner_reset(r);
  CHECK_OK(pte_llm_runner_generate(r, g_cases[0].prompt, &c, NULL, NULL, NULL, &s));
  CHECK(s.generated_tokens == g_max_new, "generated %lld", (long long)s.generated_tokens);
  pte_llm_runner_free(r);
}

TEST(sampler_rules) {
  const float logits[5] = {1.0f, 3.0f, 2.9f, -1.0f, 0.5f};
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  uint64_t rng = 1;
  CHECK(pte_llm_sample(logits, 5, &c, NULL, 0, &rng) == 1, "greedy");
  /* penalty 2 on token 1: 1.5 < 2.9 */
  const int32_t hist[3] = {1, 1, 3};
  c.repetition_penalty = 2.0f;
  CHECK(pte_llm_sample(logits, 5, &c, hist, 3, &rng) == 2, "repetition penalty");
  c.repetition_penalty = 1.0f;
  /* top-k 2 draws only from {1, 2}; both appear */
  c.temperature = 1.0f;
  c.top_k = 2;
  int seen[5] = {0};
  for (int i = 0; i < 400; i++) seen[pte_llm_sample(logits, 5, &c, NULL, 0, &rng)]++;
  CHECK(seen[1] > 100 && seen[2] > 100 && seen[0] + seen[3] + seen[4] == 0, "top-k: %d %d %d %d %d", seen[0],
        seen[1], seen[2], seen[3], seen[4]);
  /* top-p 0.3: the most likely token alone holds more than that */
  c.top_k = 0;
  c.top_p = 0.3f;
  for (int i = 0; i < 50; i++) CHECK(pte_llm_sample(logits, 5, &c, NULL, 0, &rng) == 1, "top-p");
  /* top-p 0.9: the three most likely */
  c.top_p = 0.9f;
  memset(seen, 0, sizeof seen);
  for (int i = 0; i < 400; i++) seen[pte_llm_sample(logits, 5, &c, NULL, 0, &rng)]++;
  CHECK(seen[3] == 0 && seen[4] == 0 && seen[0] > 0, "top-p 0.9: %d %d %d %d %d", seen[0], seen[1], seen[2],
        seen[3], seen[4]);
}

TEST(errors_name_the_problem) {
  pte_llm_runner *r = NULL;
  char model[1024];
  snprintf(model, sizeof model, "%s", zoo_path(TINY "model.pte"));
  CHECK(pte_llm_runner_create(model, NULL, "/nonexistent.json", &r) != PTE_OK && !r, "missing tokenizer");
  CHECK(strstr(pte_last_error(), "cannot open"), "%s", pte_last_error());
  /* a program without forward's LLM signature */
  CHECK(pte_llm_runner_create(zoo_path("models/mlp/model.pte"), NULL, zoo_path(TINY "tokenizer.json"), &r) !=
            PTE_OK,
        "mlp accepted");
  CHECK(strstr(pte_last_error(), "forward"), "%s", pte_last_error());
}

/* forward(tokens [1, n], positions [n]) on a method; the last logits row
 * copied to out[0 .. 320). */
static pte_status forward_last(pte_method *m, const int64_t *tok, const int64_t *pos, int64_t n, float *out) {
  int64_t s0[2] = {1, n}, s1[1] = {n};
  pte_tensor tt, tp;
  pte_tensor_init(&tt, PTE_INT64, 2, s0, (void *)tok);
  pte_tensor_init(&tp, PTE_INT64, 1, s1, (void *)pos);
  pte_status st = pte_method_set_input_tensor(m, 0, &tt);
  if (!st) st = pte_method_set_input_tensor(m, 1, &tp);
  if (!st) st = pte_method_execute(m);
  if (st) return st;
  const pte_tensor *t = pte_method_output(m, 0)->u.tensor;
  memcpy(out, (const float *)t->data + (pte_tensor_numel(t) - 320), 320 * sizeof(float));
  return PTE_OK;
}

static float max_diff(const float *a, const float *b, int n) {
  float d = 0;
  for (int i = 0; i < n; i++) d = fabsf(a[i] - b[i]) > d ? fabsf(a[i] - b[i]) : d;
  return d;
}

/* The KV cache is a mutable buffer of the method: it persists across
 * execute calls (a prefix, then one token at a time, gives the logits of the
 * whole sequence in one call), each method has its own (another prefix in a
 * second method of the same program changes nothing in the first), and
 * writing positions from 0 again replaces the context, which is how the
 * runner resets it. Every call reads only positions written before: a
 * buffer without initial bytes is not zeroed at load (as in ExecuTorch), so
 * nothing here may depend on what a fresh cache holds. */
TEST(kv_cache_buffers_persist_per_method) {
  pte_program *prog = NULL;
  CHECK_OK(pte_program_load_file(zoo_path(TINY "model.pte"), NULL, &prog));
  pte_method *whole = NULL, *split = NULL, *other = NULL;
  CHECK_OK(pte_method_load(prog, "forward", NULL, &whole));
  CHECK_OK(pte_method_load(prog, "forward", NULL, &split));
  CHECK_OK(pte_method_load(prog, "forward", NULL, &other));
  const int64_t tok[6] = {0, 17, 93, 5, 211, 42}, alt[4] = {0, 250, 3, 77}, pos[6] = {0, 1, 2, 3, 4, 5};
  float ref[320], got[320], moved[320], again[320];
  CHECK_OK(forward_last(whole, tok, pos, 6, ref));
  CHECK_OK(forward_last(split, tok, pos, 4, got));
  CHECK_OK(forward_last(split, tok + 4, pos + 4, 1, got));
  CHECK_OK(forward_last(split, tok + 5, pos + 5, 1, got));
  CHECK(max_diff(ref, got, 320) < 1e-4f, "prefix then tokens: %g from one call", max_diff(ref, got, 320));
  /* the same last two tokens after another prefix, in another method */
  CHECK_OK(forward_last(other, alt, pos, 4, moved));
  CHECK_OK(forward_last(other, tok + 4, pos + 4, 2, moved));
  CHECK(max_diff(ref, moved, 320) > 1e-3f, "another prefix gave the same logits");
  /* split's cache is its own: positions 4..5 again still see tok's prefix */
  CHECK_OK(forward_last(split, tok + 4, pos + 4, 2, again));
  CHECK(max_diff(ref, again, 320) < 1e-4f, "another method's prefix reached this one: %g",
        max_diff(ref, again, 320));
  /* reset: from position 0 again, the old context is gone */
  CHECK_OK(forward_last(other, tok, pos, 4, again));
  CHECK_OK(forward_last(other, tok + 4, pos + 4, 2, again));
  CHECK(max_diff(ref, again, 320) < 1e-4f, "after rewriting from 0: %g", max_diff(ref, again, 320));
  pte_method_free(whole);
  pte_method_free(split);
  pte_method_free(other);
  pte_program_free(prog);
}

/* A tiktoken file gets Llama-3's specials from the runner (BOS/EOS among
 * them); any program loads beside it, so tiny_llama does. */
TEST(tiktoken_gets_llama3_specials) {
  pte_llm_runner *r = NULL;
  char model[1024];
  snprintf(model, sizeof model, "%s", zoo_path(TINY "model.pte"));
  CHECK_OK(
      pte_llm_runner_create(model, NULL, PTERUN_SOURCE_DIR "/tests/llm/tokenizers/data/llama3.tiktoken", &r));
  const pte_llm_tokenizer *tok = pte_llm_runner_tokenizer(r);
  int32_t n = pte_llm_tokenizer_vocab_size(tok) - 256;
  CHECK(pte_llm_tokenizer_find(tok, "<|begin_of_text|>") == n && pte_llm_tokenizer_bos(tok) == n, "bos");
  CHECK(pte_llm_tokenizer_find(tok, "<|eot_id|>") == n + 9 && pte_llm_tokenizer_eos(tok) == n + 1, "eot/eos");
  pte_llm_runner_free(r);
}

TEST(setup) { register_all(); }

TEST_MAIN(T(setup), T(metadata_methods), T(prefill_in_one_call), T(prefill_token_by_token),
          T(prefill_in_chunks_of_5), T(portable_kernels_alone), T(state_persists_until_reset),
          T(seeded_sampling), T(stop_from_the_callback), T(sampler_rules), T(errors_name_the_problem),
          T(tiktoken_gets_llama3_specials), T(kv_cache_buffers_persist_per_method))
