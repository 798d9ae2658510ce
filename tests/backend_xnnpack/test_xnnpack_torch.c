/* Isolation from torch's copies of pthreadpool and cpuinfo: torch's
 * libraries export pthreadpool_* (libtorch_cpu.so) and cpuinfo_* (libc10.so).
 * This test loads them with RTLD_GLOBAL, as TORCH_USE_RTLD_GLOBAL=1 does,
 * before ("first") or after ("last") pterun's XNNPACK delegate, and checks
 * that a delegated program still gives the right results and that pterun's
 * pool is Debian's, not torch's.
 * The test program links only the runtime and the portable kernels, like a
 * Python extension would, and loads the delegate (and with it the thread
 * pool) at run time.
 *   test_xnnpack_torch first|last TORCH_LIB_DIR CASE_DIR BACKEND_LIBRARY */
#define _GNU_SOURCE
#include <pterun/kernels_portable.h>
#include <pterun/runtime.h>

#include <dlfcn.h>
#include <string.h>

#include "xnn_test_util.h"

static void load_torch(const char *dir) {
  const char *libs[] = {"libc10.so", "libtorch_cpu.so"};
  for (int i = 0; i < 2; i++) {
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, libs[i]);
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    XT_CHECK(h != NULL, "dlopen %s: %s", path, dlerror());
  }
  void *torch_create = dlsym(RTLD_DEFAULT, "pthreadpool_create");
  Dl_info info;
  XT_CHECK(
      torch_create && dladdr(torch_create, &info) && strstr(info.dli_fname, "torch"),
      "after loading torch globally, pthreadpool_create should be torch's (the hazard this test is about)");
  if (torch_create && dladdr(torch_create, &info)) printf("global pthreadpool_create: %s\n", info.dli_fname);
}

static void run_case(const char *dir) {
  xt_case c;
  XT_CHECK(xt_load_case(dir, &c), "%s", dir);
  char path[1200];
  snprintf(path, sizeof path, "%s/model.pte", dir);
  pte_program *prog = NULL;
  XT_CHECK(pte_program_load_file(path, NULL, &prog) == PTE_OK, "%s", pte_last_error());
  pte_method *m = NULL;
  if (prog) XT_CHECK(pte_method_load(prog, c.method, NULL, &m) == PTE_OK, "%s", pte_last_error());
  if (m) {
    xt_tensors in, want;
    XT_CHECK(xt_load_npys(dir, "inputs", &in) && xt_load_npys(dir, "expected", &want), "npy");
    for (int r = 0; r < 3; r++) {
      for (int i = 0; i < in.n; i++) pte_method_set_input_tensor(m, i, &in.t[i]);
      XT_CHECK(pte_method_execute(m) == PTE_OK, "execute: %s", pte_last_error());
    }
    for (int i = 0; i < want.n; i++) {
      double err;
      const pte_value *v = pte_method_output(m, i);
      XT_CHECK(v && xt_compare(v->u.tensor, &want.t[i], c.rtol, c.atol, &err, dir), "output %d differs", i);
    }
    xt_free_tensors(&in);
    xt_free_tensors(&want);
    pte_method_free(m);
  }
  pte_program_free(prog);
}

int main(int argc, char **argv) {
  if (argc < 5) return 2;
  bool first = !strcmp(argv[1], "first");
  XT_CHECK(pte_kernels_portable_register() == PTE_OK, "%s", pte_last_error());
  if (first) load_torch(argv[2]);
  XT_CHECK(pte_library_load(argv[4]) == PTE_OK, "%s", pte_last_error());
  run_case(argv[3]);
  if (!first) {
    load_torch(argv[2]);
    run_case(argv[3]); /* same process, torch now global */
  }
  /* Where the pool's and XNNPACK's functions come from. */
  void *h = dlopen(argv[4], RTLD_NOW | RTLD_NOLOAD);
  const char *(*tp_provider)(void) = h ? (const char *(*)(void))dlsym(h, "pte_threadpool_provider") : NULL;
  const char *(*xnn_provider)(void) =
      h ? (const char *(*)(void))dlsym(h, "pte_backend_xnnpack_provider") : NULL;
  XT_CHECK(tp_provider && xnn_provider, "provider functions not found");
  if (tp_provider && xnn_provider) {
    printf("pterun's pthreadpool: %s; XNNPACK: %s\n", tp_provider(), xnn_provider());
    XT_CHECK(strstr(tp_provider(), "torch") == NULL, "pterun's pool comes from torch");
  }
  printf("torch loaded %s: %s (%d failure(s))\n", argv[1], xt_failures ? "FAIL" : "PASS", xt_failures);
  return xt_failures ? 1 : 0;
}
