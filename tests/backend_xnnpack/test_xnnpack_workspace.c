/* The delegates of a method share one run-time workspace, the method's
 * scratch (backends/xnnpack/README.md, Memory):
 *  - the outputs are bit for bit those of delegates with a workspace each
 *    (PTERUN_XNNPACK_SHARE=0), over several runs;
 *  - a method of several delegates (a case named after --less) takes less
 *    memory than with a workspace each;
 *  - it is the method's, not the process's: two methods of one program,
 *    run at once on two threads, each give the results of a method run alone.
 *   test_xnnpack_workspace [--less] CASE_DIR... */
#define _POSIX_C_SOURCE 200809L
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_test_util.h"

#define RUNS 3
#define THREAD_RUNS 300

typedef struct loaded {
  pte_program *prog;
  pte_method *m;
} loaded;

static bool load(const char *dir, bool share, loaded *l) {
  char path[1200];
  snprintf(path, sizeof path, "%s/model.pte", dir);
  memset(l, 0, sizeof *l);
  /* read by the backend's init */
  if (share) unsetenv("PTERUN_XNNPACK_SHARE");
  else setenv("PTERUN_XNNPACK_SHARE", "0", 1);
  bool ok = pte_program_load_file(path, NULL, &l->prog) == PTE_OK &&
            pte_method_load(l->prog, "forward", NULL, &l->m) == PTE_OK;
  unsetenv("PTERUN_XNNPACK_SHARE");
  XT_CHECK(ok, "%s: %s", dir, pte_last_error());
  return ok;
}

static void unload(loaded *l) {
  pte_method_free(l->m);
  pte_program_free(l->prog);
}

/* Runs once; the first output's bytes into out (malloc'd), NULL on failure. */
static void *run_once(pte_method *m, const xt_tensors *in, size_t *bytes) {
  for (int i = 0; i < in->n; i++)
    if (pte_method_set_input_tensor(m, i, &in->t[i]) != PTE_OK) return NULL;
  if (pte_method_execute(m) != PTE_OK) return NULL;
  const pte_value *v = pte_method_output(m, 0);
  if (!v || v->tag != PTE_TAG_TENSOR) return NULL;
  *bytes = pte_tensor_nbytes(v->u.tensor);
  void *out = malloc(*bytes ? *bytes : 1);
  if (out) memcpy(out, v->u.tensor->data, *bytes);
  return out;
}

static pthread_barrier_t g_start;

typedef struct worker {
  pte_method *m;
  const xt_tensors *in;
  const void *want;
  size_t bytes;
  int mismatches;
} worker;

static void *work(void *arg) {
  worker *w = (worker *)arg;
  pthread_barrier_wait(&g_start);
  for (int r = 0; r < THREAD_RUNS; r++) {
    size_t b = 0;
    void *got = run_once(w->m, w->in, &b);
    w->mismatches += !got || b != w->bytes || memcmp(got, w->want, b) != 0;
    free(got);
  }
  return NULL;
}

static void check_case(const char *dir, bool less) {
  xt_tensors in;
  XT_CHECK(xt_load_npys(dir, "inputs", &in), "%s: inputs", dir);
  loaded shared, own;
  if (!load(dir, true, &shared)) return;
  if (!load(dir, false, &own)) {
    unload(&shared);
    return;
  }
  pte_method_info info;
  XT_CHECK(pte_program_method_info(shared.prog, "forward", &info) == PTE_OK, "%s", pte_last_error());
  const int32_t delegates = info.num_delegates;
  void *want = NULL;
  size_t want_bytes = 0;
  for (int r = 0; r < RUNS; r++) {
    size_t b1 = 0, b2 = 0;
    void *a = run_once(own.m, &in, &b1), *b = run_once(shared.m, &in, &b2);
    XT_CHECK(a && b, "%s: run %d: %s", dir, r, pte_last_error());
    XT_CHECK(a && b && b1 == b2 && memcmp(a, b, b1) == 0,
             "%s: run %d: the shared workspace changed the output", dir, r);
    if (!want) want = a, want_bytes = b1, a = NULL;
    free(a), free(b);
  }
  const size_t m_shared = pte_method_memory_used(shared.m), m_own = pte_method_memory_used(own.m);
  printf("%s: %d delegate(s), method memory %zu bytes shared, %zu with a workspace each\n", dir,
         (int)delegates, m_shared, m_own);
  XT_CHECK(!less || (delegates > 1 && m_shared < m_own), "%s: %d delegates take %zu bytes sharing, %zu not",
           dir, (int)delegates, m_shared, m_own);

  /* a second method of the shared program, both at once */
  pte_method *m2 = NULL;
  XT_CHECK(pte_method_load(shared.prog, "forward", NULL, &m2) == PTE_OK, "%s", pte_last_error());
  if (m2 && want) {
    worker w[2] = {{shared.m, &in, want, want_bytes, 0}, {m2, &in, want, want_bytes, 0}};
    pthread_t t[2];
    pthread_barrier_init(&g_start, NULL, 2);
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, work, &w[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&g_start);
    XT_CHECK(w[0].mismatches == 0 && w[1].mismatches == 0,
             "%s: two methods at once: %d and %d of %d runs differ", dir, w[0].mismatches, w[1].mismatches,
             THREAD_RUNS);
  }
  pte_method_free(m2);
  free(want);
  unload(&shared);
  unload(&own);
  xt_free_tensors(&in);
}

int main(int argc, char **argv) {
  XT_CHECK(pte_kernels_portable_register() == PTE_OK && pte_backend_xnnpack_register() == PTE_OK, "%s",
           pte_last_error());
  int cases = 0;
  for (int a = 1; a < argc; a++) {
    const bool less = !strcmp(argv[a], "--less") && a + 1 < argc;
    check_case(argv[a + less], less);
    a += less, cases++;
  }
  XT_CHECK(cases > 0, "no cases");
  return xt_failures ? 1 : 0;
}
