/* The optimized kernel library: its table (collected from cpu/op_*.c by
 * CMake) and registration at PTE_PRIORITY_OPTIMIZED. */
#include <pterun/kernels_optimized.h>

#include "util/kern.h"
#include "util/opt_util.h"

#define K(fn) extern const pte_kernel pte_opt_kernel_##fn;
#include "optimized_kernels.inc"
#undef K

static const pte_kernel *const g_kernel_ptrs[] = {
#define K(fn) &pte_opt_kernel_##fn,
#include "optimized_kernels.inc"
#undef K
};

PTE_DEFINE_KERNEL_LIBRARY(pte_kernels_optimized, "kernels_optimized", PTE_PRIORITY_OPTIMIZED, g_kernel_ptrs);

/* the name of the table in use (util/kern.h) */
const char *pte_kernels_optimized_isa(void) { return o_kern()->name; }
