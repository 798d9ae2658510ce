/* Process-level properties of the XNNPACK delegate:
 *  - one pool: the delegate hands XNNPACK the pthreadpool of
 *    libpterun_threadpool, kernels' parallel_for runs on that pool's own
 *    workers (as many as the pthreadpool's, see threadpool.c), and no
 *    other worker threads appear while delegates and kernels run;
 *  - a loaded delegate holds the pool (a resize is refused until it is freed);
 *  - tracer: PTE_EVENT_BACKEND events for each XNNPACK runtime and native
 *    node, nested in the delegate's event, and none when no tracer is set;
 *  - freeing the method frees what XNNPACK allocated for it.
 *   test_xnnpack_process CASE_DIR   (a delegated case with native nodes) */
#define _POSIX_C_SOURCE 200809L
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>
#include <pterun/threadpool.h>

#include <dirent.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_test_util.h"

static int count_threads(void) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) n += e->d_name[0] != '.';
  closedir(d);
  return n;
}

typedef struct trace {
  int depth, max_depth;
  int delegate_events, backend_events, backend_outside, xnn_runtime_events, native_events;
  int begins, ends;
  int32_t delegate_instruction, backend_instruction_mismatch;
} trace;

static uint64_t on_begin(void *user, const pte_event *ev) {
  trace *t = (trace *)user;
  t->begins++;
  if (ev->kind == PTE_EVENT_DELEGATE) {
    t->delegate_events++;
    t->delegate_instruction = ev->instruction;
    t->depth++;
  } else if (ev->kind == PTE_EVENT_BACKEND) {
    t->backend_events++;
    if (t->depth == 0) t->backend_outside++;
    if (ev->instruction != t->delegate_instruction) t->backend_instruction_mismatch++;
    if (ev->name && !strncmp(ev->name, "XNNPACK runtime", 15)) t->xnn_runtime_events++;
    if (ev->name && !strncmp(ev->name, "native ", 7)) t->native_events++;
  }
  return 0;
}

static void on_end(void *user, const pte_event *ev, uint64_t tok) {
  trace *t = (trace *)user;
  (void)tok;
  t->ends++;
  if (ev->kind == PTE_EVENT_DELEGATE) t->depth--;
}

static atomic_int touched;
static void touch(void *ctx, size_t b, size_t e) {
  (void)ctx;
  atomic_fetch_add(&touched, (int)(e - b));
}

