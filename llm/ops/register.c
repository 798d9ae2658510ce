/* The LLM operator library: its table (collected from ops/op_*.c by CMake)
 * and registration. */
#include "llm_ops.h"

#define K(fn) extern const pte_kernel pte_llm_kernel_##fn;
#include "llm_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_llm_kernel_##fn,
#include "llm_kernels.inc"
#undef K
};

PTE_DEFINE_KERNEL_LIBRARY(pte_llm, "llm", PTE_PRIORITY_PORTABLE, g_kernel_ptrs);
