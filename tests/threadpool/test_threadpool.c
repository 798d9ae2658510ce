/* The process thread pool: every index runs exactly once, 1-D and 2-D,
 * nested calls run inline, concurrent callers are serialized safely,
 * resizing works when nothing holds the pool and is refused while
 * something does, and there is one pool (identity, creation count). */
#define _POSIX_C_SOURCE 200809L
#include <pterun/threadpool.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures;
#define CHECK(c, ...)                                                       \
  do {                                                                      \
    if (!(c)) {                                                             \
      failures++;                                                           \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #c); \
      fprintf(stderr, __VA_ARGS__);                                         \
      fprintf(stderr, "\n");                                                \
    }                                                                       \
  } while (0)

#define N 100003

typedef struct counts {
  atomic_int hits[N];
  atomic_int calls;
  atomic_int nested_inline;
} counts;

static void mark(void *ctx, size_t b, size_t e) {
  counts *c = (counts *)ctx;
  atomic_fetch_add(&c->calls, 1);
  for (size_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
}

static void check_once(counts *c, size_t n, const char *what) {
  int bad = 0;
  for (size_t i = 0; i < n; i++) bad += atomic_load(&c->hits[i]) != 1;
  CHECK(bad == 0, "%s: %d of %zu indices did not run exactly once", what, bad, n);
}

static void nested(void *ctx, size_t b, size_t e) {
  counts *c = (counts *)ctx;
  for (size_t i = b; i < e; i++) {
    /* Inner loop from inside a job: must run inline, not deadlock. */
    size_t before = (size_t)atomic_load(&c->calls);
    pte_threadpool_parallel_for(10, 1, mark, ctx);
    (void)before;
    atomic_fetch_add(&c->nested_inline, 1);
  }
}

typedef struct grid {
  atomic_int hits[64][50];
} grid;

static void mark2(void *ctx, size_t i0, size_t i1, size_t j0, size_t j1) {
  grid *g = (grid *)ctx;
  for (size_t i = i0; i < i1; i++)
    for (size_t j = j0; j < j1; j++) atomic_fetch_add(&g->hits[i][j], 1);
}

/* Which threads ran the chunks of a slow loop (each chunk sleeps, so a
 * worker that has to wake up still gets some). */
typedef struct who {
  pthread_t ids[64];
  atomic_int n;
} who;

static void record(void *ctx, size_t b, size_t e) {
  who *w = (who *)ctx;
  for (size_t i = b; i < e; i++) {
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    int k = atomic_fetch_add(&w->n, 1);
    if (k < 64) w->ids[k] = pthread_self();
  }
}

static void *concurrent(void *arg) {
  counts *c = (counts *)arg;
  for (int r = 0; r < 20; r++) pte_threadpool_parallel_for(N, 0, mark, c);
  return NULL;
}

int main(void) {
  counts *c = (counts *)calloc(1, sizeof *c);
  const void *id = pte_threadpool_identity();
  printf("pthreadpool: %s; %zu thread(s)\n", pte_threadpool_provider(), pte_threadpool_threads());
  CHECK(pte_threadpool_threads() >= 1, "threads() is 0");

  /* 1-D, several grains. */
  size_t grains[] = {0, 1, 7, 1000, N, N + 5};
  for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
    memset(c, 0, sizeof *c);
    pte_threadpool_parallel_for(N, grains[g], mark, c);
    char what[64];
    snprintf(what, sizeof what, "parallel_for grain %zu", grains[g]);
    check_once(c, N, what);
  }
  /* Empty range: nothing runs. */
  memset(c, 0, sizeof *c);
  pte_threadpool_parallel_for(0, 0, mark, c);
  CHECK(atomic_load(&c->calls) == 0, "an empty range ran %d chunks", atomic_load(&c->calls));

  /* 2-D. */
  grid *g = (grid *)calloc(1, sizeof *g);
  pte_threadpool_parallel_for_2d(64, 50, 5, 7, mark2, g);
  int bad = 0;
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 50; j++) bad += atomic_load(&g->hits[i][j]) != 1;
  CHECK(bad == 0, "2-D: %d cells did not run exactly once", bad);

  /* Nesting runs inline. */
  memset(c, 0, sizeof *c);
  pte_threadpool_parallel_for(64, 1, nested, c);
  CHECK(atomic_load(&c->nested_inline) == 64, "nested: %d of 64 outer items", atomic_load(&c->nested_inline));
  int inner = 0;
  for (int i = 0; i < 10; i++) inner += atomic_load(&c->hits[i]);
  CHECK(inner == 640, "nested: inner loops covered %d of 640 items", inner);

  /* With several threads the work is shared: not all on the caller. */
  if (pte_threadpool_threads() > 1) {
    who w;
    memset(&w, 0, sizeof w);
    pte_threadpool_parallel_for(32, 1, record, &w);
    int others = 0;
    for (int i = 0; i < 32 && i < atomic_load(&w.n); i++) others += !pthread_equal(w.ids[i], pthread_self());
    CHECK(atomic_load(&w.n) == 32, "slow loop ran %d of 32 items", atomic_load(&w.n));
    CHECK(others > 0, "every chunk of a 64 ms loop ran on the calling thread");
  }

  /* Several threads submitting at once. */
  memset(c, 0, sizeof *c);
  pthread_t th[4];
  for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, concurrent, c);
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  bad = 0;
  for (size_t i = 0; i < N; i++) bad += atomic_load(&c->hits[i]) != 80;
  CHECK(bad == 0, "concurrent callers: %d indices not run 80 times", bad);

  /* One pool: the same pthreadpool until a resize, counted creations. */
  void *pool = pte_threadpool_pthreadpool();
  CHECK(pool == pte_threadpool_pthreadpool(), "the pool changed between calls");
  uint64_t created = pte_threadpool_pools_created();
  CHECK(created == (pool ? 1u : 0u), "%llu pools created, expected one", (unsigned long long)created);

  /* Resizing: refused while held, done when released. */
  size_t before = pte_threadpool_threads();
  size_t other = before == 2 ? 3 : 2;
  void *held = pte_threadpool_acquire();
  CHECK(held == pool, "acquire returned another pool");
  pte_status st = pte_threadpool_set_threads(other);
  if (pool) CHECK(st == PTE_ERR_INVALID_STATE, "resize while held returned %s", pte_status_name(st));
  if (st) printf("refused while held: %s\n", pte_last_error());
  CHECK(pte_threadpool_set_threads(before) == PTE_OK, "asking for the current size: %s", pte_last_error());
  pte_threadpool_release();
  st = pte_threadpool_set_threads(other);
  CHECK(st == PTE_OK, "resize when free: %s", pte_last_error());
  if (pool) {
    CHECK(pte_threadpool_threads() == other, "threads() is %zu after resizing to %zu",
          pte_threadpool_threads(), other);
    memset(c, 0, sizeof *c);
    pte_threadpool_parallel_for(N, 0, mark, c);
    check_once(c, N, "after resize");
    CHECK(pte_threadpool_pools_created() == created + 1, "a resize should create exactly one new pool");
  }
  CHECK(pte_threadpool_set_threads(0) == PTE_OK, "back to default: %s", pte_last_error());
  CHECK(pte_threadpool_set_threads(100000) == PTE_ERR_INVALID_ARGUMENT, "absurd size accepted");
  CHECK(pte_threadpool_identity() == id, "identity changed");

  free(c);
  free(g);
  printf("%s (%d failure(s))\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
