/* Internal declarations shared by the runtime's own source files. */
#ifndef PTERUN_RUNTIME_INTERNAL_H
#define PTERUN_RUNTIME_INTERNAL_H

#include <pterun/runtime.h>

#include <stdarg.h>

#if defined(__GNUC__)
#define PTE_LIKELY(x) __builtin_expect(!!(x), 1)
#define PTE_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PTE_LIKELY(x) (x)
#define PTE_UNLIKELY(x) (x)
#endif

/* errors.c */
pte_status pte_verror(pte_status status, const char *fmt, va_list ap);
/* Prefix the current thread's error message with "<prefix>: ". */
void pte_error_prefix(const char *fmt, ...) PTE_PRINTF(1, 2);

/* alloc.c */
void *pte_alloc(const pte_allocator *a, size_t size, size_t alignment);
void pte_free(const pte_allocator *a, void *p);
/* size bytes of zero pages from the system (page-aligned; untouched pages
 * cost no memory), or NULL where it has none or refuses; freed by
 * pte_pages_free with the same size. */
void *pte_pages_zeroed(size_t size);
void pte_pages_free(void *p, size_t size);
size_t pte_page_size(void);

/* Overflow-checked size arithmetic: false on overflow. */
static inline bool pte_add_ok(size_t a, size_t b, size_t *out) { return !__builtin_add_overflow(a, b, out); }
static inline bool pte_mul_ok(size_t a, size_t b, size_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline size_t pte_align_up(size_t n, size_t a) { return (n + a - 1) & ~(a - 1); }

/* tensor.c: recompute strides from sizes and dim order. */
void pte_tensor_compute_strides(pte_tensor *t);

/* registry.c */
const pte_kernel_library *pte_prim_ops_library(void); /* built-in prim ops */
const pte_kernel *pte_operator_resolve(const char *name, pte_value *const *args, int32_t nargs,
                                       const char **library);

/* platform/file.c: whole-file mapping */
typedef struct pte_file_map {
  void *data;
  size_t size;
  int mapped; /* 1: munmap, 0: free with allocator */
} pte_file_map;
pte_status pte_file_map_open(const char *path, uint32_t flags, const pte_allocator *a, pte_file_map *out);
void pte_file_map_close(pte_file_map *m, const pte_allocator *a);
/* Give back the whole pages of [p, p + n) if they lie in m, a private
 * read-only file mapping (not locked): they read back from the file. */
void pte_file_map_release(const pte_file_map *m, uint32_t flags, const void *p, size_t n);

/* kernel/: whether the named kernel library is registered and enabled, and
 * the registered rewrite rules (of enabled libraries), at most max */
bool pte_kernel_library_enabled(const char *name);
int32_t pte_rewrite_rules(const pte_rewrite_rule **out, int32_t max);

/* platform/mutex.c: the registries' lock */
void pte_registry_lock(void);
void pte_registry_unlock(void);

#endif
