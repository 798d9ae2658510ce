/* Constant folding at method load: on programs written by fold/make_fold.py,
 * what must fold (a permute of a constant and the copy after it), what must
 * not (an expand that grows, a method output, a random operator), the
 * PTE_LOAD_NO_FOLD flag, and a malloc-free arena with and without room. */
#include <pterun/kernels_portable.h>

#include <stdlib.h>

#include "../common/test_util.h"

static uint8_t *read_prog(const char *name, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/runtime/fold/%s.pte", PTERUN_SOURCE_DIR, name);
  return (uint8_t *)read_file(path, n);
}

/* Load `buf`, run it once on ones, copy output 0 into `out` (up to `cap`
 * floats) and the first folded instructions' names into folded_names (the
 * method owns its strings: they go with it); returns the number of folded
 * instructions, -1 on failure. */
static int32_t run_once(const uint8_t *buf, size_t n, uint32_t flags, const pte_allocator *a, float *out,
                        int64_t cap, char (*folded_names)[64], int32_t max_names) {
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.flags = flags;
  pte_program *p = NULL;
  pte_method *m = NULL;
  int32_t folded = -1;
  if (pte_program_load_buffer(buf, n, &po, &p)) goto done;
  pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
  mo.allocator = a;
  if (pte_method_load(p, "forward", &mo, &m)) goto done;
  for (int32_t i = 0; i < pte_method_num_inputs(m); i++) {
    const pte_tensor *slot = pte_method_input(m, i)->u.tensor;
    static float ones[256];
    for (int k = 0; k < 256; k++) ones[k] = 1.0f;
    pte_tensor t;
    pte_tensor_init(&t, PTE_FLOAT32, slot->dim, slot->sizes, ones);
    if (pte_method_set_input_tensor(m, i, &t)) goto done;
  }
  if (pte_method_execute(m)) goto done;
  const pte_tensor *o = pte_method_output(m, 0)->u.tensor;
  int64_t numel = pte_tensor_numel(o);
  for (int64_t k = 0; k < numel && k < cap; k++) out[k] = ((const float *)o->data)[k];
  folded = pte_method_num_folded(m);
  for (int32_t i = 0, k = 0; folded_names && k < max_names && k < folded; i++)
    if (pte_method_instruction_folded(m, i))
      snprintf(folded_names[k++], sizeof folded_names[0], "%s", pte_method_instruction_folded(m, i));
done:
  if (folded < 0) fprintf(stderr, "run_once: %s\n", pte_last_error());
  pte_method_free(m);
  pte_program_free(p);
  return folded;
}

TEST(register_portable) { CHECK_OK(pte_kernels_portable_register()); }

TEST(chain_folds_and_matches) {
  size_t n;
  uint8_t *buf = read_prog("chain", &n);
  CHECK(buf, "chain.pte");
  float a[64] = {0}, b[64] = {0};
  char names[4][64] = {{0}};
  CHECK(run_once(buf, n, 0, NULL, a, 64, names, 4) == 2, "permute and the copy after it fold");
  CHECK(!strcmp(names[0], "aten::permute_copy.out"), "first folded: %s", names[0]);
  CHECK(run_once(buf, n, PTE_LOAD_NO_FOLD, NULL, b, 64, NULL, 0) == 0, "PTE_LOAD_NO_FOLD");
  CHECK(!memcmp(a, b, sizeof a), "folded and unfolded outputs differ");
  /* x (ones 3x4) @ view(w.t(), 4x8): column j sums w.t() row-major entries. */
  CHECK(a[0] != 0.0f, "output computed");
  free(buf);
}

TEST(growing_expand_stays) {
  size_t n;
  uint8_t *buf = read_prog("grow", &n);
  CHECK(buf, "grow.pte");
  float a[64];
  CHECK(run_once(buf, n, 0, NULL, a, 64, NULL, 0) == 0, "an expand that grows folded");
  CHECK(a[63] == 4.0f, "x + c: %g", (double)a[63]);
  free(buf);
}

