/* execute must not allocate: malloc and friends are interposed in this test
 * binary and counted across many executions of real programs. */
#define _GNU_SOURCE
#include <pterun/kernels_portable.h>

#include "../../cli/npy.h"
#include "../common/alloc_count.h"
#include "../common/test_util.h"

static void count_case(const char *dir, int iterations, long *allocs_during_execute, long *allocs_at_load) {
  char path[1024];
  pte_program *p = NULL;
  pte_method *m = NULL;
  void *owned[8] = {0};
  pte_tensor ins[8];
  *allocs_during_execute = -1;
  snprintf(path, sizeof path, "%s/model.pte", dir);
  alloc_count_start();
  bool loaded = !pte_program_load_file(path, NULL, &p) && !pte_method_load(p, "forward", NULL, &m);
  *allocs_at_load = alloc_count_stop();
  if (!loaded) goto done;
  for (int32_t i = 0; i < pte_method_num_inputs(m) && i < 8; i++) {
    npy_array a;
    snprintf(path, sizeof path, "%s/inputs/%d.npy", dir, (int)i);
    if (npy_read_file(path, &a, &owned[i])) goto done;
    pte_tensor_init(&ins[i], a.dtype, a.dim, a.sizes, (void *)a.data);
    if (pte_method_set_input_tensor(m, i, &ins[i])) goto done;
  }
  alloc_count_start();
  /* Inputs are set before every run: the memory planner may reuse an
   * input's memory once it is consumed. Neither step may allocate. */
  for (int k = 0; k < iterations; k++) {
    for (int32_t i = 0; i < pte_method_num_inputs(m) && i < 8; i++)
      if (pte_method_set_input_tensor(m, i, &ins[i])) goto stop;
    if (pte_method_execute(m)) goto stop;
  }
  *allocs_during_execute = alloc_count_stop();
  goto done;
stop:
  alloc_count_stop();
done:
  for (int i = 0; i < 8; i++) free(owned[i]);
  pte_method_free(m);
  pte_program_free(p);
}

TEST(the_counter_works) {
  alloc_count_start();
  void *volatile p = malloc(16);
  long n = alloc_count_stop();
  free(p);
  CHECK(n == 1, "interposition is not active (%ld)", n);
}

TEST(execute_does_not_allocate) {
  CHECK_OK(pte_kernels_portable_register());
  static const char *const cases[] = {
      "models/mlp",         "models/small_cnn",       "models/transformer_tiny", "models/mobilenet_v2_tiny",
      "models/resnet_tiny", "models/dynamic_batch_b3"};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    long during = -1, at_load = 0;
    count_case(zoo_path(cases[i]), 50, &during, &at_load);
    CHECK(during == 0, "%s: %ld allocations during 50 set_input+execute rounds (%s)", cases[i], during,
          during < 0 ? pte_last_error() : "");
    printf("  %s: %ld allocations at load, 0 in 50 executions\n", cases[i], at_load);
  }
}

TEST_MAIN(T(the_counter_works), T(execute_does_not_allocate))
