#include "exercise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pte_data_map *g_exercise_map;

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

void pte_exercise(const uint8_t *buf, size_t size, pte_exercise_stats *s) {
  void *copy = aligned_alloc(64, (size + 64) & ~(size_t)63);
  if (!copy) return;
  if (size) memcpy(copy, buf, size);
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.allocator = &g_capped;
  po.data_maps = &g_exercise_map;
  po.num_data_maps = g_exercise_map ? 1 : 0;
  pte_program *p = NULL;
  if (pte_program_load_buffer(copy, size, &po, &p) != PTE_OK) {
    if (pte_last_error()[0] == 0) {
      fprintf(stderr, "program rejected without a message\n");
      abort();
    }
    s->rejected++;
    free(copy);
    return;
  }
  s->loaded++;
  for (int32_t k = 0; k < pte_program_method_count(p); k++) {
    const char *name = pte_program_method_name(p, k);
    pte_method_info mi;
    if (pte_program_method_info(p, name, &mi)) continue;
    pte_method_options mo = PTE_METHOD_OPTIONS_INIT;
    mo.allocator = &g_capped;
    mo.max_instructions = 100000;
    pte_method *m = NULL;
    if (pte_method_load(p, name, &mo, &m)) continue;
    void *bufs[8] = {0};
    int ok = pte_method_num_inputs(m) <= 8;
    for (int32_t i = 0; i < pte_method_num_inputs(m) && ok; i++) {
      pte_io_info io;
      if (pte_program_method_input(p, name, i, &io) || io.tag != PTE_TAG_TENSOR ||
          io.nbytes > PTE_EXERCISE_CAP) {
        ok = 0;
        break;
      }
      bufs[i] = calloc(1, io.nbytes + 16);
      pte_tensor t;
      if (!bufs[i] || pte_tensor_init(&t, io.dtype, io.dim, io.sizes, bufs[i]) ||
          pte_method_set_input_tensor(m, i, &t))
        ok = 0;
    }
    if (ok) {
      if (pte_method_execute(m) == PTE_OK) s->ran++;
      else s->failed_at_run++;
    }
    for (int i = 0; i < 8; i++) free(bufs[i]);
    pte_method_free(m);
  }
  pte_program_free(p);
  free(copy);
}