TEST(method_output_stays) {
  size_t n;
  uint8_t *buf = read_prog("out", &n);
  CHECK(buf, "out.pte");
  float a[16];
  char names[4][64] = {{0}};
  int32_t k = run_once(buf, n, 0, NULL, a, 16, names, 4);
  CHECK(k >= 0, "runs");
  for (int32_t i = 0; i < k; i++) CHECK(strcmp(names[i], "aten::permute_copy.out"), "output folded");
  free(buf);
}

/* A stand-in random operator: chain.pte with aten::permute_copy renamed. */
static int g_rand_calls;
static pte_status fake_rand(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  g_rand_calls++;
  pte_tensor *in = a[0]->u.tensor, *out = a[n - 1]->u.tensor;
  const float *x = (const float *)in->data;
  float *y = (float *)out->data;
  for (int64_t i = 0; i < in->sizes[0]; i++)
    for (int64_t j = 0; j < in->sizes[1]; j++) y[j * in->sizes[0] + i] = x[i * in->sizes[1] + j];
  return PTE_OK;
}

TEST(random_op_stays) {
  static const pte_kernel k[] = {{"aten::rand_permcpy.out", fake_rand, 0, 0}};
  static const pte_kernel_library lib = PTE_KERNEL_LIBRARY_INIT("test_fold_rand", 0, k, 1);
  CHECK_OK(pte_register_kernels(&lib));
  size_t n;
  uint8_t *buf = read_prog("chain", &n);
  CHECK(buf, "chain.pte");
  float a[64] = {0}, b[64] = {0};
  CHECK(run_once(buf, n, 0, NULL, a, 64, NULL, 0) == 2, "baseline");
  int renamed = 0;
  for (size_t i = 0; i + 18 <= n; i++)
    if (!memcmp(buf + i, "aten::permute_copy", 18)) memcpy(buf + i, "aten::rand_permcpy", 18), renamed++;
  CHECK(renamed == 1, "renamed %d", renamed);
  CHECK(run_once(buf, n, 0, NULL, b, 64, NULL, 0) == 0, "a random operator (and what reads it) folded");
  CHECK(g_rand_calls == 1, "the random operator ran %d times, not once at execute", g_rand_calls);
  CHECK(!memcmp(a, b, sizeof a), "outputs differ");
  free(buf);
}

/* Malloc-free: folding takes arena room when there is some, else leaves the
 * instructions to execute. */
TEST(arena_with_and_without_room) {
  size_t n;
  uint8_t *buf = read_prog("chain", &n);
  CHECK(buf, "chain.pte");
  static uint8_t mem[1 << 16] __attribute__((aligned(64)));
  float ref[64] = {0}, a[64] = {0}, b[64] = {0};
  pte_arena arena;
  pte_arena_init(&arena, mem, sizeof mem);
  CHECK(run_once(buf, n, PTE_LOAD_NO_FOLD, &arena.allocator, ref, 64, NULL, 0) == 0, "no fold");
  size_t unfolded = arena.used;
  pte_arena_init(&arena, mem, sizeof mem);
  CHECK(run_once(buf, n, 0, &arena.allocator, a, 64, NULL, 0) == 2, "folds with room");
  CHECK(!memcmp(a, ref, sizeof a), "folded outputs differ");
  /* Exactly what loading needs without folding, plus the analysis table: no
   * room for the folded tensors, which then run at execute. */
  size_t cap = unfolded;
  int32_t got = -1;
  for (; cap < arena.used && got != 0; cap += 64) {
    pte_arena_init(&arena, mem, cap);
    got = run_once(buf, n, 0, &arena.allocator, b, 64, NULL, 0);
    if (got == 0) break;
  }
  CHECK(got == 0, "no arena size loaded without folding");
  CHECK(!memcmp(b, ref, sizeof b), "unfolded arena outputs differ");
  free(buf);
}

TEST_MAIN(T(register_portable), T(chain_folds_and_matches), T(growing_expand_stays), T(method_output_stays),
          T(random_op_stays), T(arena_with_and_without_room))
