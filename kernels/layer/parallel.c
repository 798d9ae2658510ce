/* The one parallel-for of the kernels (see klayer.h). */
#include "klayer.h"

#include <pterun/threadpool.h>

size_t k_threads(void) { return pte_threadpool_threads(); }

size_t k_slots(void) {
  size_t t = k_threads();
  return t < 64 ? t : 64;
}

void k_parallel_for(size_t n, double cost, k_range_fn fn, void *ctx) {
  if (n == 0) return;
  /* decide on the cost first: asking the pool its size takes its lock */
  size_t t = n == 1 || cost < K_PAR_MIN_OPS ? 1 : k_threads();
  if (t <= 1) {
    fn(ctx, 0, n);
    return;
  }
  size_t chunks = t * 4;
  /* Keep every chunk worth at least ~32k operations. */
  size_t by_cost = (size_t)(cost / 32768.0);
  if (by_cost < chunks) chunks = by_cost < t ? t : by_cost;
  size_t grain = (n + chunks - 1) / chunks;
  pte_threadpool_parallel_for(n, grain ? grain : 1, fn, ctx);
}

void k_parallel_chunks(size_t chunks, k_range_fn fn, void *ctx) {
  if (chunks == 0) return;
  if (chunks == 1) {
    fn(ctx, 0, 1);
    return;
  }
  pte_threadpool_parallel_for(chunks, 1, fn, ctx);
}

int64_t k_chunk_first(int64_t c, int64_t chunks, int64_t items, int64_t per, int64_t unit, int64_t last) {
  if (c <= 0 || chunks <= 0) return 0;
  if (c >= chunks || per <= 0 || unit <= 0 || last <= 0 || per > items) return items;
  const int64_t full = items - per; /* items of the full-width panels */
  const double wide = (double)full * (double)unit,
               t = (wide + (double)per * (double)last) * (double)c / (double)chunks;
  int64_t it =
      t <= wide ? (int64_t)(t / (double)unit + 0.5) : full + (int64_t)((t - wide) / (double)last + 0.5);
  return it < 0 ? 0 : it > items ? items : it;
}
