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
 * running job. pthreadpool itself runs one job at a time. */
#define _GNU_SOURCE
#include <pterun/threadpool.h>

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PTERUN_PTHREADPOOL_LINKED
#include <pthreadpool.h>
#endif

typedef void (*pp_task_1d_tile_1d)(void *, size_t, size_t);
typedef void (*pp_task_2d_tile_2d)(void *, size_t, size_t, size_t, size_t);

typedef struct pp_api {
  void *(*create)(size_t threads);
  void (*destroy)(void *pool);
  size_t (*threads_count)(void *pool);
  void (*parallelize_1d_tile_1d)(void *pool, pp_task_1d_tile_1d fn, void *ctx, size_t range, size_t tile,
                                 uint32_t flags);
  void (*parallelize_2d_tile_2d)(void *pool, pp_task_2d_tile_2d fn, void *ctx, size_t range_i, size_t range_j,
                                 size_t tile_i, size_t tile_j, uint32_t flags);
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

/* pthreadpool's PTHREADPOOL_FLAG_YIELD_WORKERS: workers go to sleep after a
 * job instead of spinning, so on a busy machine they do not take the core a
 * running thread of the next job needs (spinning cost milliseconds per run
 * there). The value is part of pthreadpool's ABI. */
#ifdef PTERUN_PTHREADPOOL_LINKED
#define YIELD_WORKERS PTHREADPOOL_FLAG_YIELD_WORKERS
#else
#define YIELD_WORKERS 0x00000002u
#endif

#ifdef PTERUN_PTHREADPOOL_LINKED
/* Typed shims: pthreadpool_t is an opaque struct pointer, held as void *. */
static void *linked_create(size_t n) { return pthreadpool_create(n); }
static void linked_destroy(void *p) { pthreadpool_destroy((pthreadpool_t)p); }
static size_t linked_threads_count(void *p) { return pthreadpool_get_threads_count((pthreadpool_t)p); }
static void linked_1d_tile_1d(void *p, pp_task_1d_tile_1d fn, void *ctx, size_t range, size_t tile,
                              uint32_t flags) {
  pthreadpool_parallelize_1d_tile_1d((pthreadpool_t)p, fn, ctx, range, tile, flags);
}
static void linked_2d_tile_2d(void *p, pp_task_2d_tile_2d fn, void *ctx, size_t ri, size_t rj, size_t ti,
                              size_t tj, uint32_t flags) {
  pthreadpool_parallelize_2d_tile_2d((pthreadpool_t)p, fn, ctx, ri, rj, ti, tj, flags);
}
#endif

static void load_api(void) {
#ifdef PTERUN_PTHREADPOOL_LINKED
  g.api.create = linked_create;
  g.api.destroy = linked_destroy;
  g.api.threads_count = linked_threads_count;
  g.api.parallelize_1d_tile_1d = linked_1d_tile_1d;
  g.api.parallelize_2d_tile_2d = linked_2d_tile_2d;
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
  g.api.parallelize_1d_tile_1d = (void (*)(void *, pp_task_1d_tile_1d, void *, size_t, size_t,
                                           uint32_t))dlsym(h, "pthreadpool_parallelize_1d_tile_1d");
  g.api.parallelize_2d_tile_2d = (void (*)(void *, pp_task_2d_tile_2d, void *, size_t, size_t, size_t, size_t,
                                           uint32_t))dlsym(h, "pthreadpool_parallelize_2d_tile_2d");
  if (!g.api.create || !g.api.destroy || !g.api.threads_count || !g.api.parallelize_1d_tile_1d ||
      !g.api.parallelize_2d_tile_2d) {
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

typedef struct job1 {
  pte_parallel_fn fn;
  void *ctx;
} job1;

static void run_1d(void *p, size_t start, size_t count) {
  const job1 *j = (const job1 *)p;
  bool outer = tl_in_job;
  tl_in_job = true;
  j->fn(j->ctx, start, start + count);
  tl_in_job = outer;
}

void pte_threadpool_parallel_for(size_t n, size_t grain, pte_parallel_fn fn, void *ctx) {
  if (n == 0 || !fn) return;
  if (tl_in_job) {
    fn(ctx, 0, n);
    return;
  }
  lock_pool_for_work();
  size_t threads = g.pool ? g.threads : 1;
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
  job1 j = {fn, ctx};
  g.api.parallelize_1d_tile_1d(g.pool, run_1d, &j, n, grain, YIELD_WORKERS);
  pthread_rwlock_unlock(&g.rw);
}

typedef struct job2 {
  pte_parallel_2d_fn fn;
  void *ctx;
} job2;

static void run_2d(void *p, size_t i, size_t j, size_t ti, size_t tj) {
  const job2 *jb = (const job2 *)p;
  bool outer = tl_in_job;
  tl_in_job = true;
  jb->fn(jb->ctx, i, i + ti, j, j + tj);
  tl_in_job = outer;
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
  size_t threads = g.pool ? g.threads : 1;
  if (threads <= 1 || (tile_i == ni && tile_j == nj)) {
    pthread_rwlock_unlock(&g.rw);
    tl_in_job = true;
    fn(ctx, 0, ni, 0, nj);
    tl_in_job = false;
    return;
  }
  job2 j = {fn, ctx};
  g.api.parallelize_2d_tile_2d(g.pool, run_2d, &j, ni, nj, tile_i, tile_j, YIELD_WORKERS);
  pthread_rwlock_unlock(&g.rw);
}

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
