/*
 * pterun LLM extension (libpterun_llm): what running a language model needs
 * beyond the ATen kernels.
 *
 * The custom operators that ExecuTorch's LLM exporters emit (the `llama::`
 * namespace), float32, tiled and parallel on the process thread pool:
 *   llama::custom_sdpa.out        attention of a query block over a KV cache
 *                                 laid out [batch, max_seq, kv_heads, head_dim],
 *                                 from start_pos, causal or with a mask,
 *                                 grouped-query (heads a multiple of kv_heads)
 *   llama::sdpa_with_kv_cache.out the same after writing k and v into the caches
 *   llama::update_cache.out       cache[:, start_pos : start_pos + seq] = value
 *   llama::update_cache_with_indices.out  cache[b, indices[b, s]] = value[b, s]
 *
 * Linking the shared library registers them (library name "llm"); a static
 * build calls pte_llm_register() once.
 */
#ifndef PTERUN_LLM_H
#define PTERUN_LLM_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register the LLM custom operators (priority PTE_PRIORITY_PORTABLE). Idempotent. */
PTE_API pte_status pte_llm_register(void);

/* Number of operators this library provides. */
PTE_API int32_t pte_llm_count(void);

#ifdef __cplusplus
}
#endif

#endif
