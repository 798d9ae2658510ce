/* The o_kern table built for the generic instruction set (see kern.h). */
#define KERN_TABLE o_kern_generic
#define KERN_NAME "generic"
#include "kern_impl.h"

const o_kern_table *o_kern(void) {
  switch (k_isa_get()) {
    case K_ISA_AVX512: return &o_kern_avx512;
    case K_ISA_AVX2: return &o_kern_avx2;
    case K_ISA_NEON: return &o_kern_neon;
    default: return &o_kern_generic;
  }
}
