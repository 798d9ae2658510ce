/* pterun generate MODEL.pte --tokenizer FILE --prompt TEXT [--max-new-tokens N]
 *     [--temperature T] [--top-p P] [--top-k K] [--repetition-penalty R]
 *     [--seed S] [--data F.ptd] [--threads N] [--echo] [--quiet] [--ids]
 * Text generation with libpterun_llm's runner: the text as it comes on
 * stdout, the stats on stderr. */
#include <pterun/llm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static void put(void *user, const char *text, size_t len) {
  (void)user;
  fwrite(text, 1, len, stdout);
  fflush(stdout);
}

static bool num(const char *s, double lo, double hi, double *out) {
  char *end;
  double v = strtod(s, &end);
  if (!*s || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

int pterun_cmd_generate(int argc, char **argv) {
  const char *model = NULL, *tok = NULL, *prompt = NULL, *data = NULL;
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  bool quiet = false, print_ids = false;
  int threads = -1;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    double v;
    bool has = i + 1 < argc;
    if (pterun_is_help(a)) {
      pterun_usage("generate", stdout);
      return 0;
    } else if (pterun_is_threads_option(a)) {
      if (pterun_parse_threads(a, has ? argv[i + 1] : NULL, &threads)) {
        pterun_usage("generate", stderr);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--tokenizer") && has) {
      tok = argv[++i];
    } else if (!strcmp(a, "--prompt") && has) {
      prompt = argv[++i];
    } else if (!strcmp(a, "--data") && has) {
      data = argv[++i];
    } else if (!strcmp(a, "--max-new-tokens") && has && num(argv[i + 1], 0, 1 << 30, &v)) {
      c.max_new_tokens = (int32_t)v;
      i++;
    } else if (!strcmp(a, "--temperature") && has && num(argv[i + 1], 0, 1e6, &v)) {
      c.temperature = (float)v;
      i++;
    } else if (!strcmp(a, "--top-p") && has && num(argv[i + 1], 0, 1, &v)) {
      c.top_p = (float)v;
      i++;
    } else if (!strcmp(a, "--top-k") && has && num(argv[i + 1], 0, 1 << 30, &v)) {
      c.top_k = (int32_t)v;
      i++;
    } else if (!strcmp(a, "--repetition-penalty") && has && num(argv[i + 1], 1e-6, 1e6, &v)) {
      c.repetition_penalty = (float)v;
      i++;
    } else if (!strcmp(a, "--seed") && has && num(argv[i + 1], 0, 1.8e19, &v)) {
      c.seed = (uint64_t)strtoull(argv[++i], NULL, 10);
    } else if (!strcmp(a, "--echo")) {
      c.echo = true;
    } else if (!strcmp(a, "--quiet")) {
      quiet = true;
    } else if (!strcmp(a, "--ids")) {
      print_ids = true;
    } else if (a[0] != '-' && !model) {
      model = a;
    } else {
      return pterun_usage_error("generate", "generate: bad or incomplete option '%s'", a);
    }
  }
  if (!model || !tok || !prompt)
    return pterun_usage_error("generate", "generate: %s",
                              !model ? "no model given"
                              : !tok ? "--tokenizer is required"
                                     : "--prompt is required");
  if (pterun_apply_threads(threads)) return 1;
  pte_llm_runner *r = NULL;
  if (pte_llm_runner_create(model, data, tok, &r) != PTE_OK) {
    fprintf(stderr, "pterun generate: %s\n", pte_last_error());
    return 1;
  }
  pte_llm_stats s;
  pte_llm_ids ids = {0};
  pte_status st = pte_llm_runner_generate(r, prompt, &c, print_ids ? NULL : put, NULL, &ids, &s);
  if (print_ids)
    for (size_t i = 0; i < ids.n; i++) printf("%s%d", i ? " " : "", ids.ids[i]);
  printf("\n");
  if (st) fprintf(stderr, "pterun generate: %s\n", pte_last_error());
  if (!quiet) {
    const pte_llm_metadata *m = pte_llm_runner_metadata(r);
    fprintf(stderr,
            "prompt tokens: %lld in %lld call(s), %.1f ms (%.1f tok/s)\n"
            "generated tokens: %lld, %.1f tok/s%s\n"
            "time to first token: %.2f ms, load: %.1f ms, peak memory: %.1f MB\n"
            "max_seq_len %lld, vocab %lld, prefill up to %lld tokens per call, %d thread(s)\n",
            (long long)s.prompt_tokens, (long long)s.prefill_calls, s.prefill_ms, s.prompt_tokens_per_s,
            (long long)s.generated_tokens, s.generated_tokens_per_s,
            s.stopped_at_eos ? " (stopped at EOS)" : "", s.ttft_ms, s.load_ms,
            (double)s.peak_rss_bytes / 1048576.0, (long long)m->max_seq_len, (long long)m->vocab_size,
            (long long)m->max_prefill, pterun_pool_threads());
  }
  pte_llm_ids_free(&ids);
  pte_llm_runner_free(r);
  return st ? 1 : 0;
}
