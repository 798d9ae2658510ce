/* The components the CLI is linked with, registered explicitly so the same
 * code works for shared and static builds. CMake defines PTERUN_HAVE_<C>. */
#ifndef PTERUN_CLI_COMPONENTS_H
#define PTERUN_CLI_COMPONENTS_H

#include <pterun/kernels_portable.h>
#ifdef PTERUN_HAVE_BACKEND_XNNPACK
#include <pterun/backend_xnnpack.h>
#endif

static inline pte_status pterun_cli_register_components(void) {
  pte_status st = pte_kernels_portable_register();
#ifdef PTERUN_HAVE_BACKEND_XNNPACK
  if (!st) st = pte_backend_xnnpack_register();
#endif
  return st;
}

#endif
