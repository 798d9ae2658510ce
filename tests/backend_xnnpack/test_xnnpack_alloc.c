/* Execute allocates nothing: malloc and friends are interposed in this
 * program and counted across many executions of delegated programs, the
 * first one included (init already set the runtimes up once). XNNPACK allocates through pterun's allocator
 * (counted by the backend), which covers the library opened with
 * RTLD_DEEPBIND, whose calls to malloc bypass this interposition.
 *   test_xnnpack_alloc CASE_DIR... */
#define _GNU_SOURCE
#include <pterun/backend_xnnpack.h>
#include <pterun/kernels_portable.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../common/alloc_count.h"
#include "xnn_test_util.h"

int main(int argc, char **argv) {
  XT_CHECK(pte_kernels_portable_register() == PTE_OK && pte_backend_xnnpack_register() == PTE_OK, "%s",
           pte_last_error());
  for (int a = 1; a < argc; a++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/model.pte", argv[a]);
    pte_program *prog = NULL;
    pte_method *m = NULL;
    XT_CHECK(pte_program_load_file(path, NULL, &prog) == PTE_OK, "%s", pte_last_error());
    if (prog) XT_CHECK(pte_method_load(prog, "forward", NULL, &m) == PTE_OK, "%s", pte_last_error());
    if (!m) continue;
    xt_tensors in;
    XT_CHECK(xt_load_npys(argv[a], "inputs", &in), "inputs");
    pte_backend_xnnpack_stats s0, s1;
    for (int r = 0; r < 100; r++) {
      if (r == 0) {
        pte_backend_xnnpack_get_stats(&s0);
        alloc_count_start();
      }
      for (int i = 0; i < in.n; i++) pte_method_set_input_tensor(m, i, &in.t[i]);
      XT_CHECK(pte_method_execute(m) == PTE_OK, "%s", pte_last_error());
    }
    long calls = alloc_count_stop();
    pte_backend_xnnpack_get_stats(&s1);
    XT_CHECK(calls == 0, "%s: %ld allocation(s) in 100 executions", argv[a], calls);
    XT_CHECK(s1.xnn_allocations == s0.xnn_allocations, "%s: XNNPACK allocated %llu times", argv[a],
             (unsigned long long)(s1.xnn_allocations - s0.xnn_allocations));
    XT_CHECK(s1.executions - s0.executions >= 100, "%s: the delegate did not run", argv[a]);
    printf("%s: 100 executions, %ld allocations, %llu XNNPACK allocations\n", argv[a], calls,
           (unsigned long long)(s1.xnn_allocations - s0.xnn_allocations));
    xt_free_tensors(&in);
    pte_method_free(m);
    pte_program_free(prog);
  }
  return xt_failures ? 1 : 0;
}
