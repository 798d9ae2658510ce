/* The operator and backend registries: idempotence, duplicates, priorities,
 * declining kernels, concurrent registration. Links only the runtime. */
#include <pthread.h>

#include "../common/test_util.h"

static pte_status k_one(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  return PTE_OK;
}
static pte_status k_two(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  return PTE_OK;
}
static bool never(pte_value *const *a, int32_t n) {
  (void)a;
  (void)n;
  return false;
}

TEST(prim_ops_are_builtin) {
  CHECK(pte_operator_registered("aten::sym_size.int"), "sym_size missing");
  CHECK(pte_operator_registered("executorch_prim::et_view.default"), "et_view missing");
  CHECK(pte_operator_registered("executorch_prim::add.Scalar"), "prim add missing");
  CHECK(pte_operator_count() >= 20, "only %d operators", (int)pte_operator_count());
}

TEST(duplicate_operator_is_rejected) {
  static const pte_kernel a[] = {{"test::dup.out", k_one, 0, 0}};
  static const pte_kernel b[] = {{"test::other.out", k_two, 0, 0}, {"test::dup.out", k_two, 0, 0}};
  static const pte_kernel_library la = PTE_KERNEL_LIBRARY_INIT("test_lib_a", 0, a, 1);
  static const pte_kernel_library lb = PTE_KERNEL_LIBRARY_INIT("test_lib_b", 0, b, 2);
  CHECK_OK(pte_register_kernels(&la));
  CHECK_OK(pte_register_kernels(&la)); /* the same library again is harmless */
  CHECK_FAILS(pte_register_kernels(&lb), PTE_ERR_ALREADY_EXISTS, "test::dup.out");
  /* nothing of the rejected library was registered */
  CHECK(!pte_operator_registered("test::other.out"), "partial registration");
  const char *lib = NULL;
  CHECK(pte_operator_find("test::dup.out", &lib)->fn == k_one, "wrong kernel");
  CHECK(strcmp(lib, "test_lib_a") == 0, "library %s", lib);
}

TEST(same_library_name_is_rejected) {
  static const pte_kernel a[] = {{"test::named.out", k_one, 0, 0}};
  static const pte_kernel_library l1 = PTE_KERNEL_LIBRARY_INIT("test_same_name", 0, a, 1);
  static const pte_kernel_library l2 = PTE_KERNEL_LIBRARY_INIT("test_same_name", 0, a, 1);
  CHECK_OK(pte_register_kernels(&l1));
  CHECK_FAILS(pte_register_kernels(&l2), PTE_ERR_ALREADY_EXISTS, "test_same_name");
}

TEST(higher_priority_wins_unless_it_declines) {
  static const pte_kernel lo[] = {{"test::prio.out", k_one, 0, 0}, {"test::decl.out", k_one, 0, 0}};
  static const pte_kernel hi[] = {{"test::prio.out", k_two, 0, 0}, {"test::decl.out", k_two, never, 0}};
  static const pte_kernel_library llo = PTE_KERNEL_LIBRARY_INIT("test_lo", 0, lo, 2);
  static const pte_kernel_library lhi = PTE_KERNEL_LIBRARY_INIT("test_hi", 100, hi, 2);
  CHECK_OK(pte_register_kernels(&lhi));
  CHECK_OK(pte_register_kernels(&llo));
  CHECK(pte_operator_find("test::prio.out", NULL)->fn == k_two, "priority ignored");
  /* A plain lookup ignores `accepts`; method loading honours it (test_method). */
  CHECK(pte_operator_find("test::decl.out", NULL)->fn == k_two, "lookup");
}

TEST(backend_registry) {
  static pte_backend b1;
  b1.abi = PTE_ABI_VERSION;
  b1.name = "TestBackend";
  b1.init = (pte_status(*)(void *, pte_backend_init_ctx *, const void *, size_t, const pte_compile_spec *,
                           int32_t, void **))0;
  CHECK_FAILS(pte_register_backend(&b1), PTE_ERR_INVALID_ARGUMENT, "init");
  CHECK(pte_backend_find("TestBackend") == NULL, "registered without init");
}

TEST(backend_duplicates) {
  static pte_backend b1 =
      PTE_BACKEND_INIT("DupBackend", NULL, NULL, test_backend_init_noop, test_backend_exec_noop, NULL);
  static pte_backend b2 =
      PTE_BACKEND_INIT("DupBackend", NULL, NULL, test_backend_init_noop, test_backend_exec_noop, NULL);
  int32_t before = pte_backend_count();
  CHECK_OK(pte_register_backend(&b1));
  CHECK_OK(pte_register_backend(&b1));
  CHECK_FAILS(pte_register_backend(&b2), PTE_ERR_ALREADY_EXISTS, "DupBackend");
  CHECK(pte_backend_count() == before + 1, "count %d", (int)pte_backend_count());
  CHECK(pte_backend_find("DupBackend") == &b1, "first registration must win");
}

