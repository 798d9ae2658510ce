/* libpterun_bundled_program: the .bpte files of make_bpte.py (written with
 * executorch's BundledProgram API) load, their cases pass or fail where they
 * were made to, and broken or hostile files fail with a message. */
#include <pterun/bundled_program.h>
#include <pterun/kernels_portable.h>

#include "../common/test_util.h"

#define DIR PTERUN_SOURCE_DIR "/tests/bundled_program/"

typedef struct {
  pte_bundled_program *bp;
  pte_program *program;
  pte_method *method;
} loaded;

static void unload(loaded *l) {
  pte_method_free(l->method);
  pte_program_free(l->program);
  pte_bundled_program_free(l->bp);
  memset(l, 0, sizeof *l);
}

static pte_status load(const char *file, const char *method, loaded *l) {
  memset(l, 0, sizeof *l);
  pte_status st = pte_bundled_program_load_file(file, &l->bp);
  size_t n;
  const void *pte = st ? NULL : pte_bundled_program_program(l->bp, &n);
  if (!st) st = pte_program_load_buffer(pte, n, NULL, &l->program);
  if (!st) st = pte_method_load(l->program, method, NULL, &l->method);
  return st;
}

static pte_status bp_run_case(loaded *l, int32_t c, double rtol, double atol, pte_bundled_mismatch *w) {
  pte_status st = pte_bundled_program_set_inputs(l->bp, l->method, c);
  if (!st) st = pte_method_execute(l->method);
  if (!st) st = pte_bundled_program_check_outputs(l->bp, l->method, c, rtol, atol, w);
  return st;
}

/* Shared builds register the portable kernels by linking; static ones
 * (make test-static) here. Registering the same library again is harmless. */
TEST(setup) { CHECK_OK(pte_kernels_portable_register()); }

TEST(good_file_passes) {
  loaded l;
  CHECK_OK(load(DIR "good.bpte", "forward", &l));
  CHECK(pte_bundled_program_suite_count(l.bp) == 2, "suites");
  CHECK(!strcmp(pte_bundled_program_suite_method(l.bp, 0), "forward"), "suite 0");
  CHECK(!strcmp(pte_bundled_program_suite_method(l.bp, 1), "twice"), "suite 1");
  CHECK(pte_bundled_program_suite_method(l.bp, 2) == NULL, "suite 2");
  CHECK(pte_bundled_program_case_count(l.bp, "forward") == 2, "cases");
  CHECK(pte_bundled_program_case_count(l.bp, "nope") == 0, "no suite");
  size_t n;
  CHECK(((uintptr_t)pte_bundled_program_program(l.bp, &n) % 32) == 0 && n > 0, "program aligned");
  for (int32_t c = 0; c < 2; c++) {
    pte_bundled_mismatch w;
    CHECK_OK(bp_run_case(&l, c, 1e-5, 1e-8, &w));
    CHECK(w.output == 0 && w.excess <= 0, "worst %d %g", (int)w.output, w.excess);
  }
  /* float16 in and out */
  pte_method_free(l.method);
  l.method = NULL;
  CHECK_OK(pte_method_load(l.program, "twice", NULL, &l.method));
  CHECK_OK(bp_run_case(&l, 0, 1e-5, 1e-8, NULL));
  unload(&l);
}

TEST(bad_case_named_with_worst_element) {
  loaded l;
  CHECK_OK(load(DIR "bad.bpte", "forward", &l));
  CHECK_OK(bp_run_case(&l, 0, 1e-5, 1e-8, NULL));
  pte_bundled_mismatch w;
  CHECK_FAILS(bp_run_case(&l, 1, 1e-5, 1e-8, &w), PTE_ERR_INVALID_STATE, "case 1: output 0 element 4");
  CHECK(w.output == 0 && w.element == 4, "worst at %d/%lld", (int)w.output, (long long)w.element);
  CHECK(fabs(w.expected - w.actual - 0.5) < 1e-6, "off by %g", w.expected - w.actual);
  /* a tolerance wide enough passes it */
  CHECK_OK(bp_run_case(&l, 1, 0, 0.6, &w));
  unload(&l);
}

TEST(tolerances) {
  loaded l;
  CHECK_OK(load(DIR "noisy.bpte", "forward", &l));
  CHECK_FAILS(bp_run_case(&l, 0, 1e-5, 1e-8, NULL), PTE_ERR_INVALID_STATE, "case 0");
  CHECK_OK(bp_run_case(&l, 0, 0, 2e-3, NULL));
  CHECK_OK(bp_run_case(&l, 1, 1e-5, 1e-2, NULL));
  unload(&l);
}

TEST(wrong_use) {
  loaded l;
  CHECK_OK(load(DIR "good.bpte", "forward", &l));
  CHECK_FAILS(pte_bundled_program_set_inputs(l.bp, l.method, 2), PTE_ERR_NOT_FOUND, "2 is out of range");
  CHECK_FAILS(pte_bundled_program_set_inputs(l.bp, l.method, -1), PTE_ERR_NOT_FOUND, "out of range");
  CHECK_FAILS(pte_bundled_program_set_inputs(NULL, l.method, 0), PTE_ERR_INVALID_ARGUMENT, "NULL");
  CHECK_FAILS(pte_bundled_program_check_outputs(l.bp, NULL, 0, 0, 0, NULL), PTE_ERR_INVALID_ARGUMENT, "NULL");
  unload(&l);
}

