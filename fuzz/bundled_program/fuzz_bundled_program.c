/* libFuzzer target: BundledProgram (.bpte) files, loaded, and every case
 * that loads run and checked against its expected outputs. A rejected file
 * must say why. The embedded program's allocations are capped as a hostile
 * size field would ask (tests/common/exercise.h). */
#include <pterun/bundled_program.h>

#include <stdio.h>
#include <stdlib.h>

#include "../../tests/common/exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void *capped_alloc(void *user, size_t size, size_t align) {
  (void)user;
  if (size > PTE_EXERCISE_CAP) return NULL;
  return aligned_alloc(align, (size + align - 1) & ~(align - 1));
}
static void capped_free(void *user, void *p) {
  (void)user;
  free(p);
}
static const pte_allocator g_capped = {NULL, capped_alloc, capped_free};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pte_bundled_program *bp = NULL;
  if (pte_bundled_program_load_buffer(data, size, &bp) != PTE_OK) {
    if (!pte_last_error()[0]) {
      fprintf(stderr, "bundled program rejected without a message\n");
      abort();
    }
    return 0;
  }
  size_t n;
  const void *pte = pte_bundled_program_program(bp, &n);
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.allocator = &g_capped;
  pte_program *program = NULL;
  if (pte_program_load_buffer(pte, n, &po, &program) == PTE_OK) {
    for (int32_t s = 0; s < pte_bundled_program_suite_count(bp); s++) {
      const char *name = pte_bundled_program_suite_method(bp, s);
      pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
      mo.allocator = &g_capped;
      mo.max_instructions = 100000;
      pte_method *m = NULL;
      if (pte_method_load(program, name, &mo, &m) != PTE_OK) continue;
      for (int32_t c = 0; c < pte_bundled_program_case_count(bp, name); c++) {
        pte_bundled_mismatch w;
        if (pte_bundled_program_set_inputs(bp, m, c) == PTE_OK && pte_method_execute(m) == PTE_OK)
          (void)pte_bundled_program_check_outputs(bp, m, c, 1e-5, 1e-8, &w);
      }
      pte_method_free(m);
    }
    pte_program_free(program);
  }
  pte_bundled_program_free(bp);
  return 0;
}
