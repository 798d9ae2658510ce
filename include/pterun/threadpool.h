/*
 * pterun thread pool (libpterun_threadpool): the one pool of worker threads
 * of a process, shared by every kernel library and by the XNNPACK delegate.
 *
 * It wraps a pthreadpool (Debian's libpthreadpool) so XNNPACK can run on it
 * too; parallel_for runs on a second set of as many workers, created and
 * resized with the pthreadpool, whose jobs end as soon as their chunks are
 * done instead of waiting for every worker to wake up. The pool is created
 * on first use with one thread per CPU this process may run on
 * (sched_getaffinity), or PTERUN_NUM_THREADS if that is set in the
 * environment, or what pte_threadpool_set_threads() asked for.
 *
 * Work submitted from several threads at once is run one job after the other
 * (one job at a time); a parallel_for called from inside a
 * parallel_for runs inline on the calling worker, so nesting cannot deadlock.
 */
#ifndef PTERUN_THREADPOOL_H
#define PTERUN_THREADPOOL_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Body of a 1-D loop: handle items [begin, end). */
typedef void (*pte_parallel_fn)(void *ctx, size_t begin, size_t end);

/* Body of a 2-D loop: handle the tile rows [i0, i1) x columns [j0, j1). */
typedef void (*pte_parallel_2d_fn)(void *ctx, size_t i0, size_t i1, size_t j0, size_t j1);

/* Run fn over [0, n) on the pool, in chunks of `grain` items (0: chosen from
 * n and the thread count). Returns when every chunk is done. Runs inline when
 * there is one thread, one chunk, or when called from a pool worker. */
PTE_API void pte_threadpool_parallel_for(size_t n, size_t grain, pte_parallel_fn fn, void *ctx);

/* Run fn over [0, ni) x [0, nj) in tiles of tile_i x tile_j (0: whole range
 * along that axis). */
PTE_API void pte_threadpool_parallel_for_2d(size_t ni, size_t nj, size_t tile_i, size_t tile_j,
                                            pte_parallel_2d_fn fn, void *ctx);

/* Threads the pool has (or will have when created), the calling thread
 * included. Never 0. */
PTE_API size_t pte_threadpool_threads(void);

/* Which thread of the pool runs the caller: 0 for a thread that submits
 * jobs (and any thread outside the pool), 1 .. threads - 1 for the workers.
 * Lets a job with more chunks than threads keep per-thread scratch: chunks
 * use slot pte_threadpool_thread_index(), below pte_threadpool_threads(). */
PTE_API size_t pte_threadpool_thread_index(void);

/* Resize the pool to `n` threads (0: back to the default). Waits for running
 * parallel_for calls to finish. Fails with PTE_ERR_INVALID_STATE while a
 * holder (see pte_threadpool_acquire, e.g. a loaded XNNPACK delegate) keeps
 * the current pool, because XNNPACK runtimes keep the pool they were built
 * with: free those methods first. Asking for the current size always succeeds. */
PTE_API pte_status pte_threadpool_set_threads(size_t n);

/* The underlying pthreadpool_t (created if needed), or NULL when the
 * pthreadpool library could not be loaded (everything then runs on the
 * calling thread). Does not keep the pool alive across set_threads; long-term
 * users call pte_threadpool_acquire instead. */
PTE_API void *pte_threadpool_pthreadpool(void);

/* Like pte_threadpool_pthreadpool, and keeps the pool from being replaced by
 * pte_threadpool_set_threads until the matching pte_threadpool_release. */
PTE_API void *pte_threadpool_acquire(void);
PTE_API void pte_threadpool_release(void);

/* Address of this library's pool state: equal in every component of a
 * process that shares one pool (tests use it to prove there is one). */
PTE_API const void *pte_threadpool_identity(void);

/* Number of pthreadpools this process created so far (a resize creates a new
 * one); lets tests check that nothing made a second pool. */
PTE_API uint64_t pte_threadpool_pools_created(void);

/* How pthreadpool was resolved: e.g. "dlopen(libpthreadpool.so.0, RTLD_DEEPBIND)",
 * "linked", or "unavailable: <reason>". */
PTE_API const char *pte_threadpool_provider(void);

#ifdef __cplusplus
}
#endif

#endif
