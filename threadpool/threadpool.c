/* The process thread pool, on Debian's pthreadpool.
 *
 * pthreadpool is resolved at run time with dlopen(RTLD_LOCAL | RTLD_DEEPBIND)
 * unless the build links it directly (sanitizer builds, where DEEPBIND is
 * refused by the sanitizer runtime): torch's libtorch_cpu.so exports its own
 * pthreadpool_* symbols, and once torch is loaded with RTLD_GLOBAL a plain
 * link would bind our calls (and XNNPACK's) to torch's copy, whose pool
 * structure differs from Debian's. A handle from dlopen plus dlsym always
 * names Debian's functions, whatever the global scope holds.
 *
 * Locking: `g.rw` is held for reading while a job runs and for writing while
 * the pool is created or replaced, so a resize never frees a pool under a
 * running job. pthreadpool itself runs one job at a time.
 *
 * pte_threadpool_parallel_for(_2d) do not run on pthreadpool's workers but
 * on a set of our own (`own`, as many as the pthreadpool has, created and
 * replaced with it): with pthreadpool a job ends only when every worker
 * has woken up and checked in, so each job paid a sleeping worker's wake-up
 * (tens of microseconds on a VM) even when the caller had done all the
 * work; a transformer's ~200 split operators per run made 2 threads slower
 * than 1. Here a job ends when its chunks are done: a worker that wakes
 * late finds the job closed and goes back to waiting. Each thread takes
 * a contiguous share of a job's chunks first, then helps with the others'
 * (own_run_chunks). Workers spin a short while after a job (the next
 * operator usually follows within microseconds), yielding while the job
 * they left is still open, then sleep on a futex, so a busy machine loses
 * at most that spin per job. bench/pool_bench.c measures a region's cost. */
#define _GNU_SOURCE
#include <pterun/threadpool.h>

#include <dlfcn.h>
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef PTERUN_PTHREADPOOL_LINKED
#include <pthreadpool.h>
#endif

typedef struct pp_api {
  void *(*create)(size_t threads);
  void (*destroy)(void *pool);
  size_t (*threads_count)(void *pool);
} pp_api;

static struct {
  pthread_rwlock_t rw;
  pthread_once_t once;
  pp_api api;
  bool api_ok;
  char provider[512];
  void *pool;       /* pthreadpool_t, NULL until first use */
  size_t threads;   /* threads of `pool` */
  size_t requested; /* 0 = default */
  int64_t holders;
  atomic_uint_fast64_t created;
} g = {.rw = PTHREAD_RWLOCK_INITIALIZER, .once = PTHREAD_ONCE_INIT};

/* Set on threads while they run a job of ours: nested calls run inline. */
static _Thread_local bool tl_in_job;
/* 0 on submitting threads, 1..workers on our workers (see
 * pte_threadpool_thread_index). */
static _Thread_local size_t tl_index;

/* ---- Our own workers for parallel_for (see the top of the file) ---- */

/* How long a worker spins for the next job before sleeping. */
#define OWN_SPIN_NS 100000

typedef struct own_job {
  pte_parallel_fn fn1;
  pte_parallel_2d_fn fn2;
  void *ctx;
  size_t n, grain;             /* 1-D: items, items per chunk */
  size_t ni, nj, ti, tj, cols; /* 2-D: ranges, tile sizes, tiles per row */
  size_t chunks;
} own_job;

/* A thread's share of a job's chunks: [next, end), taken from the front
 * by the thread that owns it and, once their own share is done, by the
 * others. Own cache line each: a thread takes its chunks without touching
 * another's line. */
typedef struct own_range {
  _Alignas(64) atomic_size_t next;
  size_t end;
} own_range;

