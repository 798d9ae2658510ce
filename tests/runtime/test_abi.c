/* The component ABI: structs of another ABI are refused, naming both
 * versions, and nothing of them is used. */
#include <pterun/kernels_portable.h>
#include "../common/test_util.h"

#define TEST_OTHER_ABI (PTE_ABI_VERSION + 1) /* what abi_mismatch.c is built with */

static char g_want[160];
static const char *want(const char *what, unsigned abi) {
  snprintf(g_want, sizeof g_want, "%s was built for pterun ABI %u, this runtime has ABI %u", what, abi,
           (unsigned)PTE_ABI_VERSION);
  return g_want;
}

TEST(mismatched_library_is_refused) {
  CHECK_FAILS(pte_library_load(ABI_MISMATCH_LIB), PTE_ERR_NOT_SUPPORTED,
              want("kernel library 'abi_mismatch'", TEST_OTHER_ABI));
  CHECK(!pte_operator_registered("abi_mismatch::op.out"), "a refused library registered its kernel");
  CHECK_FAILS(pte_kernel_library_set_enabled("abi_mismatch", true), PTE_ERR_NOT_FOUND, "abi_mismatch");
}

static pte_status k_one(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  return PTE_OK;
}

TEST(kernel_library_abi) {
  static const pte_kernel ks[] = {{"abi_test::op.out", k_one, 0, 0}};
  static pte_kernel_library lib = PTE_KERNEL_LIBRARY_INIT("abi_test", 0, ks, 1);
  lib.abi = 0; /* zero-initialised, or built before the ABI was versioned */
  CHECK_FAILS(pte_register_kernels(&lib), PTE_ERR_NOT_SUPPORTED, want("kernel library 'abi_test'", 0));
  CHECK(!pte_operator_registered("abi_test::op.out"), "registered");
  lib.abi = PTE_ABI_VERSION;
  CHECK_OK(pte_register_kernels(&lib));
}

/* A component built against an older ABI of the same layouts still loads. */
TEST(older_abi_is_read) {
  static const pte_kernel ks[] = {{"abi_old::op.out", k_one, 0, 0}};
  static pte_kernel_library lib = PTE_KERNEL_LIBRARY_INIT("abi_old", 0, ks, 1);
  lib.abi = PTE_ABI_OLDEST;
  CHECK_OK(pte_register_kernels(&lib));
  CHECK(pte_operator_registered("abi_old::op.out"), "an ABI-%u library was not registered", PTE_ABI_OLDEST);
  static pte_backend b =
      PTE_BACKEND_INIT("AbiOldBackend", NULL, NULL, test_backend_init_noop, test_backend_exec_noop, NULL);
  b.abi = PTE_ABI_OLDEST;
  CHECK_OK(pte_register_backend(&b));
  CHECK(pte_backend_find("AbiOldBackend") != NULL, "an ABI-%u backend was not registered", PTE_ABI_OLDEST);
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.abi = PTE_ABI_OLDEST;
  pte_program *p = NULL;
  CHECK_OK(pte_program_load_file(zoo_path("ops/abs_f32/model.pte"), &po, &p));
  pte_program_free(p);
}

TEST(backend_abi) {
  static pte_backend b =
      PTE_BACKEND_INIT("AbiBackend", NULL, NULL, test_backend_init_noop, test_backend_exec_noop, NULL);
  b.abi = PTE_ABI_VERSION + 1;
  CHECK_FAILS(pte_register_backend(&b), PTE_ERR_NOT_SUPPORTED, want("backend", PTE_ABI_VERSION + 1));
  CHECK(pte_backend_find("AbiBackend") == NULL, "registered");
  b.abi = PTE_ABI_VERSION;
  CHECK_OK(pte_register_backend(&b));
}

static int g_begins;
static uint64_t on_begin(void *u, const pte_event *e) {
  (void)u;
  (void)e;
  g_begins++;
  return 0;
}

TEST(options_and_tracer_abi) {
  const char *path = zoo_path("ops/abs_f32/model.pte");
  pte_program *p = NULL;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.abi = 7;
  CHECK_FAILS(pte_program_load_file(path, &po, &p), PTE_ERR_NOT_SUPPORTED, want("pte_program_options", 7));
  CHECK(p == NULL, "program returned");
  pte_tracer tr = PTE_TRACER_INIT;
  tr.begin = on_begin;
  tr.abi = PTE_ABI_VERSION + 1;
  po.abi = PTE_ABI_VERSION;
  po.tracer = &tr;
  CHECK_FAILS(pte_program_load_file(path, &po, &p), PTE_ERR_NOT_SUPPORTED,
              want("program tracer", PTE_ABI_VERSION + 1));
  CHECK(g_begins == 0, "a refused tracer was called");
  CHECK_OK(pte_program_load_file(path, NULL, &p)); /* NULL options: the defaults */
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  pte_method *m = NULL;
  mo.abi = 0;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_NOT_SUPPORTED, want("pte_method_options", 0));
  mo.abi = PTE_ABI_VERSION;
  mo.tracer = &tr;
  CHECK_FAILS(pte_method_load(p, "forward", &mo, &m), PTE_ERR_NOT_SUPPORTED,
              want("method tracer", PTE_ABI_VERSION + 1));
  CHECK(g_begins == 0 && m == NULL, "a refused tracer was called");
  mo.tracer = NULL;
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_method_load(p, "forward", &mo, &m));
  CHECK_FAILS(pte_method_set_tracer(m, &tr), PTE_ERR_NOT_SUPPORTED, want("tracer", PTE_ABI_VERSION + 1));
  tr.abi = PTE_ABI_VERSION;
  CHECK_OK(pte_method_set_tracer(m, &tr));
  pte_method_free(m);
  pte_program_free(p);
}

TEST_MAIN(T(mismatched_library_is_refused), T(kernel_library_abi), T(older_abi_is_read), T(backend_abi),
          T(options_and_tracer_abi))
