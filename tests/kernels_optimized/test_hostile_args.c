/* Hostile operator arguments: every small 64-bit integer in the flatbuffer
 * part of a zoo program (the Int values that carry strides, paddings,
 * dilations, dims, groups, split sizes...) replaced in turn by extreme values,
 * and a sample of its small 32-bit words (tensor sizes, dim orders),
 * then the program loaded and run: through the optimized kernels (which must
 * decline or handle them) and through the portable kernels alone (which must
 * reject them with a message). Nothing may crash, hang or overflow; run it
 * under ASan/UBSan, where the fuzzer found an overflow of exactly this kind. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>

#include <dirent.h>
#include <stdint.h>

#include "../common/exercise.h"
#include "../common/test_util.h"

static const int64_t kExtremes[] = {INT64_MAX,
                                    INT64_MIN + 1,
                                    -1,
                                    -((int64_t)1 << 31),
                                    (int64_t)1 << 20,
                                    (int64_t)1 << 31,
                                    ((int64_t)1 << 32) + 1,
                                    (int64_t)1 << 62};

/* Bytes holding the flatbuffer (not the segments behind it). */
static size_t flatbuffer_size(const uint8_t *buf, size_t n) {
  uint64_t program_size;
  if (n >= 32 && !memcmp(buf + 8, "eh00", 4)) {
    memcpy(&program_size, buf + 16, 8);
    if (program_size <= n) return (size_t)program_size;
  }
  return n;
}

typedef struct totals {
  long programs, mutations, ran, failed_at_run, rejected;
} totals;

/* 32-bit words (tensor sizes, dim orders, indices into the value table):
 * every 4th small one, a different quarter per program. */
static const int32_t kExtremes32[] = {INT32_MAX, INT32_MIN, -1, 65536};

static void mutate_program(const char *rel_dir, totals *t) {
  char rel[512];
  size_t n;
  snprintf(rel, sizeof rel, "%s/model.pte", rel_dir);
  uint8_t *buf = (uint8_t *)read_file(zoo_path(rel), &n);
  if (!buf) return;
  pte_data_map_free(g_exercise_map);
  g_exercise_map = NULL;
  snprintf(rel, sizeof rel, "%s/model.ptd", rel_dir);
  (void)pte_data_map_load_file(zoo_path(rel), NULL, &g_exercise_map);
  size_t fb = flatbuffer_size(buf, n);
  if (fb > 65536) fb = 65536;
  pte_exercise_stats s = {0};
  for (size_t at = 8; at + 8 <= fb; at += 8) {
    int64_t saved;
    memcpy(&saved, buf + at, 8);
    if (saved < -4 || saved > 4096) continue;
    for (size_t e = 0; e < sizeof kExtremes / sizeof kExtremes[0]; e++) {
      memcpy(buf + at, &kExtremes[e], 8);
      pte_exercise(buf, n, &s);
      t->mutations++;
    }
    memcpy(buf + at, &saved, 8);
  }
  for (size_t at = 8 + 4 * (size_t)(t->programs % 4); at + 4 <= fb; at += 16) {
    int32_t saved;
    memcpy(&saved, buf + at, 4);
    if (saved < 0 || saved > 64) continue;
    for (size_t e = 0; e < sizeof kExtremes32 / sizeof kExtremes32[0]; e++) {
      memcpy(buf + at, &kExtremes32[e], 4);
      pte_exercise(buf, n, &s);
      t->mutations++;
    }
    memcpy(buf + at, &saved, 4);
  }
  t->programs++;
  t->ran += s.ran;
  t->failed_at_run += s.failed_at_run;
  t->rejected += s.rejected;
  free(buf);
}

static void mutate_dir(const char *group, totals *t) {
  DIR *d = opendir(zoo_path(group));
  if (!d) return;
  struct dirent *e;
  char rel[512];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    /* dt_*: an operator's float32 case again in another dtype, the same
     * arguments and structure; mutating them doubles the time (ASan) and
     * mostly reaches the same argument checks */
    if (!strncmp(e->d_name, "dt_", 3)) continue;
    snprintf(rel, sizeof rel, "%s/%s", group, e->d_name);
    mutate_program(rel, t);
  }
  closedir(d);
}

static void run_all(const char *label) {
  totals t = {0};
  mutate_dir("ops", &t);
  mutate_dir("models", &t);
  printf("  %s: %ld programs, %ld mutations: %ld ran, %ld failed at run, %ld rejected at load\n", label,
         t.programs, t.mutations, t.ran, t.failed_at_run, t.rejected);
  CHECK(t.programs > 500, "the zoo was not found (%ld programs)", t.programs);
  /* the mutations must reach the kernels, not only the loader */
  CHECK(t.failed_at_run > 1000, "only %ld mutated programs failed at run", t.failed_at_run);
}

TEST(optimized_and_portable) {
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_kernels_optimized_register());
  run_all("optimized kernels over portable");
}

TEST(portable_alone) {
  CHECK_OK(pte_kernel_library_set_enabled("kernels_optimized", false));
  run_all("portable kernels alone");
  CHECK_OK(pte_kernel_library_set_enabled("kernels_optimized", true));
}

TEST(cleanup) {
  pte_data_map_free(g_exercise_map);
  g_exercise_map = NULL;
}

TEST_MAIN(T(optimized_and_portable), T(portable_alone), T(cleanup))
