/* A filter the delegate packs at init (native convolutions: Winograd and
 * the im2col product) is not kept resident twice: its pages of the mapped
 * program are given back (pte_backend_release). Every page of the program's
 * mapping is touched after the program loads; after the method loads, the
 * mapping (/proc/self/smaps) holds at least MIN_RELEASED_BYTES fewer
 * resident bytes, and the output still matches (anything reading the bytes
 * again pages them in from the file).
 *   test_xnnpack_release CASE_DIR MIN_RELEASED_BYTES */
#define _GNU_SOURCE
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "xnn_test_util.h"

/* Resident bytes of the mappings of file `path`; with `touch`, every page of
 * them is read first. */
static long long mapped_rss(const char *path, bool touch) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[4096];
  long long kb = 0;
  bool in = false;
  const size_t n = strlen(path);
  while (fgets(line, sizeof line, f)) {
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == ' ')) line[--len] = 0;
    uintptr_t lo, hi;
    long long v;
    char perms[8];
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &lo, &hi, perms) == 3) { /* a mapping's header */
      in = len >= n && !strcmp(line + len - n, path);
      if (in && touch && perms[0] == 'r')
        for (uintptr_t a = lo; a < hi; a += 4096) (void)*(volatile const char *)a;
    } else if (in && sscanf(line, "Rss: %lld kB", &v) == 1) {
      kb += v;
    }
  }
  fclose(f);
  return kb * 1024;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s CASE_DIR MIN_RELEASED_BYTES\n", argv[0]);
    return 2;
  }
  XT_CHECK(pte_kernels_portable_register() == PTE_OK && pte_backend_xnnpack_register() == PTE_OK, "%s",
           pte_last_error());
  char rel[1200], path[PATH_MAX];
  snprintf(rel, sizeof rel, "%s/model.pte", argv[1]);
  if (!realpath(rel, path)) {
    fprintf(stderr, "%s: no such file\n", rel);
    return 1;
  }
  const long long want = atoll(argv[2]);
  pte_program *prog = NULL;
  pte_method *m = NULL;
  XT_CHECK(pte_program_load_file(path, NULL, &prog) == PTE_OK, "%s", pte_last_error());
  if (!prog) return 1;
  (void)mapped_rss(path, true);
  const long long before = mapped_rss(path, false);
  XT_CHECK(pte_method_load(prog, "forward", NULL, &m) == PTE_OK, "%s", pte_last_error());
  const long long after = mapped_rss(path, false);
  printf("%s: program mapping %lld bytes resident, %lld once the method loaded\n", path, before, after);
  XT_CHECK(before > 0 && after >= 0, "no mapping of %s in smaps", path);
  XT_CHECK(before - after >= want, "%lld bytes given back, want at least %lld", before - after, want);
  if (m) {
    xt_tensors in, ex;
    XT_CHECK(xt_load_npys(argv[1], "inputs", &in) && xt_load_npys(argv[1], "expected", &ex), "npys");
    for (int32_t i = 0; i < in.n && i < pte_method_num_inputs(m); i++)
      XT_CHECK(pte_method_set_input_tensor(m, i, &in.t[i]) == PTE_OK, "input %d: %s", (int)i,
               pte_last_error());
    XT_CHECK(pte_method_execute(m) == PTE_OK, "execute: %s", pte_last_error());
    double err = 0.0;
    XT_CHECK(pte_method_num_outputs(m) >= 1 && ex.n >= 1 &&
                 xt_compare(pte_method_output(m, 0)->u.tensor, &ex.t[0], 1e-3, 1e-3, &err, "output 0"),
             "output 0 differs from expected by %g", err);
    xt_free_tensors(&in), xt_free_tensors(&ex);
  }
  pte_method_free(m);
  pte_program_free(prog);
  return xt_failures ? 1 : 0;
}
