/*
 * pterun portable kernels (libpterun_kernels_portable): reference CPU
 * implementations of the ATen operators ExecuTorch programs use, for every
 * dtype those operators accept.
 *
 * Linking the shared library is enough: it registers itself when loaded. A
 * static build calls pte_kernels_portable_register() once instead.
 */
#ifndef PTERUN_KERNELS_PORTABLE_H
#define PTERUN_KERNELS_PORTABLE_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Register every portable kernel (priority PTE_PRIORITY_PORTABLE). Idempotent. */
PTE_API pte_status pte_kernels_portable_register(void);

/* Number of operators this library provides. */
PTE_API int32_t pte_kernels_portable_count(void);

#ifdef __cplusplus
}
#endif

#endif
