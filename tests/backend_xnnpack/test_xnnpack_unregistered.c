/* Without the backend library, loading a delegated program fails naming
 * XnnpackBackend as not registered; after pte_library_load of the library
 * the same program loads and runs.
 *   test_xnnpack_unregistered CASE_DIR LIBRARY_PATH */
#define _POSIX_C_SOURCE 200809L
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <string.h>

#include "xnn_test_util.h"

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  XT_CHECK(pte_kernels_portable_register() == PTE_OK, "%s", pte_last_error());
  XT_CHECK(pte_backend_find("XnnpackBackend") == NULL,
           "XnnpackBackend is registered in a process without it");
  char path[1400];
  snprintf(path, sizeof path, "%s/model.pte", argv[1]);
  pte_program *prog = NULL;
  XT_CHECK(pte_program_load_file(path, NULL, &prog) == PTE_OK, "%s", pte_last_error());
  if (!prog) return 1;
  pte_method *m = NULL;
  pte_status st = pte_method_load(prog, "forward", NULL, &m);
  XT_CHECK(st == PTE_ERR_NOT_FOUND, "load without the backend returned %s", pte_status_name(st));
  XT_CHECK(strstr(pte_last_error(), "'XnnpackBackend' is not registered") != NULL, "message: %s",
           pte_last_error());
  printf("without the library: %s\n", pte_last_error());
  st = pte_library_load(argv[2]);
  XT_CHECK(st == PTE_OK, "pte_library_load(%s): %s", argv[2], pte_last_error());
  XT_CHECK(pte_library_load(argv[2]) == PTE_OK, "loading twice: %s", pte_last_error());
  XT_CHECK(pte_backend_find("XnnpackBackend") != NULL, "the library did not register XnnpackBackend");
  st = pte_method_load(prog, "forward", NULL, &m);
  XT_CHECK(st == PTE_OK, "load with the backend: %s", pte_last_error());
  if (m) {
    xt_tensors in;
    XT_CHECK(xt_load_npys(argv[1], "inputs", &in), "inputs");
    for (int i = 0; i < in.n; i++) XT_CHECK(pte_method_set_input_tensor(m, i, &in.t[i]) == PTE_OK, "input");
    XT_CHECK(pte_method_execute(m) == PTE_OK, "execute: %s", pte_last_error());
    xt_free_tensors(&in);
    pte_method_free(m);
  }
  pte_program_free(prog);
  printf("%s (%d failure(s))\n", xt_failures ? "FAIL" : "PASS", xt_failures);
  return xt_failures ? 1 : 0;
}
