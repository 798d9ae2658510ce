/* Runs zoo-layout cases through pterun with the XNNPACK delegate:
 *   test_xnnpack_cases DIR...
 * For each case: the program must hold an XnnpackBackend delegate; the
 * outputs must match eager PyTorch (case rtol/atol); the backend's execution
 * counter must grow by one per delegate call (so a partitioner that claimed
 * nothing would fail here); XNNPACK must allocate nothing after the first
 * execution. Each case runs three times: as planned, with every node pterun
 * can run itself forced onto its own kernels (PTERUN_XNNPACK_NATIVE=1), which
 * checks those kernels against eager too, and with the rows' preferences for
 * pterun's kernels ignored (PTERUN_XNNPACK_PREFER=xnnpack), which checks the
 * XNNPACK operators those nodes skip when planned; planned runs must run more
 * nodes natively than the last (the preferences take effect). Cases with "expect_error" must fail
 * to load with that text; "expect_run_error" must fail to execute.
 * Cases needing operators this build lacks are reported and skipped. */
#define _POSIX_C_SOURCE 200809L
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <stdlib.h>
#include <string.h>

#include "xnn_test_util.h"

#define RUNS 3

static int passed, skipped;

enum { MODE_PLANNED, MODE_NATIVE, MODE_XNNPACK, MODES };
static const char *const mode_name[MODES] = {"", " (native)", " (XNNPACK preferred)"};
static uint64_t native_runs[MODES]; /* native node executions per mode, over every case */

static bool missing_operator(const char *msg) {
  return strstr(msg, "not registered") && strstr(msg, "operator");
}

/* Returns 1 on pass, 0 on skip; failures are counted through XT_CHECK. */
static int run_mode(const xt_case *c, pte_program *prog, int ndelegates, int mode, double *max_err) {
  setenv("PTERUN_XNNPACK_NATIVE", mode == MODE_NATIVE ? "1" : "0", 1);
  setenv("PTERUN_XNNPACK_PREFER", mode == MODE_XNNPACK ? "xnnpack" : "", 1);
  pte_method *m = NULL;
  pte_status st = pte_method_load(prog, c->method, NULL, &m);
  if (c->expect_error[0]) {
    XT_CHECK(st != PTE_OK, "%s: loading should fail with '%s'", c->dir, c->expect_error);
    if (st) {
      const char *msg = pte_last_error();
      XT_CHECK(strstr(msg, c->expect_error) != NULL, "%s: error '%s' lacks '%s'", c->dir, msg,
               c->expect_error);
      XT_CHECK(strstr(msg, "XNNPACK node") != NULL, "%s: error '%s' names no node", c->dir, msg);
      XT_CHECK(strstr(msg, "datatype") != NULL, "%s: error '%s' names no datatype", c->dir, msg);
      printf("  refused as expected: %s\n", msg);
    }
    pte_method_free(m);
    return 1;
  }
  if (st && missing_operator(pte_last_error())) {
    printf("SKIP %s: %s\n", c->dir, pte_last_error());
    return 0;
  }
  XT_CHECK(st == PTE_OK, "%s: load: %s", c->dir, pte_last_error());
  if (st) return 1;
  xt_tensors in, want;
  bool ok = xt_load_npys(c->dir, "inputs", &in) && xt_load_npys(c->dir, "expected", &want);
  XT_CHECK(ok, "%s: reading inputs/expected", c->dir);
  XT_CHECK(in.n == pte_method_num_inputs(m), "%s: %d inputs, method has %d", c->dir, in.n,
           pte_method_num_inputs(m));
  pte_backend_xnnpack_stats s0, s1, s2;
  pte_backend_xnnpack_get_stats(&s0);
  for (int r = 0; ok && r < RUNS; r++) {
    /* Planned input memory may be reused by later values of the run (the
     * exporter's memory plan allows it), so inputs are set every time. */
    for (int i = 0; ok && i < in.n; i++) {
      st = pte_method_set_input_tensor(m, i, &in.t[i]);
      XT_CHECK(st == PTE_OK, "%s: input %d: %s", c->dir, i, pte_last_error());
      ok = st == PTE_OK;
    }
    if (!ok) break;
    st = pte_method_execute(m);
    if (c->expect_run_error[0]) {
      XT_CHECK(st != PTE_OK, "%s: execute should fail with '%s'", c->dir, c->expect_run_error);
      if (st) {
        const char *msg = pte_last_error();
        XT_CHECK(strstr(msg, c->expect_run_error) != NULL, "%s: error '%s' lacks '%s'", c->dir, msg,
                 c->expect_run_error);
        XT_CHECK(strstr(msg, "got shape") && strstr(msg, "built for"),
                 "%s: error '%s' does not give both shapes", c->dir, msg);
        printf("  rejected as expected: %s\n", msg);
      }
      ok = false;
      break;
    }
    if (st) {
      XT_CHECK(false, "%s: execute: %s", c->dir, pte_last_error());
      ok = false;
    }
    if (r == 0) pte_backend_xnnpack_get_stats(&s1);
  }
  pte_backend_xnnpack_get_stats(&s2);
  native_runs[mode] += s2.native_nodes - s0.native_nodes;
  if (ok) {
    XT_CHECK(s2.executions - s0.executions == (uint64_t)RUNS * (uint64_t)ndelegates,
             "%s: %llu delegate executions for %d runs of %d delegate(s): the delegate did not run", c->dir,
             (unsigned long long)(s2.executions - s0.executions), RUNS, ndelegates);
    XT_CHECK(s2.xnn_allocations == s1.xnn_allocations, "%s: XNNPACK allocated %llu times during execute",
             c->dir, (unsigned long long)(s2.xnn_allocations - s1.xnn_allocations));
    XT_CHECK(want.n == pte_method_num_outputs(m), "%s: %d expected outputs, method has %d", c->dir, want.n,
             pte_method_num_outputs(m));
    for (int i = 0; i < want.n && i < pte_method_num_outputs(m); i++) {
      const pte_value *v = pte_method_output(m, i);
      char what[1200];
      snprintf(what, sizeof what, "%s%s output %d", c->dir, mode_name[mode], i);
      double err = 0;
      bool same =
          v && v->tag == PTE_TAG_TENSOR && xt_compare(v->u.tensor, &want.t[i], c->rtol, c->atol, &err, what);
      XT_CHECK(same, "%s differs from eager PyTorch", what);
      if (err > *max_err) *max_err = err;
    }
  }
  xt_free_tensors(&in);
  xt_free_tensors(&want);
  pte_method_free(m);
  return 1;
}

