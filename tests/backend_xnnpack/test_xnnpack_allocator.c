/* The delegate allocates through the caller's pte_allocator: delegated
 * programs are loaded and run with a counting allocator while malloc and
 * friends are interposed (tests/common/alloc_count.c), and
 *  (a) the method load allocates through the allocator, and makes no heap
 *      allocation besides XNNPACK's own (its xnn_allocator, counted by the
 *      backend's statistics);
 *  (b) freeing the method and the program returns every byte to it, and
 *      XNNPACK's live bytes go back to where they were;
 *  (c) execute allocates nothing, from the allocator or the heap.
 *   test_xnnpack_allocator CASE_ROOT... (directories holding cases) */
#define _GNU_SOURCE
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>

#include <stdlib.h>
#include <string.h>

#include "../common/alloc_count.h"
#include "xnn_test_util.h"

/* glibc's own entry points: the counting allocator must not count itself
 * as a heap allocation. */
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

typedef struct counting {
  long allocs, frees;
  long long live;
} counting;

/* In front of each block: the offset back to the underlying allocation and
 * the size. */
static void *c_alloc(void *user, size_t size, size_t alignment) {
  counting *c = (counting *)user;
  size_t a = alignment < 16 ? 16 : alignment;
  if (a & (a - 1)) return NULL;
  uint8_t *raw = (uint8_t *)__libc_memalign(a, size + a);
  if (!raw) return NULL;
  uint8_t *p = raw + a;
  ((size_t *)p)[-2] = a;
  ((size_t *)p)[-1] = size;
  c->allocs++;
  c->live += (long long)size;
  return p;
}

static void c_free(void *user, void *ptr) {
  if (!ptr) return;
  counting *c = (counting *)user;
  c->frees++;
  c->live -= (long long)((size_t *)ptr)[-1];
  __libc_free((uint8_t *)ptr - ((size_t *)ptr)[-2]);
}

static int delegated = 0;

static void run_case(const char *dir, bool measure) {
  counting cnt = {0, 0, 0};
  const pte_allocator A = {&cnt, c_alloc, c_free};
  char path[1200];
  xt_case c;
  xt_load_case(dir, &c);
  pte_data_map *map = NULL;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.allocator = &A;
  if (c.has_data) {
    snprintf(path, sizeof path, "%s/model.ptd", dir);
    XT_CHECK(pte_data_map_load_file(path, &A, &map) == PTE_OK, "%s", pte_last_error());
    po.data_maps = &map, po.num_data_maps = 1;
  }
  snprintf(path, sizeof path, "%s/model.pte", dir);
  pte_program *prog = NULL;
  pte_method *m = NULL;
  XT_CHECK(pte_program_load_file(path, &po, &prog) == PTE_OK, "%s: %s", dir, pte_last_error());
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  mo.allocator = &A;
  pte_backend_xnnpack_stats s0, s1, s2;
  pte_backend_xnnpack_get_stats(&s0);
  long before = cnt.allocs;
  alloc_count_start();
  if (prog) XT_CHECK(pte_method_load(prog, c.method, &mo, &m) == PTE_OK, "%s: %s", dir, pte_last_error());
  long heap = alloc_count_stop();
  pte_backend_xnnpack_get_stats(&s1);
  long at_load = cnt.allocs - before;
  uint64_t xnn = s1.xnn_allocations - s0.xnn_allocations;
  if (m && measure && s1.delegates_built > s0.delegates_built) {
    delegated++;
    XT_CHECK(at_load > 0, "%s: nothing allocated through the allocator at load", dir);
    XT_CHECK(heap == (long)xnn, "%s: %ld heap allocation(s) at load besides XNNPACK's own %llu", dir,
             heap - (long)xnn, (unsigned long long)xnn);
    xt_tensors in;
    if (!c.expect_run_error[0] && xt_load_npys(dir, "inputs", &in)) {
      long a0 = cnt.allocs, calls = 0;
      for (int r = 0; r < 4; r++) {
        /* Inputs every time: planned input memory may be reused by the run. */
        for (int i = 0; i < in.n; i++)
          XT_CHECK(pte_method_set_input_tensor(m, i, &in.t[i]) == PTE_OK, "%s: %s", dir, pte_last_error());
        /* init set everything up: the first run allocates nothing either */
        if (r == 0) alloc_count_start(), a0 = cnt.allocs;
        XT_CHECK(pte_method_execute(m) == PTE_OK, "%s: %s", dir, pte_last_error());
      }
      calls = alloc_count_stop();
      XT_CHECK(calls == 0 && cnt.allocs == a0, "%s: execute allocated (%ld heap, %ld allocator)", dir, calls,
               cnt.allocs - a0);
      xt_free_tensors(&in);
    }
    printf("%s: load: %ld allocator allocations (%lld bytes live), %llu XNNPACK allocations, no other\n", dir,
           at_load, cnt.live, (unsigned long long)xnn);
  }
  pte_method_free(m);
  pte_program_free(prog);
  pte_data_map_free(map);
  pte_backend_xnnpack_get_stats(&s2);
  if (measure) {
    XT_CHECK(cnt.allocs == cnt.frees && cnt.live == 0, "%s: %ld of %ld allocations (%lld bytes) not freed",
             dir, cnt.allocs - cnt.frees, cnt.allocs, cnt.live);
    XT_CHECK(s2.delegates_live == s0.delegates_live && s2.xnn_live_bytes == s0.xnn_live_bytes,
             "%s: %lld XNNPACK bytes still live", dir, (long long)(s2.xnn_live_bytes - s0.xnn_live_bytes));
  }
}

int main(int argc, char **argv) {
  XT_CHECK(pte_kernels_portable_register() == PTE_OK && pte_backend_xnnpack_register() == PTE_OK, "%s",
           pte_last_error());
  bool warm = false;
  for (int a = 1; a < argc; a++) {
    char **list = NULL;
    int n = xt_find_cases(argv[a], &list);
    for (int i = 0; i < n; i++) {
      /* The first load opens XNNPACK and starts the pool (once per process). */
      if (!warm) run_case(list[i], false), warm = true;
      run_case(list[i], true);
    }
    xt_free_list(list, n);
  }
  XT_CHECK(delegated > 0, "no delegated program was loaded");
  printf("%d delegated program(s), %d check(s) failed\n", delegated, xt_failures);
  return xt_failures ? 1 : 0;
}
