/* pterun verify MODEL.bpte [--method NAME] [--rtol R] [--atol A]
 *                          [--data FILE.ptd]... [--threads N]
 *                          [--library PATH]... [--disable KERNEL_LIBRARY]...
 *
 * Runs every test case a BundledProgram holds (or one method's) and checks
 * the outputs against the expected ones. Exits 1 naming each failing case
 * and its worst element, 0 when all pass. */
#define _POSIX_C_SOURCE 200809L
#include <pterun/runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pterun_components.h"

#define MAX_DATA 64

#ifdef PTERUN_HAVE_BUNDLED_PROGRAM
static int parse_tol(const char *opt, const char *s, double *out) {
  char *end;
  double v = s ? strtod(s, &end) : -1;
  if (!s || *end || !(v >= 0)) {
    pterun_usage_error("verify", "%s needs a non-negative number", opt);
    return -1;
  }
  *out = v;
  return 0;
}

static int verify_method(pte_bundled_program *bp, pte_program *program, const char *name, double rtol,
                         double atol, int *failed) {
  pte_method *m = NULL;
  if (pte_method_load(program, name, NULL, &m)) {
    fprintf(stderr, "pterun: method '%s': %s\n", name, pte_last_error());
    return -1;
  }
  int32_t n = pte_bundled_program_case_count(bp, name);
  for (int32_t c = 0; c < n; c++) {
    pte_bundled_mismatch w;
    pte_status st = pte_bundled_program_set_inputs(bp, m, c);
    if (!st) st = pte_method_execute(m);
    if (!st) st = pte_bundled_program_check_outputs(bp, m, c, rtol, atol, &w);
    if (st) {
      /* the message names the case and, for a mismatch, the worst element */
      printf("FAIL %s\n", pte_last_error());
      (*failed)++;
    } else if (w.output >= 0) {
      printf("ok   method '%s' case %d (worst: output %d element %lld, %.9g vs %.9g)\n", name, (int)c,
             (int)w.output, (long long)w.element, w.actual, w.expected);
    } else {
      printf("ok   method '%s' case %d\n", name, (int)c);
    }
  }
  pte_method_free(m);
  return 0;
}
#endif

int pterun_cmd_verify(int argc, char **argv) {
#ifndef PTERUN_HAVE_BUNDLED_PROGRAM
  (void)argc;
  (void)argv;
  fprintf(stderr, "pterun: this build has no bundled_program component\n");
  return 2;
#else
  const char *model = NULL, *method = NULL, *data[MAX_DATA];
  int ndata = 0, threads = -1;
  double rtol = 1e-5, atol = 1e-8; /* ExecuTorch's defaults */
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (pterun_is_help(a)) {
      pterun_usage("verify", stdout);
      return 0;
    } else if (!strcmp(a, "--rtol") || !strcmp(a, "--atol")) {
      if (parse_tol(a, next, a[2] == 'r' ? &rtol : &atol)) return 2;
      i++;
    } else if (pterun_is_threads_option(a)) {
      if (pterun_parse_threads(a, next, &threads)) {
        pterun_usage("verify", stderr);
        return 2;
      }
      i++;
    } else if (!strcmp(a, "--method") && next) {
      method = argv[++i];
    } else if (!strcmp(a, "--data") && next) {
      if (ndata == MAX_DATA) return pterun_usage_error("verify", "too many --data options");
      data[ndata++] = argv[++i];
    } else if (!strcmp(a, "--library") && next) {
      if (pte_library_load(argv[++i])) {
        fprintf(stderr, "pterun: %s\n", pte_last_error());
        return 1;
      }
    } else if (!strcmp(a, "--disable") && next) {
      if (pte_kernel_library_set_enabled(argv[++i], false)) {
        fprintf(stderr, "pterun: %s\n", pte_last_error());
        return 1;
      }
    } else if (a[0] != '-' && !model) {
      model = a;
    } else {
      return pterun_usage_error("verify", "verify: %s '%s'",
                                a[0] == '-' ? "bad or incomplete option" : "unexpected argument", a);
    }
  }
  if (!model) return pterun_usage_error("verify", "verify: no bundle given");
  if (pterun_apply_threads(threads)) return 1;
  return pterun_verify_bundle(model, method, rtol, atol, data, ndata);
#endif
}

int pterun_verify_bundle(const char *model, const char *method, double rtol, double atol,
                         const char *const *data, int ndata) {
#ifndef PTERUN_HAVE_BUNDLED_PROGRAM
  (void)model;
  (void)method;
  (void)rtol;
  (void)atol;
  (void)data;
  (void)ndata;
  fprintf(stderr, "pterun: this build has no bundled_program component\n");
  return 2;
#else
  if (ndata > MAX_DATA) ndata = MAX_DATA;
  pte_bundled_program *bp = NULL;
  pte_program *program = NULL;
  pte_data_map *maps[MAX_DATA];
  int nmaps = 0, failed = 0, rc = 1;
  if (pte_bundled_program_load_file(model, &bp)) goto error;
  for (; nmaps < ndata; nmaps++)
    if (pte_data_map_load_file(data[nmaps], NULL, &maps[nmaps])) goto error;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.data_maps = maps;
  po.num_data_maps = nmaps;
  size_t size;
  const void *pte = pte_bundled_program_program(bp, &size);
  if (pte_program_load_buffer(pte, size, &po, &program)) goto error;
  int32_t nsuites = pte_bundled_program_suite_count(bp), ran = 0;
  for (int32_t s = 0; s < nsuites; s++) {
    const char *name = pte_bundled_program_suite_method(bp, s);
    if (method && strcmp(method, name)) continue;
    ran++;
    if (verify_method(bp, program, name, rtol, atol, &failed)) failed++;
  }
  if (method && !ran) {
    fprintf(stderr, "pterun: %s has no test suite for method '%s'\n", model, method);
    failed++;
  }
  if (failed) fprintf(stderr, "pterun: %s: %d failure(s)\n", model, failed);
  rc = failed ? 1 : 0;
  goto done;
error:
  fprintf(stderr, "pterun: %s\n", pte_last_error());
done:
  pte_program_free(program);
  for (int i = 0; i < nmaps; i++) pte_data_map_free(maps[i]);
  pte_bundled_program_free(bp);
  return rc;
#endif
}
