/* The portable kernel library: its table (collected from cpu/op_*.c by CMake)
 * and registration. */
#include <pterun/kernels_portable.h>

#include <pthread.h>

#define K(fn) extern const pte_kernel pte_portable_kernel_##fn;
#include "portable_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_portable_kernel_##fn,
#include "portable_kernels.inc"
#undef K
};

#define NUM_KERNELS ((int32_t)(sizeof g_kernel_ptrs / sizeof g_kernel_ptrs[0]))

static pte_kernel g_kernels[NUM_KERNELS];
static pte_kernel_library g_library = {"kernels_portable", PTE_PRIORITY_PORTABLE, g_kernels, NUM_KERNELS};
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void fill(void) {
  for (int32_t i = 0; i < NUM_KERNELS; i++) g_kernels[i] = *g_kernel_ptrs[i];
}

pte_status pte_kernels_portable_register(void) {
  pthread_once(&g_once, fill);
  return pte_register_kernels(&g_library);
}

int32_t pte_kernels_portable_count(void) { return NUM_KERNELS; }

#ifdef PTE_SHARED_BUILD
/* Linking (or loading) the shared library registers it. */
__attribute__((constructor)) static void portable_autoregister(void) {
  if (pte_kernels_portable_register() != PTE_OK)
    pte_log(PTE_LOG_ERROR, "kernels_portable: %s", pte_last_error());
}
#endif
