/* The o_kern table built for the avx512 instruction set (see kern.h). */
#define KERN_TABLE o_kern_avx512
#define KERN_NAME "avx512"
#include "kern_impl.h"
