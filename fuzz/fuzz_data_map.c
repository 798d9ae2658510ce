/* libFuzzer target: .ptd (FlatTensor) data files. */
#include <pterun/runtime.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pte_data_map *m = NULL;
  if (pte_data_map_load_buffer(data, size, NULL, &m) == PTE_OK) {
    for (int32_t i = 0; i < pte_data_map_count(m); i++) {
      const void *d;
      size_t n;
      pte_tensor layout;
      if (pte_data_map_get(m, pte_data_map_key(m, i), &d, &n, &layout) == PTE_OK) {
        volatile uint8_t sink = 0;
        for (size_t k = 0; k < n; k++) sink ^= ((const uint8_t *)d)[k];
        (void)sink;
      }
    }
    pte_data_map_free(m);
  }
  return 0;
}
