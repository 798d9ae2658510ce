/* The LLM custom operators (libpterun_llm): registration, every zoo/llm
 * case on 1 and 3 threads, and hostile start positions, which must fail
 * with a message naming the problem (never write outside a cache). */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>
#include <pterun/llm.h>
#include <pterun/threadpool.h>

#include <stdint.h>

#include "../../cli/npy.h"
#include "../common/test_util.h"

/* Shared builds register by linking; static ones (make test-static) here. */
static void register_all(void) {
  if (pte_kernels_portable_register() || pte_kernels_optimized_register() || pte_llm_register())
    fprintf(stderr, "register: %s\n", pte_last_error());
}

static const char *const kOps[] = {"llama::custom_sdpa.out", "llama::sdpa_with_kv_cache.out",
                                   "llama::update_cache.out", "llama::update_cache_with_indices.out"};

TEST(registered) {
  CHECK(pte_llm_count() == 4, "count %d", (int)pte_llm_count());
  CHECK_OK(pte_llm_register()); /* idempotent */
  for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; i++) {
    const char *lib = NULL;
    CHECK(pte_operator_find(kOps[i], &lib) != NULL, "%s not registered", kOps[i]);
    CHECK(lib && !strcmp(lib, "llm"), "%s from %s", kOps[i], lib ? lib : "?");
  }
}

static const char *const kCases[] = {"custom_sdpa_prefill_gqa_pos0",
                                     "custom_sdpa_prefill_gqa_pos7",
                                     "custom_sdpa_decode_gqa_pos0",
                                     "custom_sdpa_decode_gqa_pos11",
                                     "custom_sdpa_noncausal_scale_pos0",
                                     "custom_sdpa_noncausal_scale_pos7",
                                     "custom_sdpa_mask_pos0",
                                     "custom_sdpa_mask_pos3",
                                     "custom_sdpa_tiled_pos223",
                                     "sdpa_with_kv_cache_pos0",
                                     "sdpa_with_kv_cache_pos7",
                                     "update_cache_pos0",
                                     "update_cache_pos7",
                                     "update_cache_with_indices_pos0"};

TEST(zoo_cases_on_1_and_3_threads) {
  const size_t threads[] = {1, 3};
  for (size_t t = 0; t < 2; t++) {
    CHECK_OK(pte_threadpool_set_threads(threads[t]));
    for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; i++) {
      char rel[256], err[512];
      snprintf(rel, sizeof rel, "llm/%s", kCases[i]);
      pte_status st = run_case(zoo_path(rel), "forward", NULL, 1e-4, 1e-5, err, sizeof err);
      CHECK(st == PTE_OK, "%s (%zu threads): %s", kCases[i], threads[t], err);
    }
  }
  CHECK_OK(pte_threadpool_set_threads(0));
}

/* Load a zoo/llm program with its case inputs, replace the start position
 * (input pos_index) and run: the status and message. With `expect` (a case
 * name), the outputs are compared with that case's expected ones. */
static pte_status run_at_expect(const char *case_name, int32_t pos_index, int64_t pos, const char *expect,
                                char *msg, size_t msgn) {
  char path[1024];
  pte_program *prog = NULL;
  pte_method *m = NULL;
  void *owned[8] = {0};
  pte_tensor ins[8];
  snprintf(path, sizeof path, "llm/%s/model.pte", case_name);
  pte_status st = pte_program_load_file(zoo_path(path), NULL, &prog);
  if (!st) st = pte_method_load(prog, "forward", NULL, &m);
  for (int32_t i = 0; !st && i < pte_method_num_inputs(m) && i < 8; i++) {
    npy_array a;
    snprintf(path, sizeof path, "llm/%s/inputs/%d.npy", case_name, (int)i);
    if ((st = npy_read_file(zoo_path(path), &a, &owned[i]))) break;
    if (i == pos_index) memcpy((void *)a.data, &pos, sizeof pos);
    pte_tensor_init(&ins[i], a.dtype, a.dim, a.sizes, (void *)a.data);
    st = pte_method_set_input_tensor(m, i, &ins[i]);
  }
  if (!st) st = pte_method_execute(m);
  snprintf(msg, msgn, "%s", st ? pte_last_error() : "");
  for (int32_t i = 0; !st && expect && i < pte_method_num_outputs(m); i++) {
    snprintf(path, sizeof path, "llm/%s/expected/%d.npy", expect, (int)i);
    const char *diff = compare_npy(pte_method_output(m, i)->u.tensor, zoo_path(path), 1e-4, 1e-5);
    if (diff) {
      snprintf(msg, msgn, "output %d: %s", (int)i, diff);
      st = PTE_ERR_INTERNAL;
    }
  }
  for (int i = 0; i < 8; i++) free(owned[i]);
  pte_method_free(m);
  pte_program_free(prog);
  return st;
}

static pte_status run_at(const char *case_name, int32_t pos_index, int64_t pos, char *msg, size_t msgn) {
  return run_at_expect(case_name, pos_index, pos, NULL, msg, msgn);
}

static void expect_refused(const char *case_name, int32_t pos_index, int64_t pos, const char *needle) {
  char msg[512];
  pte_status st = run_at(case_name, pos_index, pos, msg, sizeof msg);
  CHECK(st != PTE_OK, "%s at start_pos %lld ran", case_name, (long long)pos);
  CHECK(strstr(msg, needle) != NULL, "%s at %lld: message '%s' lacks '%s'", case_name, (long long)pos, msg,
        needle);
}

TEST(start_pos_outside_the_cache_is_refused) {
  char msg[512];
  /* the last position that fits runs (5 + 7 == 12, the cache length) */
  CHECK(run_at_expect("custom_sdpa_prefill_gqa_pos0", 3, 7, "custom_sdpa_prefill_gqa_pos7", msg,
                      sizeof msg) == PTE_OK,
        "%s", msg);
  const int64_t bad[] = {8, -1, INT64_MAX, INT64_MIN, (int64_t)1 << 40};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *sdpa_msg = bad[i] < 0 ? "negative" : "exceeds the cache length";
    expect_refused("custom_sdpa_prefill_gqa_pos0", 3, bad[i], sdpa_msg);
    expect_refused("custom_sdpa_decode_gqa_pos0", 3, bad[i] == 8 ? 12 : bad[i], sdpa_msg);
    expect_refused("sdpa_with_kv_cache_pos0", 5, bad[i], "outside the cache length");
    expect_refused("update_cache_pos0", 2, bad[i], "outside the cache length");
  }
}

TEST(masked_attention_ignores_start_pos) {
  /* with a mask the whole cache is attended, as in ExecuTorch: any start
   * position gives the same result, so the pos3 case's outputs hold */
  char msg[512];
  CHECK(run_at_expect("custom_sdpa_mask_pos3", 3, 0, "custom_sdpa_mask_pos0", msg, sizeof msg) == PTE_OK,
        "%s", msg);
  CHECK(run_at_expect("custom_sdpa_mask_pos0", 3, 1000, "custom_sdpa_mask_pos3", msg, sizeof msg) == PTE_OK,
        "%s", msg);
}

TEST(setup) { register_all(); }

TEST_MAIN(T(setup), T(registered), T(zoo_cases_on_1_and_3_threads), T(start_pos_outside_the_cache_is_refused),
          T(masked_attention_ignores_start_pos))
