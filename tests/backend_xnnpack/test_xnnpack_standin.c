/* The addresses XNNPACK records at a delegate's first setup (at init, before
 * any argument or lent workspace exists) hold none of XNNPACK's own blocks.
 *
 * Why it matters: 2022 XNNPACK's pooling and convolutions keep an
 * indirection buffer of input addresses from the first setup, move later
 * runs by an offset, and tell padding from input by comparing each recorded
 * address with their zero buffer. A stand-in address equal to that buffer's
 * is never moved: the pixel reads zeros at every run. This happened to
 * zoo/xnnpack/small_cnn's average pooling in one Python process of four: the
 * lent workspace's stand-in was smaller than its layout, whose addresses ran
 * on into the heap.
 *
 * Every delegate of the cases is built with a workspace of its own and with
 * one lent. A spy on xnn_setup_runtime records each segment's pointers, and
 * XNNPACK's blocks are watched (xnn_api_watch). Once the delegate is built,
 * the extent of every value at its recorded pointer must miss every block
 * XNNPACK still holds.
 *   test_xnnpack_standin CASE_ROOT... */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_portable.h>

#include <stdlib.h>
#include <string.h>

#include "xnn_api.h"
#include "xnn_delegate.h"
#include "xnn_test_util.h"

/* ---- XNNPACK's live blocks ---- */

typedef struct block {
  uintptr_t at;
  size_t size;
} block;

static block *blocks;
static size_t nblocks, cap_blocks;

static void watch(const void *p, size_t size, bool live) {
  if (!live) {
    for (size_t i = 0; i < nblocks; i++)
      if (blocks[i].at == (uintptr_t)p) {
        blocks[i] = blocks[--nblocks];
        return;
      }
    return;
  }
  if (nblocks == cap_blocks) {
    size_t cap = cap_blocks ? 2 * cap_blocks : 256;
    block *b = (block *)realloc(blocks, cap * sizeof *b);
    if (!b) abort();
    blocks = b, cap_blocks = cap;
  }
  blocks[nblocks++] = (block){(uintptr_t)p, size};
}

/* ---- the setups' pointers ---- */

typedef struct setup {
  size_t n;
  uintptr_t *ptr;
} setup;

static setup *setups;
static size_t nsetups, cap_setups;
static __typeof__(&xnn_setup_runtime) real_setup;

static enum xnn_status spy_setup(xnn_runtime_t rt, size_t n, const struct xnn_external_value *ext) {
  if (nsetups == cap_setups) {
    size_t cap = cap_setups ? 2 * cap_setups : 64;
    setup *s = (setup *)realloc(setups, cap * sizeof *s);
    if (!s) abort();
    setups = s, cap_setups = cap;
  }
  setup *s = &setups[nsetups++];
  s->n = n;
  s->ptr = (uintptr_t *)calloc(n + 1, sizeof *s->ptr);
  if (!s->ptr) abort();
  for (size_t j = 0; j < n; j++)
    if (ext[j].id < n) s->ptr[ext[j].id] = (uintptr_t)ext[j].data;
  return real_setup(rt, n, ext);
}

static void forget_setups(void) {
  for (size_t i = 0; i < nsetups; i++) free(setups[i].ptr);
  nsetups = 0;
}

/* ---- one delegate ---- */

static int delegates, checked_values, segments_seen;

typedef struct target {
  pte_backend_init_ctx *ctx;
} target;

static pte_status named(void *user, const char *key, const void **data, size_t *size) {
  return pte_backend_named_data(((target *)user)->ctx, key, data, size);
}

/* The build's own segments set up last, in order (a refused node rebuilds
 * the delegate: the earlier attempt's setups come first). */