static pte_status set_inputs(pte_method *m, xt_tensors *in) {
  for (int i = 0; i < in->n; i++) {
    pte_status st = pte_method_set_input_tensor(m, i, &in->t[i]);
    if (st) return st;
  }
  return PTE_OK;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s CASE_DIR\n", argv[0]);
    return 2;
  }
  if (pte_kernels_portable_register() || pte_backend_xnnpack_register()) {
    fprintf(stderr, "register: %s\n", pte_last_error());
    return 1;
  }
  printf("XNNPACK: %s; pthreadpool: %s\n", pte_backend_xnnpack_provider(), pte_threadpool_provider());
  const int threads_at_start = count_threads();
  XT_CHECK(pte_threadpool_pools_created() == 0, "a pool exists before anything used it");

  char path[1400];
  snprintf(path, sizeof path, "%s/model.pte", argv[1]);
  pte_program *prog = NULL;
  XT_CHECK(pte_program_load_file(path, NULL, &prog) == PTE_OK, "%s: %s", path, pte_last_error());
  if (!prog) return 1;
  pte_backend_xnnpack_stats s0, s1;
  pte_backend_xnnpack_get_stats(&s0);
  pte_method *m = NULL;
  XT_CHECK(pte_method_load(prog, "forward", NULL, &m) == PTE_OK, "load: %s", pte_last_error());
  if (!m) return 1;
  xt_tensors in;
  XT_CHECK(xt_load_npys(argv[1], "inputs", &in), "inputs");

  /* One pool. */
  void *pool = pte_threadpool_pthreadpool();
  pte_backend_xnnpack_get_stats(&s1);
  XT_CHECK(pool != NULL, "no pthreadpool (%s)", pte_threadpool_provider());
  XT_CHECK(s1.threadpool == pool, "XNNPACK was given pool %p, the process pool is %p", s1.threadpool, pool);
  XT_CHECK(pte_threadpool_pools_created() == 1, "%llu pools created",
           (unsigned long long)pte_threadpool_pools_created());
  size_t nthreads = pte_threadpool_threads();
  for (int r = 0; r < 5; r++) {
    XT_CHECK(set_inputs(m, &in) == PTE_OK, "set input: %s", pte_last_error());
    XT_CHECK(pte_method_execute(m) == PTE_OK, "execute: %s", pte_last_error());
    pte_threadpool_parallel_for(1 << 20, 0, touch, NULL); /* a kernel's use of the pool */
  }
  XT_CHECK(atomic_load(&touched) == 5 << 20, "parallel_for covered %d items", atomic_load(&touched));
  int threads_now = count_threads();
  /* The calling thread plus the pool's two sets of workers, nothing else. */
  XT_CHECK(threads_now == threads_at_start + 2 * ((int)nthreads - 1),
           "%d threads with a pool of %zu (started with %d): another pool or thread appeared", threads_now,
           nthreads, threads_at_start);
  XT_CHECK(pte_threadpool_pools_created() == 1, "a second pool was created");
  XT_CHECK(pte_threadpool_pthreadpool() == pool, "the pool changed");
  printf("one pool: %zu thread(s), %d thread(s) in the process, XNNPACK and kernels on %p\n", nthreads,
         threads_now, pool);

  /* The delegate holds the pool. */
  size_t other = nthreads == 2 ? 3 : 2;
  XT_CHECK(pte_threadpool_set_threads(other) == PTE_ERR_INVALID_STATE,
           "resize while a delegate holds the pool");

  /* Tracer events. */
  trace t;
  memset(&t, 0, sizeof t);
  pte_tracer tracer = PTE_TRACER_INIT;
  tracer.user = &t;
  tracer.begin = on_begin;
  tracer.end = on_end;
  pte_method_set_tracer(m, &tracer);
  XT_CHECK(set_inputs(m, &in) == PTE_OK, "set input");
  XT_CHECK(pte_method_execute(m) == PTE_OK, "execute with tracer: %s", pte_last_error());
  XT_CHECK(t.delegate_events >= 1, "no delegate event");
  XT_CHECK(t.backend_events >= 2, "%d backend events", t.backend_events);
  XT_CHECK(t.xnn_runtime_events >= 1, "no event for an XNNPACK runtime");
  XT_CHECK(t.native_events >= 1, "no event for a native node");
  XT_CHECK(t.backend_outside == 0, "%d backend events outside a delegate event", t.backend_outside);
  XT_CHECK(t.backend_instruction_mismatch == 0, "backend events name another instruction");
  XT_CHECK(t.begins == t.ends, "%d begins, %d ends", t.begins, t.ends);
  printf("tracer: %d delegate event(s), %d backend event(s) (%d XNNPACK runtime, %d native)\n",
         t.delegate_events, t.backend_events, t.xnn_runtime_events, t.native_events);
  int seen = t.backend_events;
  pte_method_set_tracer(m, NULL);
  XT_CHECK(set_inputs(m, &in) == PTE_OK, "set input");
  XT_CHECK(pte_method_execute(m) == PTE_OK, "execute: %s", pte_last_error());
  XT_CHECK(t.backend_events == seen, "events without a tracer");

  /* Freeing the method frees XNNPACK's memory and lets go of the pool. */
  pte_method_free(m);
  pte_backend_xnnpack_stats s2;
  pte_backend_xnnpack_get_stats(&s2);
  XT_CHECK(s2.delegates_live == s0.delegates_live, "%lld delegates still live", (long long)s2.delegates_live);
  XT_CHECK(s2.runtimes_live == s0.runtimes_live, "%lld runtimes still live", (long long)s2.runtimes_live);
  XT_CHECK(s2.xnn_live_bytes == s0.xnn_live_bytes,
           "XNNPACK still holds %lld bytes (had %lld before the method)", (long long)s2.xnn_live_bytes,
           (long long)s0.xnn_live_bytes);
  XT_CHECK(pte_threadpool_set_threads(other) == PTE_OK, "resize after the delegate is gone: %s",
           pte_last_error());
  pte_program_free(prog);
  xt_free_tensors(&in);
  printf("%s (%d failure(s))\n", xt_failures ? "FAIL" : "PASS", xt_failures);
  return xt_failures ? 1 : 0;
}
