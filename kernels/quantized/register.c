/* The quantized kernel library: its table (collected from cpu/op_*.c by
 * CMake) and registration. */
#include <pterun/kernels_quantized.h>

#define K(fn) extern const pte_kernel pte_quantized_kernel_##fn;
#include "quantized_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_quantized_kernel_##fn,
#include "quantized_kernels.inc"
#undef K
};

PTE_DEFINE_KERNEL_LIBRARY(pte_kernels_quantized, "kernels_quantized", PTE_PRIORITY_PORTABLE, g_kernel_ptrs);