static struct {
  pthread_mutex_t submit; /* one job at a time */
  pthread_t *tids;
  size_t workers;
  own_job job; /* written only while `state` is closed and no worker is in */
  /* Job generation << 1 | open. Workers enter a job by raising `inside`,
   * then re-reading `state`: if it is unchanged the caller cannot close
   * and return before they leave. */
  _Atomic uint64_t state;
  atomic_int inside;
  own_range *ranges;    /* one per thread (the caller's first), workers + 1 */
  _Atomic uint32_t seq; /* futex word: bumped per job and on shutdown */
  atomic_int sleepers;
  atomic_bool stop;
  uint32_t start_seq; /* `seq` when the workers were started */
} own = {.submit = PTHREAD_MUTEX_INITIALIZER};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void own_run_chunk(const own_job *j, size_t c) {
  if (j->fn1) {
    size_t b = c * j->grain;
    size_t e = j->n - b < j->grain ? j->n : b + j->grain;
    j->fn1(j->ctx, b, e);
  } else {
    size_t i0 = c / j->cols * j->ti, j0 = c % j->cols * j->tj;
    size_t i1 = j->ni - i0 < j->ti ? j->ni : i0 + j->ti;
    size_t j1 = j->nj - j0 < j->tj ? j->nj : j0 + j->tj;
    j->fn2(j->ctx, i0, i1, j0, j1);
  }
}

/* Thread `self` runs its own share, then helps the others with theirs.
 * Shares are contiguous blocks of chunks in thread order, so consecutive
 * operators split the same way (an image's rows: the caller the top, the
 * worker the bottom) and a thread mostly reads what its own core wrote.
 * With one shared counter a chunk went to whichever thread was free, so
 * (probably) about half of a layer's input came from the other core's
 * cache: MobileNetV2's int8 depthwise layers at 2 threads took 1.16-1.26x
 * the time they take with shares (best of 600 runs each). A thread that starts late (its
 * core busy) delays only the chunks of its share nobody else took yet. */
static void own_run_chunks(size_t self) {
  const own_job *j = &own.job;
  const size_t threads = own.workers + 1;
  for (size_t k = 0; k < threads; k++) {
    own_range *r = &own.ranges[(self + k) % threads];
    for (;;) {
      size_t c = atomic_fetch_add(&r->next, 1);
      if (c >= r->end) break;
      own_run_chunk(j, c);
    }
  }
}

