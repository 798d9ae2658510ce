/* Token sampling: repetition penalty (a seen token's logit divided by the
 * penalty when positive, multiplied when negative), then greedy, or
 * temperature, top-k, top-p (the smallest set of most likely tokens whose
 * probability reaches p) and a draw from a seeded generator. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../tokenizers/tok_internal.h"

static uint64_t next_u64(uint64_t *s) { /* splitmix64: any seed, 0 included */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

typedef struct cand {
  float p;
  int32_t id;
} cand;

static int by_p_desc(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->p != y->p) return x->p < y->p ? 1 : -1;
  return x->id < y->id ? -1 : x->id > y->id;
}

int32_t pte_llm_sample(const float *logits, int64_t n, const pte_llm_config *c, const int32_t *history,
                       size_t nhistory, uint64_t *rng) {
  if (n <= 0) return -1;
  const bool penalty = c->repetition_penalty > 0 && c->repetition_penalty != 1.0f && nhistory;
  if (c->temperature <= 0 && !penalty) { /* greedy on the logits themselves: no copy */
    int32_t best = 0;
    for (int64_t i = 1; i < n; i++)
      if (logits[i] > logits[best]) best = (int32_t)i;
    return best;
  }
  float *l = malloc((size_t)n * sizeof *l);
  if (!l) return -1;
  memcpy(l, logits, (size_t)n * sizeof *l);
  if (penalty) {
    uint8_t *seen = calloc((size_t)n, 1); /* each distinct token once */
    for (size_t i = 0; seen && i < nhistory; i++) {
      int32_t id = history[i];
      if (id < 0 || id >= n || seen[id]) continue;
      seen[id] = 1;
      l[id] = l[id] > 0 ? l[id] / c->repetition_penalty : l[id] * c->repetition_penalty;
    }
    free(seen);
  }
  int32_t best = 0;
  for (int64_t i = 1; i < n; i++)
    if (l[i] > l[best]) best = (int32_t)i;
  if (c->temperature <= 0) {
    free(l);
    return best;
  }
  cand *cs = malloc((size_t)n * sizeof *cs);
  if (!cs) {
    free(l);
    return best;
  }
  const float mx = l[best];
  double sum = 0;
  for (int64_t i = 0; i < n; i++) {
    float e = expf((l[i] - mx) / c->temperature);
    cs[i] = (cand){e, (int32_t)i};
    sum += e;
  }
  int64_t m = n;
  bool sorted = false;
  if ((c->top_k > 0 && c->top_k < n) || (c->top_p > 0 && c->top_p < 1)) {
    qsort(cs, (size_t)n, sizeof *cs, by_p_desc);
    sorted = true;
  }
  if (sorted && c->top_k > 0 && c->top_k < m) m = c->top_k;
  if (sorted) {
    sum = 0;
    for (int64_t i = 0; i < m; i++) sum += cs[i].p;
  }
  if (sorted && c->top_p > 0 && c->top_p < 1) {
    double acc = 0;
    int64_t keep = m;
    for (int64_t i = 0; i < m; i++) {
      acc += cs[i].p / sum;
      if (acc >= c->top_p) {
        keep = i + 1;
        break;
      }
    }
    m = keep;
    sum = 0;
    for (int64_t i = 0; i < m; i++) sum += cs[i].p;
  }
  double r = (double)(next_u64(rng) >> 11) * (1.0 / 9007199254740992.0) * sum, acc = 0;
  int32_t pick = cs[m - 1].id;
  for (int64_t i = 0; i < m; i++) {
    acc += cs[i].p;
    if (r < acc) {
      pick = cs[i].id;
      break;
    }
  }
  free(cs);
  free(l);
  return pick;
}
