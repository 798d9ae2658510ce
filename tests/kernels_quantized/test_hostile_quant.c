/* Hostile quantization parameters inside real programs: in every quantized
 * zoo program, each 8-byte word that holds a plausible scale (a double in
 * (1e-9, 100), in the flatbuffer's Double values or the constant segments'
 * float64 scale tensors) is replaced in turn by 0, a negative, NaN, infinity,
 * a denormal and a huge value, and each small integer (zero points, quant
 * ranges, dtypes, axes) by extremes; then the program is loaded and run.
 * Every mutation must be rejected or fail with a message, never crash or
 * overflow (run it under ASan/UBSan), and the kernels must see them: many
 * runs must fail in a kernel. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/kernels_quantized.h>

#include <dirent.h>
#include <math.h>
#include <stdint.h>

#include "../common/exercise.h"
#include "../common/test_util.h"

static const double kScales[] = {0.0, -0.5, NAN, INFINITY, 1e-300, 1e300};
static const int64_t kInts[] = {INT64_MAX,        INT64_MIN + 1, -1,  -((int64_t)1 << 31),
                                (int64_t)1 << 31, 300,           -300};

typedef struct totals {
  long programs, mutations, failed_at_run, rejected, ran;
} totals;

static void mutate(const char *rel_dir, totals *t) {
  char rel[512];
  size_t n;
  snprintf(rel, sizeof rel, "%s/model.pte", rel_dir);
  uint8_t *buf = (uint8_t *)read_file(zoo_path(rel), &n);
  if (!buf) return;
  pte_exercise_stats s = {0};
  for (size_t at = 8; at + 8 <= n; at += 8) {
    double d;
    int64_t i;
    memcpy(&d, buf + at, 8);
    memcpy(&i, buf + at, 8);
    if (d > 1e-9 && d < 100) {
      for (size_t e = 0; e < sizeof kScales / sizeof kScales[0]; e++) {
        memcpy(buf + at, &kScales[e], 8);
        pte_exercise(buf, n, &s);
        t->mutations++;
      }
    } else if (i >= -300 && i <= 300 && i != 0 && at < 16384) {
      for (size_t e = 0; e < sizeof kInts / sizeof kInts[0]; e++) {
        memcpy(buf + at, &kInts[e], 8);
        pte_exercise(buf, n, &s);
        t->mutations++;
      }
    }
    memcpy(buf + at, &d, 8);
  }
  t->programs++;
  t->failed_at_run += s.failed_at_run;
  t->rejected += s.rejected;
  t->ran += s.ran;
  free(buf);
}

TEST(hostile_quantized_programs) {
  CHECK_OK(pte_kernels_portable_register());
  CHECK_OK(pte_kernels_optimized_register());
  CHECK_OK(pte_kernels_quantized_register());
  totals t = {0};
  DIR *d = opendir(zoo_path("quantized"));
  CHECK(d != NULL, "no zoo/quantized");
  struct dirent *e;
  char rel[512];
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    snprintf(rel, sizeof rel, "quantized/%s", e->d_name);
    mutate(rel, &t);
  }
  closedir(d);
  printf("  %ld programs, %ld mutations: %ld ran, %ld failed at run, %ld rejected at load\n", t.programs,
         t.mutations, t.ran, t.failed_at_run, t.rejected);
  CHECK(t.programs >= 9, "%ld quantized programs", t.programs);
  CHECK(t.failed_at_run > 300, "only %ld mutated programs failed at run", t.failed_at_run);
}

TEST_MAIN(T(hostile_quantized_programs))