static void *own_worker(void *arg) {
  tl_in_job = true; /* anything a chunk submits runs inline */
  tl_index = (size_t)(uintptr_t)arg;
  /* The count when the pool started: a bump before this thread first ran
   * (a job, or a stop right after the start) is not missed. */
  uint32_t seen = own.start_seq;
  for (;;) {
    if (atomic_load(&own.seq) == seen) {
      uint64_t until = now_ns() + OWN_SPIN_NS;
      for (unsigned k = 1; atomic_load(&own.seq) == seen; k++) {
        cpu_relax();
        if (k % 64 != 0) continue;
        if (now_ns() > until) break;
        /* The job this worker left is still open: its caller has not come
         * back to close it, most likely because this worker, woken on the
         * caller's core (the other one busy), preempted it. Spinning here
         * kept the caller off its core for the whole spin: a region after
         * a pause took ~110 us instead of ~9 (bench_pool, gap 300 us, on a
         * loaded machine). Yielding gives the core back. */
        if (atomic_load(&own.state) & 1) sched_yield();
      }
      /* Counted as a sleeper only when the spin timed out: a job that ended
       * the spin needs no wake-up, and a raised count would make its caller
       * enter the kernel for one (most of MobileNetV2's 53 jobs a run). A
       * job posted after this load still sees the count below: the caller
       * bumps `seq` before it reads `sleepers`, and FUTEX_WAIT returns at
       * once when `seq` moved. */
      if (atomic_load(&own.seq) == seen) {
        atomic_fetch_add(&own.sleepers, 1);
        while (atomic_load(&own.seq) == seen)
          syscall(SYS_futex, &own.seq, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
        atomic_fetch_sub(&own.sleepers, 1);
      }
    }
    seen = atomic_load(&own.seq);
    if (atomic_load(&own.stop)) return NULL;
    uint64_t st = atomic_load(&own.state);
    if (!(st & 1)) continue;
    atomic_fetch_add(&own.inside, 1);
    if (atomic_load(&own.state) == st) own_run_chunks(tl_index);
    atomic_fetch_sub(&own.inside, 1);
  }
}

/* With the write lock held (no job running): `n` threads in all. */
static void own_start_locked(size_t n) {
  if (own.workers || n <= 1) return;
  own.tids = (pthread_t *)calloc(n - 1, sizeof *own.tids);
  own.ranges = (own_range *)aligned_alloc(_Alignof(own_range), n * sizeof *own.ranges);
  if (!own.tids || !own.ranges) {
    free(own.tids), free(own.ranges);
    own.tids = NULL, own.ranges = NULL;
    return;
  }
  atomic_store(&own.stop, false);
  own.start_seq = atomic_load(&own.seq);
  for (size_t i = 0; i + 1 < n; i++) {
    if (pthread_create(&own.tids[i], NULL, own_worker, (void *)(uintptr_t)(i + 1)) != 0) {
      pte_log(PTE_LOG_WARNING, "threadpool: could not start worker %zu of %zu", i + 1, n - 1);
      break;
    }
    own.workers++;
  }
}

static void own_stop_locked(void) {
  if (!own.tids) return;
  atomic_store(&own.stop, true);
  atomic_fetch_add(&own.seq, 1);
  syscall(SYS_futex, &own.seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
  for (size_t i = 0; i < own.workers; i++) pthread_join(own.tids[i], NULL);
  free(own.tids);
  free(own.ranges);
  own.tids = NULL;
  own.ranges = NULL;
  own.workers = 0;
}

/* With the read lock held: run own.job (its fields set by the caller under
 * `submit`) on the workers and the calling thread. */
static void own_run_locked(void) {
  const size_t threads = own.workers + 1, chunks = own.job.chunks;
  /* shares rounded up at their starts: with fewer chunks than threads the
   * caller, which is running already, has one */
  for (size_t t = 0; t < threads; t++) {
    atomic_store(&own.ranges[t].next, (chunks * t + threads - 1) / threads);
    own.ranges[t].end = (chunks * (t + 1) + threads - 1) / threads;
  }
  uint64_t gen = atomic_load(&own.state) >> 1;
  atomic_store(&own.state, ((gen + 1) << 1) | 1);
  atomic_fetch_add(&own.seq, 1);
  if (atomic_load(&own.sleepers) > 0)
    syscall(SYS_futex, &own.seq, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL, NULL, 0);
  tl_in_job = true;
  own_run_chunks(0);
  tl_in_job = false;
  atomic_store(&own.state, (gen + 1) << 1);
  /* Only workers that took chunks are inside now, each finishing its last. */
  for (unsigned k = 1; atomic_load(&own.inside) > 0; k++) {
    cpu_relax();
    if (k % 64 == 0) sched_yield(); /* the worker may be waiting for this core */
  }
}

#ifdef PTERUN_PTHREADPOOL_LINKED
/* Typed shims: pthreadpool_t is an opaque struct pointer, held as void *. */
static void *linked_create(size_t n) { return pthreadpool_create(n); }
static void linked_destroy(void *p) { pthreadpool_destroy((pthreadpool_t)p); }
static size_t linked_threads_count(void *p) { return pthreadpool_get_threads_count((pthreadpool_t)p); }
#endif

static void load_api(void) {
#ifdef PTERUN_PTHREADPOOL_LINKED
  g.api.create = linked_create;
  g.api.destroy = linked_destroy;
  g.api.threads_count = linked_threads_count;
  g.api_ok = true;
  /* Where the dynamic linker bound the calls: Debian's library, or a copy
   * that was in the global scope first (torch's, with RTLD_GLOBAL). */
  Dl_info info;
  void *fn = (void *)&pthreadpool_create;
  snprintf(g.provider, sizeof g.provider, "linked (pthreadpool_create from %s)",
           dladdr(fn, &info) && info.dli_fname ? info.dli_fname : "?");
#else
  char path[448];
#ifdef PTERUN_VENDORED_PTHREADPOOL
  /* The wheel's private copy, renamed like auditwheel does (cmake/vendor.cmake). */
  const char *vendored = PTERUN_VENDORED_PTHREADPOOL;
#else
  const char *vendored = NULL;
#endif
  void *h = pte_library_open_private("libpthreadpool.so.0", "PTERUN_PTHREADPOOL_LIBRARY", vendored, NULL,
                                     path, sizeof path);
  if (!h) {
    snprintf(g.provider, sizeof g.provider, "unavailable: %s", pte_last_error());
    pte_log(PTE_LOG_WARNING, "threadpool: %s; work runs on the calling thread", pte_last_error());
    return;
  }
  g.api.create = (void *(*)(size_t))dlsym(h, "pthreadpool_create");
  g.api.destroy = (void (*)(void *))dlsym(h, "pthreadpool_destroy");
  g.api.threads_count = (size_t(*)(void *))dlsym(h, "pthreadpool_get_threads_count");
  if (!g.api.create || !g.api.destroy || !g.api.threads_count) {
    snprintf(g.provider, sizeof g.provider, "unavailable: %s lacks a pthreadpool function", path);
    pte_log(PTE_LOG_WARNING, "threadpool: %s", g.provider);
    return; /* the handle stays open: harmless, and dlclose could unmap code in use */
  }
  g.api_ok = true;
  snprintf(g.provider, sizeof g.provider, "dlopen(%s, RTLD_LOCAL|RTLD_DEEPBIND)", path);
#endif
}

static size_t default_threads(void) {
  const char *env = getenv("PTERUN_NUM_THREADS");
  if (env && *env) {
    char *end = NULL;
    long v = strtol(env, &end, 10);
    if (end && *end == 0 && v > 0 && v <= 1024) return (size_t)v;
    pte_log(PTE_LOG_WARNING, "threadpool: ignoring PTERUN_NUM_THREADS='%s' (want 1..1024)", env);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return (size_t)n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (size_t)n : 1;
}

static size_t wanted_threads(void) { return g.requested ? g.requested : default_threads(); }

/* With the write lock held: make sure a pool exists (if pthreadpool loaded). */
static void ensure_pool_locked(void) {
  if (g.pool || !g.api_ok) return;
  size_t n = wanted_threads();
  g.pool = g.api.create(n);
  if (!g.pool) {
    pte_log(PTE_LOG_WARNING, "threadpool: pthreadpool_create(%zu) failed; running inline", n);
    return;
  }
  g.threads = g.api.threads_count(g.pool);
  atomic_fetch_add(&g.created, 1);
  own_start_locked(g.threads);
}

/* Take the read lock with a pool in place (or none available). */
static void lock_pool_for_work(void) {
  pthread_once(&g.once, load_api);
  for (;;) {
    pthread_rwlock_rdlock(&g.rw);
    if (g.pool || !g.api_ok) return;
    pthread_rwlock_unlock(&g.rw);
    pthread_rwlock_wrlock(&g.rw);
    ensure_pool_locked();
    bool failed = g.pool == NULL;
    pthread_rwlock_unlock(&g.rw);
    if (failed) {
      pthread_rwlock_rdlock(&g.rw);
      return;
    }
  }
}

void pte_threadpool_parallel_for(size_t n, size_t grain, pte_parallel_fn fn, void *ctx) {
  if (n == 0 || !fn) return;
  if (tl_in_job) {
    fn(ctx, 0, n);
    return;
  }
  lock_pool_for_work();
  size_t threads = g.pool ? own.workers + 1 : 1;
  if (grain == 0) {
    /* About four chunks per thread balances uneven chunks without making
     * the per-chunk overhead matter. */
    grain = n / (threads * 4);
    if (grain == 0) grain = 1;
  }
  if (threads <= 1 || n <= grain) {
    pthread_rwlock_unlock(&g.rw);
    tl_in_job = true;
    fn(ctx, 0, n);
    tl_in_job = false;
    return;
  }
  pthread_mutex_lock(&own.submit);
  own.job = (own_job){.fn1 = fn, .ctx = ctx, .n = n, .grain = grain, .chunks = (n - 1) / grain + 1};
  own_run_locked();
  pthread_mutex_unlock(&own.submit);
  pthread_rwlock_unlock(&g.rw);
}

void pte_threadpool_parallel_for_2d(size_t ni, size_t nj, size_t tile_i, size_t tile_j, pte_parallel_2d_fn fn,
                                    void *ctx) {
  if (ni == 0 || nj == 0 || !fn) return;
  if (tile_i == 0 || tile_i > ni) tile_i = ni;
  if (tile_j == 0 || tile_j > nj) tile_j = nj;
  if (tl_in_job) {
    fn(ctx, 0, ni, 0, nj);
    return;
  }
  lock_pool_for_work();
  size_t threads = g.pool ? own.workers + 1 : 1;
  if (threads <= 1 || (tile_i == ni && tile_j == nj)) {
    pthread_rwlock_unlock(&g.rw);
    tl_in_job = true;
    fn(ctx, 0, ni, 0, nj);
    tl_in_job = false;
    return;
  }
  size_t rows = (ni - 1) / tile_i + 1, cols = (nj - 1) / tile_j + 1;
  pthread_mutex_lock(&own.submit);
  own.job = (own_job){.fn2 = fn,
                      .ctx = ctx,
                      .ni = ni,
                      .nj = nj,
                      .ti = tile_i,
                      .tj = tile_j,
                      .cols = cols,
                      .chunks = rows * cols};
  own_run_locked();
  pthread_mutex_unlock(&own.submit);
  pthread_rwlock_unlock(&g.rw);
}

size_t pte_threadpool_thread_index(void) { return tl_index; }

size_t pte_threadpool_threads(void) {
  pthread_once(&g.once, load_api);
  pthread_rwlock_rdlock(&g.rw);
  size_t n = g.pool ? g.threads : (g.api_ok ? wanted_threads() : 1);
  pthread_rwlock_unlock(&g.rw);
  return n ? n : 1;
}

pte_status pte_threadpool_set_threads(size_t n) {
  if (n > 1024) return pte_error(PTE_ERR_INVALID_ARGUMENT, "threadpool: %zu threads is more than 1024", n);
  if (tl_in_job)
    return pte_error(PTE_ERR_INVALID_STATE, "threadpool: cannot resize the pool from inside a parallel job");
  pthread_once(&g.once, load_api);
  pthread_rwlock_wrlock(&g.rw);
  size_t want = n ? n : default_threads();
  pte_status st = PTE_OK;
  if (g.pool && g.threads != want) {
    if (g.holders > 0) {
      st = pte_error(PTE_ERR_INVALID_STATE,
                     "threadpool: cannot resize from %zu to %zu threads while %lld holder(s) (e.g. "
                     "loaded XNNPACK delegates) use the pool; free those methods first",
                     g.threads, want, (long long)g.holders);
    } else {
      g.api.destroy(g.pool);
      own_stop_locked();
      g.pool = NULL;
      g.threads = 0;
    }
  }
  if (!st) g.requested = n;
  pthread_rwlock_unlock(&g.rw);
  return st;
}

void *pte_threadpool_pthreadpool(void) {
  pthread_once(&g.once, load_api);
  pthread_rwlock_wrlock(&g.rw);
  ensure_pool_locked();
  void *p = g.pool;
  pthread_rwlock_unlock(&g.rw);
  return p;
}

void *pte_threadpool_acquire(void) {
  pthread_once(&g.once, load_api);
  pthread_rwlock_wrlock(&g.rw);
  ensure_pool_locked();
  g.holders++;
  void *p = g.pool;
  pthread_rwlock_unlock(&g.rw);
  return p;
}

void pte_threadpool_release(void) {
  pthread_rwlock_wrlock(&g.rw);
  if (g.holders > 0) g.holders--;
  pthread_rwlock_unlock(&g.rw);
}

const void *pte_threadpool_identity(void) { return &g; }

uint64_t pte_threadpool_pools_created(void) { return (uint64_t)atomic_load(&g.created); }

const char *pte_threadpool_provider(void) {
  pthread_once(&g.once, load_api);
  return g.provider;
}
