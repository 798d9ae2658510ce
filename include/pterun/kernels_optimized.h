/*
 * pterun optimized kernels (libpterun_kernels_optimized): fast float32
 * kernels for the operators that dominate real models (matrix products,
 * convolution, elementwise arithmetic, activations, normalization, pooling,
 * the copies exported programs run every inference). Vectorized with
 * AVX2/FMA (and AVX-512 for the matrix products) chosen at run time, with a
 * portable fallback, and parallel on the process thread pool
 * (libpterun_threadpool).
 *
 * They register at PTE_PRIORITY_OPTIMIZED, above the portable kernels, and
 * decline at method load whatever they do not handle (other dtypes, strided
 * layouts, unusual arguments), so the portable kernel runs there.
 * `pterun run --disable kernels_optimized` (or
 * pte_kernel_library_set_enabled("kernels_optimized", false)) turns them off.
 *
 * Linking the shared library registers it; a static build calls
 * pte_kernels_optimized_register() once.
 */
#ifndef PTERUN_KERNELS_OPTIMIZED_H
#define PTERUN_KERNELS_OPTIMIZED_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register every optimized kernel (priority PTE_PRIORITY_OPTIMIZED). Idempotent. */
PTE_API pte_status pte_kernels_optimized_register(void);

/* Number of operators this library provides. */
PTE_API int32_t pte_kernels_optimized_count(void);

/* The instruction set the kernels run with in this process: "avx512",
 * "avx2" or "generic". Chosen once from the CPU; the environment variable
 * PTERUN_OPT_ISA (avx512, avx2, generic) can only lower it (tests use it to
 * exercise every path on one machine). */
PTE_API const char *pte_kernels_optimized_isa(void);

#ifdef __cplusplus
}
#endif

#endif
