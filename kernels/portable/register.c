/* The portable kernel library: its table (collected from cpu/op_*.c by CMake)
 * and registration. */
#include <pterun/kernels_portable.h>

#define K(fn) extern const pte_kernel pte_portable_kernel_##fn;
#include "portable_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_portable_kernel_##fn,
#include "portable_kernels.inc"
#undef K
};

PTE_DEFINE_KERNEL_LIBRARY(pte_kernels_portable, "kernels_portable", PTE_PRIORITY_PORTABLE, g_kernel_ptrs);
