/* The pool under many tiny regions (the fork/join path every operator
 * takes): at 1 to 4 threads, 1-D and 2-D regions of 1 to 9 chunks, some
 * after a pause long enough for the workers to go to sleep (so the futex
 * wake-up runs, not only the spin hand-off), each index exactly once and
 * every region complete when the call returns; nested calls run inline
 * (on the calling thread, at once); two submitting threads at a time are
 * serialized. Not timed: it checks results only. */
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

#define MAXN 72 /* 9 x 8 cells */

typedef struct region {
  atomic_int hits[MAXN];
  atomic_int nested_bad; /* nested calls that did not run inline */
  bool nest;
} region;

static void inner(void *ctx, size_t b, size_t e) {
  pthread_t *owner = ctx;
  (void)b, (void)e;
  /* inline means on the thread that made the nested call */
  if (!pthread_equal(*owner, pthread_self())) abort();
}

static void mark(void *ctx, size_t b, size_t e) {
  region *r = ctx;
  for (size_t i = b; i < e; i++) atomic_fetch_add(&r->hits[i], 1);
  if (r->nest) {
    pthread_t self = pthread_self();
    size_t idx = pte_threadpool_thread_index();
    pte_threadpool_parallel_for(8, 1, inner, &self);
    if (pte_threadpool_thread_index() != idx) atomic_fetch_add(&r->nested_bad, 1);
  }
}

static void mark2(void *ctx, size_t i0, size_t i1, size_t j0, size_t j1) {
  region *r = ctx;
  for (size_t i = i0; i < i1; i++)
    for (size_t j = j0; j < j1; j++) atomic_fetch_add(&r->hits[i * 8 + j], 1);
}

/* `count` regions; every 64th after a 300 us pause (past the workers' spin). */
static void regions(int count, uint32_t seed, const char *who) {
  uint32_t s = seed;
  region r;
  for (int k = 0; k < count; k++) {
    s = s * 1664525u + 1013904223u;
    size_t n = 1 + (s >> 8) % 9;
    memset(&r, 0, sizeof r);
    r.nest = (s >> 20) % 16 == 0;
    if (k % 64 == 63) {
      struct timespec ts = {0, 300000};
      nanosleep(&ts, NULL);
    }
    if ((s >> 24) % 4 == 0) {
      size_t ni = n, nj = 1 + (s >> 12) % 8;
      pte_threadpool_parallel_for_2d(ni, nj, 1, 1 + (s >> 16) % 3, mark2, &r);
      int bad = 0;
      for (size_t i = 0; i < ni; i++)
        for (size_t j = 0; j < 8; j++) bad += atomic_load(&r.hits[i * 8 + j]) != (j < nj);
      if (bad) {
        CHECK(bad == 0, "%s: 2-D region %d (%zu x %zu): %d cells wrong", who, k, ni, nj, bad);
        return;
      }
      continue;
    }
    pte_threadpool_parallel_for(n, 1, mark, &r);
    int bad = 0;
    for (size_t i = 0; i < MAXN; i++) bad += atomic_load(&r.hits[i]) != (i < n);
    bad += atomic_load(&r.nested_bad);
    if (bad) {
      CHECK(bad == 0, "%s: region %d of %zu chunks: %d wrong (nested %d)", who, k, n, bad,
            atomic_load(&r.nested_bad));
      return;
    }
  }
}

static void *submitter(void *arg) {
  regions(3000, (uint32_t)(uintptr_t)arg, "second submitter");
  return NULL;
}

int main(void) {
  printf("pthreadpool: %s\n", pte_threadpool_provider());
  for (size_t t = 1; t <= 4; t++) {
    CHECK(pte_threadpool_set_threads(t) == PTE_OK, "set_threads(%zu): %s", t, pte_last_error());
    regions(20000, (uint32_t)t, "one submitter");
    pthread_t th;
    CHECK(pthread_create(&th, NULL, submitter, (void *)(uintptr_t)(t * 77)) == 0, "pthread_create");
    regions(3000, (uint32_t)(t * 31), "first submitter");
    pthread_join(th, NULL);
    printf("%zu thread(s): done\n", pte_threadpool_threads());
  }
  CHECK(pte_threadpool_set_threads(0) == PTE_OK, "back to the default: %s", pte_last_error());
  printf("%s (%d failure(s))\n", failures ? "FAIL" : "PASS", failures);
  return failures ? 1 : 0;
}
