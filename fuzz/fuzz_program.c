/* libFuzzer target: program and method loading (and execution of whatever
 * loads) on arbitrary bytes, through the optimized kernels where they accept
 * the arguments and the portable ones elsewhere. Seed it from the zoo's
 * .pte files. */
#include <pterun/kernels_optimized.h>
#include <pterun/kernels_portable.h>

#include "../tests/common/exercise.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int registered;
  if (!registered) {
    pte_kernels_portable_register();
    pte_kernels_optimized_register();
    registered = 1;
  }
  pte_exercise_stats s = {0};
  pte_exercise(data, size, &s);
  return 0;
}
