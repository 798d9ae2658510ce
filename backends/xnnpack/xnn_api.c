/* Resolving Debian's XNNPACK (see xnn_api.h for why through dlopen). */
#define _GNU_SOURCE
#include "xnn_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

atomic_uint_fast64_t xnn_api_allocations;
atomic_int_fast64_t xnn_api_live_bytes;
void (*xnn_api_watch)(const void *block, size_t size, bool live);

static xnn_api g_api;
static const xnn_api *g_ok;
static char g_why[512];
static char g_provider[512];
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* XNNPACK allocates through these (xnn_initialize takes them on its first
 * call), which lets tests prove that execute allocates nothing and keeps
 * hostile sizes from reaching malloc. In front of each block sit its size
 * and the offset back to the start of the underlying allocation. */
#define XA_MIN_ALIGN 64
#define XA_LIMIT ((size_t)1 << 35)

static void *xa_aligned_allocate(void *ctx, size_t alignment, size_t size) {
  (void)ctx;
  size_t a = alignment > XA_MIN_ALIGN ? alignment : XA_MIN_ALIGN;
  if (size > XA_LIMIT || a > 4096 || (a & (a - 1))) return NULL;
  void *raw = NULL;
  if (posix_memalign(&raw, a, size + a)) return NULL;
  uint8_t *p = (uint8_t *)raw + a;
  ((size_t *)p)[-2] = size;
  ((size_t *)p)[-1] = a;
  atomic_fetch_add(&xnn_api_allocations, 1);
  atomic_fetch_add(&xnn_api_live_bytes, (int_fast64_t)size);
  if (xnn_api_watch) xnn_api_watch(p, size, true);
  return p;
}

static void *xa_allocate(void *ctx, size_t size) { return xa_aligned_allocate(ctx, XA_MIN_ALIGN, size); }

static void xa_deallocate(void *ctx, void *p) {
  (void)ctx;
  if (!p) return;
  if (xnn_api_watch) xnn_api_watch(p, ((size_t *)p)[-2], false);
  atomic_fetch_sub(&xnn_api_live_bytes, (int_fast64_t)((size_t *)p)[-2]);
  free((uint8_t *)p - ((size_t *)p)[-1]);
}

static void *xa_reallocate(void *ctx, void *p, size_t size) {
  if (!p) return xa_allocate(ctx, size);
  void *q = xa_allocate(ctx, size);
  if (!q) return NULL; /* the old block stays valid, as XNNPACK expects */
  size_t old = ((size_t *)p)[-2];
  memcpy(q, p, old < size ? old : size);
  xa_deallocate(ctx, p);
  return q;
}

static const struct xnn_allocator g_allocator = {NULL,          xa_allocate,         xa_reallocate,
                                                 xa_deallocate, xa_aligned_allocate, xa_deallocate};

static void load(void) {
#ifdef PTERUN_XNNPACK_LINKED
#define XNN_API_LINK(name) g_api.name = &name;
  XNN_API_FUNCTIONS(XNN_API_LINK)
#undef XNN_API_LINK
  snprintf(g_provider, sizeof g_provider, "linked");
#else
  const char *soname = "libXNNPACK.so.0";
  char path[448];
#ifdef PTERUN_VENDORED_XNNPACK
  /* The wheel's private copy, renamed like auditwheel does (cmake/vendor.cmake);
   * its DT_NEEDED names the renamed pthreadpool and cpuinfo beside it. */
  const char *vendored = PTERUN_VENDORED_XNNPACK;
#else
  const char *vendored = NULL;
#endif
  /* A copy under its own soname finds its dependencies by soname: copies
   * beside it are loaded first (the thread pool has loaded pthreadpool). */
  static const char *const deps[] = {"libcpuinfo.so.0", "libpthreadpool.so.0", NULL};
  void *h = pte_library_open_private(soname, "PTERUN_XNNPACK_LIBRARY", vendored, deps, path, sizeof path);
  if (!h) {
    snprintf(g_why, sizeof g_why, "%s; install libxnnpack0 (Debian/Ubuntu)", pte_last_error());
    snprintf(g_provider, sizeof g_provider, "unavailable");
    return;
  }
#define XNN_API_SYM(name)                                                                           \
  g_api.name = (__typeof__(&name))dlsym(h, #name);                                                  \
  if (!g_api.name) {                                                                                \
    snprintf(g_why, sizeof g_why, "%s has no %s: not the XNNPACK this build expects", path, #name); \
    return;                                                                                         \
  }
  XNN_API_FUNCTIONS(XNN_API_SYM)
#undef XNN_API_SYM
  snprintf(g_provider, sizeof g_provider, "dlopen(%s, RTLD_LOCAL|RTLD_DEEPBIND)", path);
#endif
  enum xnn_status st = g_api.xnn_initialize(&g_allocator);
  if (st != xnn_status_success) {
    snprintf(g_why, sizeof g_why, "xnn_initialize failed: %s", xnn_api_status(st));
    return;
  }
  g_ok = &g_api;
}

const xnn_api *xnn_api_get(const char **why) {
  pthread_once(&g_once, load);
  if (!g_ok && why) *why = g_why;
  return g_ok;
}

const char *xnn_api_provider(void) {
  pthread_once(&g_once, load);
  return g_provider;
}

const char *xnn_api_status(int status) {
  switch (status) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid parameter";
    case xnn_status_invalid_state: return "invalid state";
    case xnn_status_unsupported_parameter: return "unsupported parameter";
    case xnn_status_unsupported_hardware: return "unsupported hardware";
    case xnn_status_out_of_memory: return "out of memory";
    default: return "unknown status";
  }
}