#define NTHREADS 8
#define PER_THREAD 40
static pte_kernel g_thread_kernels[NTHREADS][PER_THREAD];
static char g_thread_names[NTHREADS][PER_THREAD][32];
static pte_kernel_library g_thread_libs[NTHREADS];
static char g_lib_names[NTHREADS][32];

static void *register_thread(void *arg) {
  int t = (int)(intptr_t)arg;
  pte_status st = pte_register_kernels(&g_thread_libs[t]);
  /* lookups race with other registrations */
  for (int i = 0; i < 200; i++) (void)pte_operator_registered("aten::sym_size.int");
  return (void *)(intptr_t)st;
}

TEST(concurrent_registration) {
  for (int t = 0; t < NTHREADS; t++) {
    for (int k = 0; k < PER_THREAD; k++) {
      snprintf(g_thread_names[t][k], 32, "thr%d::op%d.out", t, k);
      g_thread_kernels[t][k].name = g_thread_names[t][k];
      g_thread_kernels[t][k].fn = k_one;
    }
    snprintf(g_lib_names[t], 32, "thread_lib_%d", t);
    g_thread_libs[t].name = g_lib_names[t];
    g_thread_libs[t].kernels = g_thread_kernels[t];
    g_thread_libs[t].abi = PTE_ABI_VERSION;
    g_thread_libs[t].count = PER_THREAD;
  }
  int32_t before = pte_operator_count();
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, register_thread, (void *)(intptr_t)t);
  for (int t = 0; t < NTHREADS; t++) {
    void *r;
    pthread_join(th[t], &r);
    CHECK((intptr_t)r == PTE_OK, "thread %d failed", t);
  }
  CHECK(pte_operator_count() == before + NTHREADS * PER_THREAD, "count %d", (int)pte_operator_count());
  for (int t = 0; t < NTHREADS; t++)
    for (int k = 0; k < PER_THREAD; k++)
      CHECK(pte_operator_registered(g_thread_names[t][k]), "%s missing", g_thread_names[t][k]);
  /* names come back sorted and distinct */
  for (int32_t i = 1; i < pte_operator_count(); i++)
    CHECK(strcmp(pte_operator_name(i - 1), pte_operator_name(i)) < 0, "not sorted at %d", (int)i);
}

TEST(status_names) {
  char v[64];
  snprintf(v, sizeof v, "%d.%d.%d", PTE_VERSION_MAJOR, PTE_VERSION_MINOR, PTE_VERSION_PATCH);
  CHECK(!strcmp(pte_version(), PTE_VERSION_STRING) && !strcmp(v, PTE_VERSION_STRING),
        "version %s, header %s (%s)", pte_version(), PTE_VERSION_STRING, v);
  CHECK(!strcmp(pte_status_name(PTE_ERR_NOT_FOUND), "PTE_ERR_NOT_FOUND"), "name");
  CHECK(!strcmp(pte_status_name((pte_status)999), "PTE_ERR_UNKNOWN"), "unknown");
  CHECK(pte_dtype_size(PTE_FLOAT32) == 4 && pte_dtype_size(99) == 0, "dtype sizes");
  CHECK(!strcmp(pte_dtype_name(PTE_BOOL), "bool"), "dtype name");
}

TEST(tensor_resize_rules) {
  float buf[24];
  int64_t s[3] = {2, 3, 4};
  pte_tensor t;
  CHECK_OK(pte_tensor_init(&t, PTE_FLOAT32, 3, s, buf));
  CHECK(t.strides[0] == 12 && t.strides[1] == 4 && t.strides[2] == 1, "strides");
  int64_t same[3] = {2, 3, 4}, other[3] = {2, 3, 3};
  CHECK_OK(pte_tensor_resize(&t, 3, same));
  CHECK_FAILS(pte_tensor_resize(&t, 3, other), PTE_ERR_INVALID_ARGUMENT, "static");
  t.dynamism = PTE_SHAPE_DYNAMIC_BOUND;
  CHECK_OK(pte_tensor_resize(&t, 3, other));
  CHECK(t.strides[0] == 9, "restride %lld", (long long)t.strides[0]);
  int64_t big[3] = {2, 3, 5};
  CHECK_FAILS(pte_tensor_resize(&t, 3, big), PTE_ERR_INVALID_ARGUMENT, "room for");
  int64_t neg[3] = {2, -1, 4};
  CHECK_FAILS(pte_tensor_init(&t, PTE_FLOAT32, 3, neg, buf), PTE_ERR_INVALID_ARGUMENT, "negative");
}

TEST_MAIN(T(prim_ops_are_builtin), T(duplicate_operator_is_rejected), T(same_library_name_is_rejected),
          T(higher_priority_wins_unless_it_declines), T(backend_registry), T(backend_duplicates),
          T(concurrent_registration), T(status_names), T(tensor_resize_rules))
