/* The o_kern table built for the avx2 instruction set (see kern.h). */
#define KERN_TABLE o_kern_avx2
#define KERN_NAME "avx2"
#include "kern_impl.h"