TEST(hostile_files) {
  pte_bundled_program *bp = (pte_bundled_program *)1;
  CHECK_FAILS(pte_bundled_program_load_file(DIR "missing.bpte", &bp), PTE_ERR_IO, "cannot open");
  CHECK(bp == NULL, "out cleared");
  CHECK_FAILS(pte_bundled_program_load_buffer("", 0, &bp), PTE_ERR_INVALID_PROGRAM, "not a BundledProgram");
  size_t n;
  uint8_t *good = read_file(DIR "good.bpte", &n);
  CHECK(good, "read good.bpte");
  /* a .pte is not a .bpte */
  size_t pn;
  uint8_t *pte = read_file(zoo_path("models/mlp/model.pte"), &pn);
  CHECK(pte, "read mlp");
  CHECK_FAILS(pte_bundled_program_load_buffer(pte, pn, &bp), PTE_ERR_INVALID_PROGRAM, "BP08");
  free(pte);
  /* every truncation fails cleanly */
  for (size_t k = 0; k < n; k += 7) {
    pte_status st = pte_bundled_program_load_buffer(good, k, &bp);
    CHECK(st == PTE_ERR_INVALID_PROGRAM && bp == NULL && pte_last_error()[0], "truncated at %zu: %s", k,
          pte_status_name(st));
  }
  /* every byte flipped: loads or fails with a message, never crashes; what
   * loads runs its cases (an altered case fails, it does not crash) */
  int loaded_ok = 0;
  for (size_t k = 0; k < n; k++) {
    good[k] ^= 0xff;
    pte_status st = pte_bundled_program_load_buffer(good, n, &bp);
    if (st) {
      CHECK(st == PTE_ERR_INVALID_PROGRAM && pte_last_error()[0], "byte %zu: %s", k, pte_status_name(st));
    } else {
      loaded_ok++;
      size_t sz;
      const void *p = pte_bundled_program_program(bp, &sz);
      pte_program *prog = NULL;
      pte_method *m = NULL;
      for (int32_t s = 0; s < pte_bundled_program_suite_count(bp); s++) {
        const char *name = pte_bundled_program_suite_method(bp, s);
        if (!prog && pte_program_load_buffer(p, sz, NULL, &prog)) break;
        if (pte_method_load(prog, name, NULL, &m)) continue;
        for (int32_t c = 0; c < pte_bundled_program_case_count(bp, name); c++)
          if (!pte_bundled_program_set_inputs(bp, m, c) && !pte_method_execute(m))
            (void)pte_bundled_program_check_outputs(bp, m, c, 1e-5, 1e-8, NULL);
        pte_method_free(m);
        m = NULL;
      }
      pte_program_free(prog);
      pte_bundled_program_free(bp);
    }
    good[k] ^= 0xff;
  }
  printf("  %d of %zu single-byte corruptions still load\n", loaded_ok, n);
  free(good);
}

/* Found by fuzz_bundled_program: an operator with an empty name let its
 * method load with no kernel, and execute called NULL. */
TEST(unnamed_operator_fails_to_load) {
  pte_bundled_program *bp;
  CHECK_OK(pte_bundled_program_load_file(
      PTERUN_SOURCE_DIR "/fuzz/regress/bundled_program/unnamed_operator_loads_without_kernel.bpte", &bp));
  size_t n;
  const void *pte = pte_bundled_program_program(bp, &n);
  pte_program *p = NULL;
  pte_method *m = NULL;
  pte_status st = pte_program_load_buffer(pte, n, NULL, &p);
  if (!st) st = pte_method_load(p, "twice", NULL, &m);
  pte_method_free(m);
  pte_program_free(p);
  pte_bundled_program_free(bp);
  CHECK(st == PTE_ERR_NOT_FOUND && strstr(pte_last_error(), "(unnamed)"), "%s: %s", pte_status_name(st),
        pte_last_error());
}

/* fuzz/regress/bundled_program/: files that once broke the loader load or
 * fail with a message (under the sanitizers: without undefined behaviour). */
TEST(regress_files) {
  const char *files[] = {PTERUN_SOURCE_DIR "/fuzz/regress/bundled_program/zero_dim_huge_strides.bpte"};
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    pte_bundled_program *bp = NULL;
    pte_status st = pte_bundled_program_load_file(files[i], &bp);
    CHECK(st == PTE_OK || pte_last_error()[0], "%s: %s without a message", files[i], pte_status_name(st));
    pte_bundled_program_free(bp);
  }
}

TEST_MAIN(T(setup), T(regress_files), T(good_file_passes), T(bad_case_named_with_worst_element),
          T(tolerances), T(wrong_use), T(hostile_files), T(unnamed_operator_fails_to_load))
