/* Small helpers shared by the XNNPACK delegate tests: checks, files, the
 * zoo case layout (case.json, inputs/, expected/), comparisons. */
#ifndef PTERUN_XNN_TEST_UTIL_H
#define PTERUN_XNN_TEST_UTIL_H

#include <pterun/runtime.h>

#include <stdio.h>

extern int xt_failures;

#define XT_CHECK(cond, ...)                                                    \
  do {                                                                         \
    if (!(cond)) {                                                             \
      xt_failures++;                                                           \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, "\n");                                                   \
    }                                                                          \
  } while (0)

/* Whole file into malloc'd memory (NULL on failure). */
void *xt_read_file(const char *path, size_t *size);

/* Zoo-layout cases found recursively under `root` (directories holding
 * case.json and model.pte), sorted. Returns the count; free with xt_free_list. */
int xt_find_cases(const char *root, char ***out);
void xt_free_list(char **list, int n);

/* Minimal case.json access: a string or number value by key ("" / dflt). */
typedef struct xt_case {
  char dir[1024];
  char method[128];
  char expect_error[256];     /* load must fail with this text */
  char expect_run_error[256]; /* execute must fail with this text */
  double rtol, atol;
  bool has_data; /* model.ptd next to model.pte */
} xt_case;
bool xt_load_case(const char *dir, xt_case *c);

/* For tests that stand in for a backend: every case found under the roots
 * has its program (with its .ptd) and every method loaded and freed, which
 * gives the registered backend's init each delegate. Methods may fail
 * (operators missing in this binary). xt_current_case names the case while
 * it loads; `done` (may be NULL) follows each, told whether its program
 * loaded. */
extern const char *xt_current_case;
void xt_init_delegates(int nroots, char *const *roots, void (*done)(const char *dir, bool loaded));

/* Inputs of a case as tensors over malloc'd data. */
typedef struct xt_tensors {
  int n;
  pte_tensor t[16];
  void *owned[16];
} xt_tensors;
bool xt_load_npys(const char *dir, const char *sub, xt_tensors *out);
void xt_free_tensors(xt_tensors *ts);

/* Compare a tensor (any dim order) with an expected contiguous one; prints
 * the first mismatch. Returns the max abs error through *max_err. */
bool xt_compare(const pte_tensor *got, const pte_tensor *want, double rtol, double atol, double *max_err,
                const char *what);

#endif