static void check(const char *what, const xg_delegate *d) {
  const xg_graph *g = xg_delegate_graph(d);
  const xg_plan *p = xg_delegate_plan(d);
  XT_CHECK(nsetups >= p->nsegs, "%s: %zu setup(s) for %u runtime(s)", what, nsetups, p->nsegs);
  if (nsetups < p->nsegs) return;
  const setup *first = &setups[nsetups - p->nsegs];
  for (uint32_t s = 0; s < p->nsegs; s++) {
    const xg_segment *seg = &p->segs[s];
    const setup *su = &first[s];
    XT_CHECK(su->n == seg->nexternal, "%s: runtime %u set up with %zu values, has %u", what, s, su->n,
             seg->nexternal);
    if (su->n != seg->nexternal) continue;
    segments_seen++;
    for (uint32_t j = 0; j < seg->nexternal; j++) {
      const uint32_t vi = p->seg_ext[seg->ext_first + j];
      const uintptr_t at = su->ptr[j];
      const size_t bytes = g->values[vi].nbytes;
      checked_values++;
      for (size_t b = 0; b < nblocks; b++)
        XT_CHECK(!(at < blocks[b].at + blocks[b].size && blocks[b].at < at + bytes),
                 "%s: runtime %u's value %u (%zu bytes at %#lx) was set up over XNNPACK's block of %zu "
                 "bytes at %#lx",
                 what, s, vi, bytes, (unsigned long)at, blocks[b].size, (unsigned long)blocks[b].at);
    }
  }
}

static pte_status spy_init(void *user, pte_backend_init_ctx *ctx, const void *processed, size_t size,
                           const pte_compile_spec *specs, int32_t nspecs, void **handle) {
  const char *dir = xt_current_case;
  (void)user, (void)specs, (void)nspecs;
  target t = {ctx};
  for (int lent = 0; lent < 2; lent++) {
    xg_mem mem = {NULL, NULL, 0};
    xg_delegate *d = NULL;
    xg_options opts = {false, NULL, 0, false, lent != 0};
    forget_setups();
    pte_status st = xg_delegate_create(processed, size, named, &t, &mem, &opts, &d);
    char what[1400];
    snprintf(what, sizeof what, "%s, delegate %d%s", dir, delegates, lent ? " (lent workspace)" : "");
    XT_CHECK(st == PTE_OK, "%s: %s", what, pte_last_error());
    if (!st) {
      check(what, d);
      xg_delegate_destroy(d);
    }
    xg_mem_release(&mem);
  }
  delegates++;
  *handle = NULL;
  return PTE_OK;
}

static pte_status spy_execute(void *user, pte_backend_exec_ctx *ctx, void *h, pte_value **args,
                              int32_t nargs) {
  (void)user, (void)ctx, (void)h, (void)args, (void)nargs;
  return PTE_ERR_NOT_SUPPORTED;
}

int main(int argc, char **argv) {
  /* Watching from before xnn_initialize: every block XNNPACK holds is known. */
  xnn_api_watch = watch;
  const char *why = NULL;
  xnn_api *api = (xnn_api *)xnn_api_get(&why); /* the table itself is not const */
  if (!api) {
    fprintf(stderr, "XNNPACK unavailable: %s\n", why);
    return 1;
  }
  real_setup = api->xnn_setup_runtime;
  api->xnn_setup_runtime = spy_setup;
  static const pte_backend spy = PTE_BACKEND_INIT("XnnpackBackend", NULL, NULL, spy_init, spy_execute, NULL);
  if (pte_kernels_portable_register() || pte_register_backend(&spy)) {
    fprintf(stderr, "%s\n", pte_last_error());
    return 1;
  }
  xt_init_delegates(argc - 1, argv + 1, NULL);
  forget_setups();
  free(setups), free(blocks);
  printf("%d delegate(s) built twice: %d runtime(s), %d value(s) checked; %d check(s) failed\n", delegates,
         segments_seen, checked_values, xt_failures);
  XT_CHECK(segments_seen > 0, "no XNNPACK runtime found");
  return xt_failures ? 1 : 0;
}
