/* The C side of bench/llm.py: the text-generation runner (libpterun_llm) on
 * one program and tokenizer, greedy, after a warm-up. Each repetition times
 * two generate calls from position 0: one new token (the prefill, and the
 * first sample) and MAX_NEW_TOKENS; their difference is the decode. Wall
 * time (CLOCK_MONOTONIC) and process CPU time (CLOCK_PROCESS_CPUTIME_ID: the
 * pool's workers included, comparable on a busy machine) of each call, the
 * same method bench/llm.py applies to the Python runners.
 *
 *   pterun_llm_bench MODEL.pte TOKENIZER PROMPT MAX_NEW_TOKENS REPS */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/llm.h>
#include <pterun/threadpool.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ms(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* One generate from position 0: its wall and CPU ms, and the runner's stats. */
static int timed(pte_llm_runner *r, const char *prompt, int max_new, double *wall, double *cpu,
                 pte_llm_stats *s) {
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  c.max_new_tokens = max_new;
  c.temperature = 0;
  pte_llm_runner_reset(r);
  double w0 = ms(CLOCK_MONOTONIC), c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
  if (pte_llm_runner_generate(r, prompt, &c, NULL, NULL, NULL, s) != PTE_OK) {
    fprintf(stderr, "generate: %s\n", pte_last_error());
    return 1;
  }
  *cpu = ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
  *wall = ms(CLOCK_MONOTONIC) - w0;
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s MODEL.pte TOKENIZER PROMPT MAX_NEW_TOKENS REPS\n", argv[0]);
    return 2;
  }
  int max_new = atoi(argv[4]), reps = atoi(argv[5]);
  if (max_new < 2 || reps < 1) {
    fprintf(stderr, "MAX_NEW_TOKENS must be at least 2 and REPS positive\n");
    return 2;
  }
  /* shared builds register by linking; static ones here (idempotent) */
  if (pte_kernels_portable_register() || pte_kernels_optimized_register() || pte_llm_register()) {
    fprintf(stderr, "register: %s\n", pte_last_error());
    return 1;
  }
  pte_llm_runner *r = NULL;
  if (pte_llm_runner_create(argv[1], NULL, argv[2], &r) != PTE_OK) {
    fprintf(stderr, "runner: %s\n", pte_last_error());
    return 1;
  }
  printf("{\"threads\": %zu, \"runs\": [", pte_threadpool_threads());
  for (int i = -1; i < reps; i++) { /* i == -1: the warm-up, not printed */
    double w1, c1, wn, cn;
    pte_llm_stats s1, sn;
    if (timed(r, argv[3], 1, &w1, &c1, &s1) || timed(r, argv[3], max_new, &wn, &cn, &sn)) {
      pte_llm_runner_free(r);
      return 1;
    }
    if (i < 0) continue;
    printf(
        "%s{\"prompt_tokens\": %lld, \"generated_tokens\": %lld, \"wall1_ms\": %.4f, \"cpu1_ms\": %.4f, "
        "\"walln_ms\": %.4f, \"cpun_ms\": %.4f, \"generated1_tokens\": %lld}",
        i ? ", " : "", (long long)sn.prompt_tokens, (long long)sn.generated_tokens, w1, c1, wn, cn,
        (long long)s1.generated_tokens);
  }
  printf("]}\n");
  pte_llm_runner_free(r);
  return 0;
}
