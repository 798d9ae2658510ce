/* An out-of-tree kernel library built against another pterun ABI: the
 * runtime's PTE_ABI_VERSION plus one, as a newer header would give it.
 * pte_library_load must refuse it and register nothing. */
#include <pterun/runtime.h>

enum { OTHER_ABI = PTE_ABI_VERSION + 1 };
#undef PTE_ABI_VERSION
#define PTE_ABI_VERSION OTHER_ABI

static pte_status k_mismatch(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  (void)c;
  (void)a;
  (void)n;
  return PTE_OK;
}
const pte_kernel pte_abi_mismatch_kernel = {"abi_mismatch::op.out", k_mismatch, 0, 0};
static const pte_kernel *const g_table[] = {&pte_abi_mismatch_kernel};

PTE_DEFINE_KERNEL_LIBRARY(pte_abi_mismatch, "abi_mismatch", PTE_PRIORITY_PORTABLE, g_table);
