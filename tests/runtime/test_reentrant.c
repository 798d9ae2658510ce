/* Registry callbacks may call back into the registries: an `accepts`, a
 * backend's is_available and init that look up and register operators and
 * backends must complete. An alarm turns a deadlock into a failure. */
#include <signal.h>
#include <unistd.h>

#include <pterun/kernels_portable.h>
#include "../common/test_util.h"

static pte_status k_noop(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  return PTE_OK;
}

/* Registers one more library from inside a callback (a fresh one each time). */
static int g_inner;
static pte_kernel g_inner_kernels[8];
static pte_kernel_library g_inner_libs[8];
static char g_inner_names[8][2][40];
static bool register_inner(const char *who) {
  if (g_inner >= 8) return true;
  int i = g_inner++;
  snprintf(g_inner_names[i][0], sizeof g_inner_names[i][0], "reenter::%s%d.out", who, i);
  snprintf(g_inner_names[i][1], sizeof g_inner_names[i][1], "reenter_%s_%d", who, i);
  g_inner_kernels[i].name = g_inner_names[i][0];
  g_inner_kernels[i].fn = k_noop;
  g_inner_libs[i].name = g_inner_names[i][1];
  g_inner_libs[i].kernels = &g_inner_kernels[i];
  g_inner_libs[i].abi = PTE_ABI_VERSION;
  g_inner_libs[i].count = 1;
  return pte_register_kernels(&g_inner_libs[i]) == PTE_OK && pte_operator_registered(g_inner_names[i][0]);
}

static int g_accepts_calls, g_accepts_ok;
static bool reentering_accepts(pte_value *const *a, int32_t n) {
  (void)a;
  (void)n;
  g_accepts_calls++;
  const char *lib = NULL;
  bool ok = pte_operator_find("aten::addmm.out", &lib) != NULL && pte_operator_count() > 0 &&
            pte_backend_count() >= 0 && pte_kernel_library_set_enabled("kernels_portable", true) == PTE_OK &&
            register_inner("accepts");
  if (ok) g_accepts_ok++;
  return false; /* decline: the portable kernel runs */
}

TEST(accepts_may_reenter_the_registry) {
  static const pte_kernel ks[] = {{"aten::addmm.out", k_noop, reentering_accepts, 0}};
  static const pte_kernel_library lib = PTE_KERNEL_LIBRARY_INIT("test_reentering", 700, ks, 1);
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_register_kernels(&lib));
  char err[512];
  CHECK(run_case(zoo_path("models/mlp"), "forward", NULL, 1e-4, 1e-5, err, sizeof err) == PTE_OK, "%s", err);
  CHECK(g_accepts_calls > 0 && g_accepts_ok == g_accepts_calls, "accepts: %d calls, %d ok", g_accepts_calls,
        g_accepts_ok);
}

static const pte_backend g_other = PTE_BACKEND_INIT(NULL, NULL, NULL, NULL, NULL, NULL);
static int g_avail_ok, g_init_ok;
static bool reentering_available(void *u) {
  (void)u;
  if (pte_backend_find("XnnpackBackend") && pte_backend_count() > 0 &&
      pte_operator_find("aten::add.out", NULL))
    g_avail_ok++;
  return true;
}
static pte_status reentering_init(void *u, pte_backend_init_ctx *c, const void *p, size_t n,
                                  const pte_compile_spec *s, int32_t ns, void **h) {
  (void)u;
  (void)c;
  (void)p;
  (void)n;
  (void)s;
  (void)ns;
  *h = NULL;
  /* An invalid backend is refused, but only after the registry was entered. */
  if (pte_backend_find("XnnpackBackend") && pte_register_backend(&g_other) == PTE_ERR_INVALID_ARGUMENT &&
      pte_backend_name(0) && register_inner("init"))
    g_init_ok++;
  return PTE_OK;
}
TEST(backend_callbacks_may_reenter_the_registry) {
  static const pte_backend b = PTE_BACKEND_INIT("XnnpackBackend", NULL, reentering_available, reentering_init,
                                                test_backend_exec_noop, NULL);
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_register_backend(&b));
  pte_program *p = NULL;
  pte_method *m = NULL;
  CHECK_OK(pte_program_load_file(zoo_path("xnnpack/add/model.pte"), NULL, &p));
  CHECK_OK(pte_method_load(p, "forward", NULL, &m));
  CHECK(g_avail_ok > 0 && g_init_ok > 0, "is_available ok %d, init ok %d", g_avail_ok, g_init_ok);
  pte_method_free(m);
  pte_program_free(p);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "test_reentrant: timed out (a registry callback deadlocked)\n";
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  _exit(2);
}

static void arm(void) {
  signal(SIGALRM, on_alarm);
  alarm(30);
}

TEST_MAIN(T(arm), T(accepts_may_reenter_the_registry), T(backend_callbacks_may_reenter_the_registry))
