/* Micro-benchmark of the thread pool's parallel regions (not a test: CI never
 * runs it). Per region, at the pool's size (PTERUN_NUM_THREADS):
 *   back-to-back  empty regions one after the other (workers never sleep)
 *   gap G us      the caller works G us between regions (as between
 *                 operators), so workers may spin or sleep in between
 *   wake          submit to the first chunk a worker starts (its wake-up)
 *   join          the caller's last chunk done to the region's return
 * wall, wake and join are medians over every region; cpu (process CPU per
 * region, the 2 us chunks' included, the caller's gap not) the median of the
 * repeats' means, which counts workers spinning between regions; woke: the
 * share of regions in which a worker ran a chunk.
 *   bench_pool [regions] [repeats] */
#define _GNU_SOURCE
#include <pterun/threadpool.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static uint64_t now(void) { return clock_ns(CLOCK_MONOTONIC); }

typedef struct probe {
  uint64_t submit;              /* caller's time before the call */
  _Atomic uint64_t first_other; /* first chunk start on a worker */
  _Atomic uint64_t caller_done; /* caller's last chunk end */
  uint64_t spin_ns;             /* work per chunk */
} probe;

static void burn(uint64_t ns) {
  if (!ns) return;
  uint64_t until = now() + ns;
  while (now() < until) {
  }
}

static void empty(void *ctx, size_t b, size_t e) { (void)ctx, (void)b, (void)e; }

static void timed(void *ctx, size_t b, size_t e) {
  probe *p = ctx;
  uint64_t t = now();
  if (pte_threadpool_thread_index() != 0) {
    uint64_t z = 0;
    atomic_compare_exchange_strong(&p->first_other, &z, t);
  }
  burn(p->spin_ns * (e - b));
  if (pte_threadpool_thread_index() == 0) atomic_store(&p->caller_done, now());
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char **argv) {
  int regions = argc > 1 ? atoi(argv[1]) : 2000, repeats = argc > 2 ? atoi(argv[2]) : 7;
  if (regions < 1) regions = 1;
  if (repeats < 1 || repeats > 64) repeats = 7;
  size_t t = pte_threadpool_threads();
  printf("pool: %zu thread(s), %d regions x %d repeats (medians)\n", t, regions, repeats);
  pte_threadpool_parallel_for(1000, 1, empty, NULL); /* create the pool */
  const int gaps[] = {0, 5, 20, 100, 300, 1000};
  printf("%-14s %12s %12s %10s %10s %8s\n", "case", "wall us", "cpu us", "wake us", "join us", "woke");
  for (size_t gi = 0; gi < sizeof gaps / sizeof gaps[0]; gi++) {
    double cpu[64];
    int n = gaps[gi] >= 300 ? regions / 10 + 1 : regions;
    /* per region: a preempted caller (milliseconds) would swamp a mean */
    double *wall = calloc((size_t)n * repeats, sizeof *wall),
           *wake = calloc((size_t)n * repeats, sizeof *wake),
           *join = calloc((size_t)n * repeats, sizeof *join);
    int nw = 0, nk = 0, nj = 0;
    if (!wall || !wake || !join) return 1;
    for (int r = 0; r < repeats; r++) {
      uint64_t c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), gap_cpu = 0;
      for (int i = 0; i < n; i++) {
        if (gaps[gi]) {
          uint64_t g0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
          burn((uint64_t)gaps[gi] * 1000);
          gap_cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - g0;
        }
        /* chunks of 2 us each, two per thread: enough for a woken worker
         * to take one, short enough to show the fork/join cost */
        probe p = {.submit = now(), .spin_ns = 2000};
        pte_threadpool_parallel_for(2 * t, 1, timed, &p);
        uint64_t end = now();
        wall[nw++] = (double)(end - p.submit) / 1e3;
        uint64_t fo = atomic_load(&p.first_other), cd = atomic_load(&p.caller_done);
        if (fo) wake[nk++] = (double)(fo - p.submit) / 1e3;
        if (cd && end > cd) join[nj++] = (double)(end - cd) / 1e3;
      }
      uint64_t c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
      /* the process CPU but the caller's in the gaps (workers spinning
       * in a gap count) */
      cpu[r] = ((double)(c1 - c0) - (double)gap_cpu) / n / 1e3;
    }
    char name[32];
    snprintf(name, sizeof name, gaps[gi] ? "gap %d us" : "back-to-back", gaps[gi]);
    printf("%-14s %12.2f %12.2f %10.2f %10.2f %8.2f\n", name, median(wall, nw), median(cpu, repeats),
           nk ? median(wake, nk) : -1.0, nj ? median(join, nj) : 0.0, (double)nk / nw);
    free(wall), free(wake), free(join);
  }
  /* empty regions: the pure fork/join (chunks of nothing) */
  double wall[64], cpu[64];
  for (int r = 0; r < repeats; r++) {
    uint64_t w0 = now(), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < regions; i++) pte_threadpool_parallel_for(2 * t, 1, empty, NULL);
    wall[r] = (double)(now() - w0) / regions / 1e3;
    cpu[r] = (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - c0) / regions / 1e3;
  }
  printf("%-14s %12.2f %12.2f   (chunks of 2 us above: the work is %.1f us wall at %zu threads)\n", "empty",
         median(wall, repeats), median(cpu, repeats), 2.0 * 2 * t / (double)t, t);
  return 0;
}
