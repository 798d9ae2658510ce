/* Hostile programs: real zoo programs truncated at many offsets, with random
 * bit flips, with 32-bit words replaced by extreme values (out-of-range
 * indices, huge sizes, negative counts), wrong magic and broken headers.
 * Every one must load, fail cleanly or run: never crash, hang or touch
 * memory it does not own (run this under ASan/UBSan). */
#include <pterun/kernels_portable.h>

#include <stdlib.h>

#include "../common/test_util.h"

#include "../common/exercise.h"

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static const char *const kPrograms[] = {"models/mlp",
                                        "models/small_cnn",
                                        "models/transformer_tiny",
                                        "models/dynamic_batch_b3",
                                        "models/two_methods_forward",
                                        "models/external_weights",
                                        "models/control_flow_true",
                                        "models/dynamic_symbolic_b2",
                                        "xnnpack/mlp"};

static uint8_t *load_zoo(const char *dir, size_t *n) {
  char rel[256];
  snprintf(rel, sizeof rel, "%s/model.pte", dir);
  return (uint8_t *)read_file(zoo_path(rel), n);
}

static void set_map(const char *dir) {
  pte_data_map_free(g_exercise_map);
  g_exercise_map = NULL;
  char rel[256];
  snprintf(rel, sizeof rel, "%s/model.ptd", dir);
  (void)pte_data_map_load_file(zoo_path(rel), NULL, &g_exercise_map);
}

/* What a test expects of each program's counts. */
typedef enum { EXPECT_ANY, EXPECT_SOME_REJECTED, EXPECT_RUNS } expect;

/* Hands each zoo program (its data map set) to `damage`, which runs
 * pte_exercise on variants of it, then logs and checks the counts. */
static void each_program(const char *what, void (*damage)(uint8_t *buf, size_t n, pte_exercise_stats *s),
                         expect want) {
  for (size_t k = 0; k < sizeof kPrograms / sizeof kPrograms[0]; k++) {
    size_t n;
    uint8_t *buf = load_zoo(kPrograms[k], &n);
    CHECK(buf, "missing %s", kPrograms[k]);
    set_map(kPrograms[k]);
    pte_exercise_stats s = {0};
    damage(buf, n, &s);
    free(buf);
    printf("  %s: %zu bytes, %s: %ld rejected, %ld loaded, %ld ran, %ld failed at run\n", kPrograms[k], n,
           what, s.rejected, s.loaded, s.ran, s.failed_at_run);
    if (want == EXPECT_SOME_REJECTED) CHECK(s.rejected > 0, "%s: no %s rejected", kPrograms[k], what);
    /* the delegated program needs its backend, which this test does not link */
    if (want == EXPECT_RUNS)
      CHECK(s.loaded == 1 && (s.ran >= 1 || strstr(kPrograms[k], "xnnpack")), "%s: loaded %ld ran %ld: %s",
            kPrograms[k], s.loaded, s.ran, pte_last_error());
  }
}

static void as_is(uint8_t *buf, size_t n, pte_exercise_stats *s) { pte_exercise(buf, n, s); }

TEST(originals_run) {
  CHECK_OK(pte_kernels_portable_register());
  each_program("original", as_is, EXPECT_RUNS);
}

static void truncate_at_many(uint8_t *buf, size_t n, pte_exercise_stats *s) {
  size_t step = n > 4096 ? n / 512 : 1;
  for (size_t cut = 0; cut < n; cut += (cut < 512 ? 1 : step)) pte_exercise(buf, cut, s);
}

TEST(truncated) { each_program("truncations", truncate_at_many, EXPECT_SOME_REJECTED); }

static void flip_bits(uint8_t *buf, size_t n, pte_exercise_stats *s) {
  /* the flatbuffer part holds the structure; aim most flips there */
  size_t region = n < 65536 ? n : 65536;
  for (int it = 0; it < 800; it++) {
    size_t at = (size_t)(rnd() % region);
    int flips = 1 + (int)(rnd() % 3);
    uint8_t saved[3];
    size_t pos[3];
    for (int f = 0; f < flips; f++) {
      pos[f] = (at + (size_t)f * (rnd() % 64)) % n;
      saved[f] = buf[pos[f]];
      buf[pos[f]] ^= (uint8_t)(1u << (rnd() % 8));
    }
    pte_exercise(buf, n, s);
    for (int f = flips - 1; f >= 0; f--) buf[pos[f]] = saved[f];
  }
}

TEST(bit_flips) { each_program("bit flips", flip_bits, EXPECT_ANY); }

static void extreme_words_in(uint8_t *buf, size_t n, pte_exercise_stats *s) {
  static const uint32_t extremes[] = {0xFFFFFFFFu, 0x7FFFFFFFu, 0x80000000u, 0x00010000u, 0xFFFFFF00u};
  /* every word of the first 4 KB (headers, root tables), then a sample */
  size_t region = n < 16384 ? n : 16384;
  for (size_t at = 0; at + 4 <= region; at += (at < 4096 ? 4 : 12)) {
    uint32_t saved;
    memcpy(&saved, buf + at, 4);
    for (size_t e = 0; e < sizeof extremes / sizeof extremes[0]; e++) {
      memcpy(buf + at, &extremes[e], 4);
      pte_exercise(buf, n, s);
    }
    memcpy(buf + at, &saved, 4);
  }
}

TEST(extreme_words) { each_program("extreme words", extreme_words_in, EXPECT_SOME_REJECTED); }

TEST(headers) {
  size_t n;
  uint8_t *buf = load_zoo("models/mlp", &n);
  CHECK(buf, "missing mlp");
  set_map("models/mlp");
  uint8_t *copy = (uint8_t *)aligned_alloc(64, (n + 64) & ~(size_t)63);
  pte_program *p = NULL;
  memcpy(copy, buf, n);
  memcpy(copy + 4, "ET13", 4);
  CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM, "incompatible version");
  memcpy(copy + 4, "JUNK", 4);
  CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM,
              "not an ExecuTorch program");
  memcpy(copy, buf, n);
  if (!memcmp(copy + 8, "eh00", 4)) {
    uint64_t huge = UINT64_MAX / 2;
    memcpy(copy + 16, &huge, 8); /* program size */
    CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM, "program size");
    memcpy(copy, buf, n);
    memcpy(copy + 24, &huge, 8); /* segment base */
    CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM, "segment base");
    memcpy(copy, buf, n);
    uint32_t len = 3;
    memcpy(copy + 12, &len, 4);
    CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM, "header length");
  }
  memcpy(copy, buf, n);
  uint32_t root = 0xFFFFFF00u;
  memcpy(copy, &root, 4);
  CHECK_FAILS(pte_program_load_buffer(copy, n, NULL, &p), PTE_ERR_INVALID_PROGRAM, "Program");
  CHECK_FAILS(pte_program_load_buffer(copy, 3, NULL, &p), PTE_ERR_INVALID_PROGRAM, "too small");
  /* a .ptd that is not one */
  pte_data_map *map = NULL;
  CHECK_FAILS(pte_data_map_load_buffer(buf, n, NULL, &map), PTE_ERR_INVALID_PROGRAM, "not a .ptd");
  free(copy);
  free(buf);
}

TEST(cleanup) {
  pte_data_map_free(g_exercise_map);
  g_exercise_map = NULL;
}

TEST_MAIN(T(originals_run), T(truncated), T(bit_flips), T(extreme_words), T(headers), T(cleanup))
