/* A deliberately wrong kernel library for testing tools/debug_diverge.py: its
 * aten::relu.out (registered above the portable one) adds 0.25 to every
 * element, so a run diverges from eager PyTorch at the first relu and at
 * everything after it. Loaded with `pterun run --library`. */
#include <pterun/runtime.h>

static pte_status relu_off_by_quarter(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  if (nargs < 2 || args[0]->tag != PTE_TAG_TENSOR || args[1]->tag != PTE_TAG_TENSOR)
    return pte_kernel_fail(ctx, PTE_ERR_INVALID_ARGUMENT, "expected (self, out)");
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[1]->u.tensor;
  if (x->dtype != PTE_FLOAT32 || out->dtype != PTE_FLOAT32)
    return pte_kernel_fail(ctx, PTE_ERR_NOT_SUPPORTED, "float32 only");
  pte_status st = pte_tensor_resize(out, x->dim, x->sizes);
  if (st) return st;
  int64_t n = pte_tensor_numel(x);
  for (int64_t i = 0; i < n; i++) {
    float v = ((const float *)x->data)[i];
    ((float *)out->data)[i] = (v > 0.0f ? v : 0.0f) + 0.25f;
  }
  return PTE_OK;
}

static const pte_kernel k_kernels[] = {{"aten::relu.out", relu_off_by_quarter, NULL, NULL}};
static const pte_kernel_library k_lib = PTE_KERNEL_LIBRARY_INIT("test_buggy_kernels", 1000, k_kernels, 1);

__attribute__((visibility("default"))) pte_status pte_test_buggy_kernels_register(void);
pte_status pte_test_buggy_kernels_register(void) { return pte_register_kernels(&k_lib); }
