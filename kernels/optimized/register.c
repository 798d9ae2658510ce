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

PTE_DEFINE_KERNEL_LIBRARY(pte_kernels_optimized_table, "kernels_optimized", PTE_PRIORITY_OPTIMIZED,
                          g_kernel_ptrs);

pte_status pte_opt_register_rewrites(void); /* rewrite.c */

/* The kernels, then the load-time rewrites that pay with them. */
pte_status pte_kernels_optimized_register(void) {
  pte_status st = pte_kernels_optimized_table_register();
  return st ? st : pte_opt_register_rewrites();
}
int32_t pte_kernels_optimized_count(void) { return pte_kernels_optimized_table_count(); }

#ifdef PTE_SHARED_BUILD
/* the table's constructor registered the kernels: the rules join them */
__attribute__((constructor)) static void register_rewrites_(void) {
  if (pte_opt_register_rewrites() != PTE_OK)
    pte_log(PTE_LOG_ERROR, "kernels_optimized: %s", pte_last_error());
}
#endif

/* the name of the table in use (util/kern.h) */
const char *pte_kernels_optimized_isa(void) { return o_kern()->name; }
