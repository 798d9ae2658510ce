/* libFuzzer target: the .npy reader used by the CLI. */
#include "../cli/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  npy_array a;
  if (npy_parse(data, size, &a) == PTE_OK) {
    /* touch every byte the parser claims is there */
    volatile uint8_t sink = 0;
    for (size_t i = 0; i < a.nbytes; i++) sink ^= ((const uint8_t *)a.data)[i];
    (void)sink;
  }
  return 0;
}
