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
