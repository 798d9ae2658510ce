/*
 * pterun XNNPACK delegate (libpterun_backend_xnnpack): runs the
 * `XnnpackBackend` delegates that ExecuTorch's XnnpackPartitioner writes,
 * on Debian's XNNPACK (the 2022 snapshot in libxnnpack-dev), with pterun's
 * own fp32 code for the node types that XNNPACK lacks. See
 * backends/xnnpack/README.md for the supported node types.
 *
 * Linking the shared library is enough: it registers itself when loaded. A
 * static build calls pte_backend_xnnpack_register() once instead.
 *
 * Environment: PTERUN_XNNPACK_LIBRARY (path of libXNNPACK.so.0 to use),
 * PTERUN_XNNPACK_NATIVE=1 (run every node pterun can run itself natively,
 * for testing), PTERUN_XNNPACK_VERBOSE=1 (log where each delegate's nodes
 * run), PTERUN_NUM_THREADS (pool size, see pterun/threadpool.h).
 */
#ifndef PTERUN_BACKEND_XNNPACK_H
#define PTERUN_BACKEND_XNNPACK_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register the backend named "XnnpackBackend". Idempotent. */
PTE_API pte_status pte_backend_xnnpack_register(void);

/* The backend struct (for registries that want it, and tests). */
PTE_API const pte_backend *pte_backend_xnnpack_backend(void);

/* Delegate executions that completed, process-wide. Tests compare it before
 * and after running a method to prove the delegate really ran. */
PTE_API uint64_t pte_backend_xnnpack_executions(void);

typedef struct pte_backend_xnnpack_stats {
  uint64_t executions;      /* delegate executions that completed */
  uint64_t xnn_invocations; /* XNNPACK runtime invocations */
  uint64_t native_nodes;    /* nodes run by pterun's own code */
  uint64_t delegates_built; /* delegates initialised so far */
  int64_t delegates_live;   /* initialised and not yet destroyed */
  int64_t runtimes_live;    /* XNNPACK runtimes alive */
  uint64_t xnn_allocations; /* allocations XNNPACK made (through pterun's allocator) */
  int64_t xnn_live_bytes;   /* bytes XNNPACK holds now */
  const void *threadpool;   /* the pthreadpool_t given to XNNPACK (NULL: none yet) */
} pte_backend_xnnpack_stats;

PTE_API void pte_backend_xnnpack_get_stats(pte_backend_xnnpack_stats *out);

/* How XNNPACK was resolved: "dlopen(<path>, RTLD_LOCAL|RTLD_DEEPBIND)",
 * "linked", or "unavailable". */
PTE_API const char *pte_backend_xnnpack_provider(void);

#ifdef __cplusplus
}
#endif

#endif