static void run_case(const char *dir) {
  xt_case c;
  if (!xt_load_case(dir, &c)) {
    XT_CHECK(false, "%s: cannot read case.json", dir);
    return;
  }
  char path[1400];
  snprintf(path, sizeof path, "%s/model.pte", dir);
  pte_data_map *map = NULL;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  if (c.has_data) {
    char dpath[1400];
    snprintf(dpath, sizeof dpath, "%s/model.ptd", dir);
    pte_status st = pte_data_map_load_file(dpath, NULL, &map);
    XT_CHECK(st == PTE_OK, "%s: %s", dpath, pte_last_error());
    po.data_maps = &map;
    po.num_data_maps = map ? 1 : 0;
  }
  pte_program *prog = NULL;
  pte_status st = pte_program_load_file(path, &po, &prog);
  XT_CHECK(st == PTE_OK, "%s: %s", path, pte_last_error());
  if (st) {
    pte_data_map_free(map);
    return;
  }
  pte_method_info info;
  st = pte_program_method_info(prog, c.method, &info);
  XT_CHECK(st == PTE_OK, "%s: method '%s': %s", dir, c.method, pte_last_error());
  int xnn = 0;
  for (int32_t i = 0; !st && i < info.num_delegates; i++) {
    const char *id = NULL;
    if (pte_program_method_delegate(prog, c.method, i, &id) == PTE_OK && id && !strcmp(id, "XnnpackBackend"))
      xnn++;
  }
  XT_CHECK(xnn > 0, "%s: the program holds no XnnpackBackend delegate", dir);
  double err_x = 0, err_n = 0, err_p = 0;
  int before = xt_failures;
  int ran = run_mode(&c, prog, xnn, MODE_PLANNED, &err_x);
  if (ran && !c.expect_error[0] && !c.expect_run_error[0]) {
    run_mode(&c, prog, xnn, MODE_NATIVE, &err_n);
    run_mode(&c, prog, xnn, MODE_XNNPACK, &err_p);
  }
  if (!ran) {
    skipped++;
  } else if (xt_failures == before) {
    passed++;
    if (c.expect_error[0] || c.expect_run_error[0]) printf("PASS %s (refused)\n", dir);
    else
      printf(
          "PASS %s: %d delegate(s), max abs error %.3g (as planned), %.3g (native kernels), %.3g (XNNPACK "
          "preferred)\n",
          dir, xnn, err_x, err_n, err_p);
  } else {
    printf("FAIL %s\n", dir);
  }
  pte_program_free(prog);
  pte_data_map_free(map);
}

int main(int argc, char **argv) {
  if (pte_kernels_portable_register() || pte_backend_xnnpack_register()) {
    fprintf(stderr, "registering: %s\n", pte_last_error());
    return 1;
  }
  int total = 0;
  for (int a = 1; a < argc; a++) {
    char **list = NULL;
    int n = xt_find_cases(argv[a], &list);
    if (n == 0) printf("note: no cases under %s\n", argv[a]);
    for (int i = 0; i < n; i++) run_case(list[i]);
    total += n;
    xt_free_list(list, n);
  }
  if (passed > 0) {
    printf("native node executions: %llu planned, %llu forced native, %llu XNNPACK preferred\n",
           (unsigned long long)native_runs[MODE_PLANNED], (unsigned long long)native_runs[MODE_NATIVE],
           (unsigned long long)native_runs[MODE_XNNPACK]);
    XT_CHECK(native_runs[MODE_PLANNED] <= native_runs[MODE_NATIVE], "forced native ran fewer native nodes");
    /* every directory given holds an fp32 linear (nodes/, the zoo) */
    XT_CHECK(native_runs[MODE_XNNPACK] < native_runs[MODE_PLANNED],
             "the rows' preferences for pterun's kernels changed nothing");
  }
  printf("%d case(s): %d passed, %d skipped (operators missing in this build), %d check(s) failed\n", total,
         passed, skipped, xt_failures);
  return xt_failures ? 1 : 0;
}
