#define _GNU_SOURCE
#include "alloc_count.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_int g_counting;
static atomic_long g_allocs;

void alloc_count_start(void) {
  atomic_store(&g_allocs, 0);
  atomic_store(&g_counting, 1);
}

long alloc_count_stop(void) {
  atomic_store(&g_counting, 0);
  return atomic_load(&g_allocs);
}

static inline void count(void) {
  if (atomic_load_explicit(&g_counting, memory_order_relaxed))
    atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
}

void *malloc(size_t n);
void *calloc(size_t a, size_t b);
void *realloc(void *p, size_t n);
void *memalign(size_t a, size_t n);
void *aligned_alloc(size_t a, size_t n);
int posix_memalign(void **out, size_t a, size_t n);
void free(void *p);

void *malloc(size_t n) {
  count();
  return __libc_malloc(n);
}

void *calloc(size_t a, size_t b) {
  count();
  return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n) {
  count();
  return __libc_realloc(p, n);
}

void *memalign(size_t a, size_t n) {
  count();
  return __libc_memalign(a, n);
}

void *aligned_alloc(size_t a, size_t n) {
  count();
  return __libc_memalign(a, n);
}

int posix_memalign(void **out, size_t a, size_t n) {
  count();
  void *p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

void free(void *p) { __libc_free(p); }
