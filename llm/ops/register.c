/* The LLM operator library: its table and registration. */
#include "llm_ops.h"

extern const pte_kernel pte_llm_kernel_custom_sdpa_out, pte_llm_kernel_sdpa_with_kv_cache_out,
    pte_llm_kernel_update_cache_out, pte_llm_kernel_update_cache_with_indices_out;

static const pte_kernel *const g_kernel_ptrs[] = {
    &pte_llm_kernel_custom_sdpa_out,
    &pte_llm_kernel_sdpa_with_kv_cache_out,
    &pte_llm_kernel_update_cache_out,
    &pte_llm_kernel_update_cache_with_indices_out,
};

PTE_DEFINE_KERNEL_LIBRARY(pte_llm, "llm", PTE_PRIORITY_PORTABLE, g_kernel_ptrs);
