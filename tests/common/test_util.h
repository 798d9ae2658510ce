/* Minimal test harness for pterun's C tests: CHECK macros, zoo paths, .npy
 * comparison. Each test file defines tests with TEST(name) and ends with
 * TEST_MAIN(). */
#ifndef PTERUN_TEST_UTIL_H
#define PTERUN_TEST_UTIL_H

#include <pterun/runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int g_test_failures;

/* For a test's own reference arithmetic (a double loop over M*N*K, say):
 * the sanitizers are there for the code under test, and instrumenting the
 * reference only makes the sanitizer build several times slower. */
#if defined(__has_attribute)
#if __has_attribute(no_sanitize)
#define TEST_REFERENCE __attribute__((no_sanitize("address", "undefined")))
#endif
#endif
#ifndef TEST_REFERENCE
#define TEST_REFERENCE
#endif

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
      g_test_failures++;                                                       \
      return;                                                                  \
    }                                                                          \
  } while (0)

#define CHECK_OK(expr)                                                      \
  do {                                                                      \
    pte_status st_ = (expr);                                                \
    CHECK(st_ == PTE_OK, "%s: %s", pte_status_name(st_), pte_last_error()); \
  } while (0)

/* Expect a failure with `status` whose message contains `needle`. */
#define CHECK_FAILS(expr, status, needle)                                                             \
  do {                                                                                                \
    pte_status st_ = (expr);                                                                          \
    CHECK(st_ == (status), "expected %s, got %s (%s)", pte_status_name(status), pte_status_name(st_), \
          pte_last_error());                                                                          \
    CHECK(strstr(pte_last_error(), (needle)) != NULL, "message '%s' lacks '%s'", pte_last_error(),    \
          (needle));                                                                                  \
  } while (0)

typedef void (*test_fn)(void);
typedef struct test_case {
  const char *name;
  test_fn fn;
} test_case;

#define TEST(name) static void name(void)

/* A test runs when its name holds argv[1] (all when none is given); tests
 * named setup_* always run, since others rely on them. Each line gives the
 * test's wall time, to see what a slow build (emulated, sanitized) spends. */
#define TEST_MAIN(...)                                                                                  \
  int g_test_failures = 0;                                                                              \
  int main(int argc, char **argv) {                                                                     \
    static const test_case tests[] = {__VA_ARGS__};                                                     \
    int n = (int)(sizeof tests / sizeof tests[0]);                                                      \
    for (int i = 0; i < n; i++) {                                                                       \
      if (argc > 1 && !strstr(tests[i].name, argv[1]) && strncmp(tests[i].name, "setup_", 6)) continue; \
      int before = g_test_failures;                                                                     \
      struct timespec t0, t1;                                                                           \
      timespec_get(&t0, TIME_UTC);                                                                      \
      tests[i].fn();                                                                                    \
      timespec_get(&t1, TIME_UTC);                                                                      \
      printf("%s %s (%.2f s)\n", g_test_failures == before ? "ok  " : "FAIL", tests[i].name,            \
             (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));               \
    }                                                                                                   \
    return g_test_failures ? 1 : 0;                                                                     \
  }
#define T(fn) \
  { #fn, fn }

/* Path of a file in the source tree's zoo, e.g. zoo_path("models/mlp/model.pte"). */
const char *zoo_path(const char *rel);
/* Read a whole file (free() it); NULL if missing. */
void *read_file(const char *path, size_t *size);
/* Compare a tensor with an .npy file: returns NULL if within tolerance. */
const char *compare_npy(const pte_tensor *t, const char *npy_path, double rtol, double atol);

/* Run a zoo case folder with its inputs; compare with expected outputs. */
pte_status run_case(const char *case_dir, const char *method, const char *data_file, double rtol, double atol,
                    char *err, size_t errn);

/* Backend callbacks that accept anything and do nothing, for tests that only need a
 * well-formed backend to register. */
pte_status test_backend_init_noop(void *u, pte_backend_init_ctx *c, const void *p, size_t n,
                                  const pte_compile_spec *s, int32_t ns, void **h);
pte_status test_backend_exec_noop(void *u, pte_backend_exec_ctx *c, void *h, pte_value **a, int32_t n);

#endif
