/* The optimized kernel library: its table (collected from cpu/op_*.c by
 * CMake) and registration at PTE_PRIORITY_OPTIMIZED. */
#include <pterun/kernels_optimized.h>

#include <pthread.h>

#include "util/opt_util.h"

#define K(fn) extern const pte_kernel pte_opt_kernel_##fn;
#include "optimized_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_opt_kernel_##fn,
#include "optimized_kernels.inc"
#undef K
};

#define NUM_KERNELS ((int32_t)(sizeof g_kernel_ptrs / sizeof g_kernel_ptrs[0]))

static pte_kernel g_kernels[NUM_KERNELS];
static pte_kernel_library g_library = {"kernels_optimized", PTE_PRIORITY_OPTIMIZED, g_kernels, NUM_KERNELS};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill(void) {
  for (int32_t i = 0; i < NUM_KERNELS; i++) g_kernels[i] = *g_kernel_ptrs[i];
}

pte_status pte_kernels_optimized_register(void) {
  pthread_once(&g_once, fill);
  return pte_register_kernels(&g_library);
}

int32_t pte_kernels_optimized_count(void) { return NUM_KERNELS; }

const char *pte_kernels_optimized_isa(void) { return o_isa_name(o_isa_get()); }

#ifdef PTE_SHARED_BUILD
/* Linking (or loading) the shared library registers it. */
__attribute__((constructor)) static void optimized_autoregister(void) {
  if (pte_kernels_optimized_register() != PTE_OK)
    pte_log(PTE_LOG_ERROR, "kernels_optimized: %s", pte_last_error());
}
#endif
