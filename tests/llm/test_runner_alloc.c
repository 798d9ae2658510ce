/* A decode step allocates nothing: malloc and friends are interposed
 * (tests/common/alloc_count.c) and counted from the second generated token
 * on, greedy, on zoo/llm/tiny_llama and its XNNPACK forms (the first token
 * may size the runner's buffers for the prompt; later ones reuse them).
 * Not built with sanitizers, whose runtimes own malloc.
 *   test_runner_alloc MODEL_DIR... */
#include <stdio.h>

#include "pterun_components.h"

#include "../common/alloc_count.h"

typedef struct counter {
  int texts;
  long allocs;
} counter;

static void on_text(void *user, const char *text, size_t len) {
  (void)text, (void)len;
  counter *c = user;
  if (++c->texts == 2) alloc_count_start();
}

int main(int argc, char **argv) {
  int bad = 0;
  if (pterun_register_built_components() != PTE_OK) { /* static builds register here */
    fprintf(stderr, "FAIL register: %s\n", pte_last_error());
    return 1;
  }
  for (int a = 1; a < argc; a++) {
    char model[1024], tok[1024];
    snprintf(model, sizeof model, "%s/model.pte", argv[a]);
    snprintf(tok, sizeof tok, "%s/tokenizer.json", argv[a]);
    pte_llm_runner *r = NULL;
    if (pte_llm_runner_create(model, NULL, tok, &r) != PTE_OK) {
      fprintf(stderr, "FAIL %s: %s\n", argv[a], pte_last_error());
      bad++;
      continue;
    }
    pte_llm_config c = PTE_LLM_CONFIG_INIT;
    c.max_new_tokens = 24;
    counter k = {0};
    pte_llm_stats s;
    pte_status st = pte_llm_runner_generate(r, "Once upon a time", &c, on_text, &k, NULL, &s);
    k.allocs = k.texts >= 2 ? alloc_count_stop() : -1;
    if (st != PTE_OK || k.texts < 8 || k.allocs != 0) {
      fprintf(stderr, "FAIL %s: status %d (%s), %d text pieces, %ld allocation(s) in decode\n", argv[a],
              (int)st, st ? pte_last_error() : "ok", k.texts, k.allocs);
      bad++;
    } else {
      printf("%s: %lld tokens, %d text pieces, no allocation after the first\n", argv[a],
             (long long)s.generated_tokens, k.texts);
    }
    pte_llm_runner_free(r);
  }
  return bad ? 1 : 0;
}
