/* libFuzzer target for XNNPACK delegate payloads: parse, check, plan, build
 * the XNNPACK runtimes and, when that succeeds, run the delegate on zeros.
 * Named-data keys resolve to a zeroed buffer so graphs whose weights live in
 * the program or a .ptd get past constant resolution. Debian's XNNPACK is
 * built with assertions, so a shape or parameter our checks let through
 * shows up as an abort here. Seeds: fuzz/xnnpack/make_corpus.sh. */
#include <stdlib.h>
#include <string.h>

#include "xnn_delegate.h"

#define NAMED_BYTES ((size_t)4 << 20)
#define RUN_LIMIT ((size_t)32 << 20)

static pte_status named(void *user, const char *key, const void **data, size_t *size) {
  (void)user, (void)key;
  static void *zeros;
  if (!zeros) zeros = calloc(1, NAMED_BYTES);
  *data = zeros;
  *size = NAMED_BYTES;
  return zeros ? PTE_OK : PTE_ERR_OUT_OF_MEMORY;
}

static void run_zero(xg_delegate *d) {
  const xg_graph *g = xg_delegate_graph(d);
  uint32_t n = g->num_externs;
  if (n > 64) return;
  pte_value vals[64];
  pte_value *args[64];
  pte_tensor ts[64];
  void *data[64] = {0};
  size_t total = 0;
  bool ok = true;
  for (uint32_t e = 0; e < n; e++) {
    int64_t sizes[XG_MAX_DIMS] = {1};
    int32_t dim = 1;
    size_t bytes = 8;
    for (uint32_t k = 0; k < g->nvalues; k++) {
      const xg_value *v = &g->values[k];
      if (!v->flags || v->external_id != e) continue;
      dim = v->ndims;
      for (uint32_t i = 0; i < v->ndims; i++) sizes[i] = (int64_t)v->dims[i];
      bytes = 2 * v->nbytes;
    }
    total += bytes;
    if (total > RUN_LIMIT || !(data[e] = calloc(1, bytes + 64))) {
      ok = false;
      break;
    }
    memset(&vals[e], 0, sizeof vals[e]);
    vals[e].tag = PTE_TAG_TENSOR;
    vals[e].u.tensor = &ts[e];
    args[e] = &vals[e];
    pte_tensor_init(&ts[e], PTE_FLOAT32, dim, sizes, data[e]);
  }
  if (ok) (void)xg_delegate_run(d, args, (int32_t)n, NULL, NULL);
  for (uint32_t e = 0; e < n; e++) free(data[e]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xg_mem mem = {NULL, NULL, 0};
  xg_delegate *d = NULL;
  xg_options opts = {false, NULL, (size_t)64 << 20, false, false};
  if (xg_delegate_create(data, size, named, NULL, &mem, &opts, &d) == PTE_OK) {
    run_zero(d);
    xg_delegate_destroy(d);
  }
  /* Again with every node pterun can run natively on its own kernels. */
  opts.prefer_native = true;
  d = NULL;
  xg_mem mem2 = {NULL, NULL, 0};
  if (xg_delegate_create(data, size, named, NULL, &mem2, &opts, &d) == PTE_OK) {
    run_zero(d);
    xg_delegate_destroy(d);
  }
  xg_mem_release(&mem);
  xg_mem_release(&mem2);
  return 0;
}
