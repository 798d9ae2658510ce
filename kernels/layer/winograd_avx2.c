/* AVX2 instance of winograd_impl.h (built with -mavx2 -mfma). */
#if defined(__x86_64__)
#define WV 8
#define WINO_SUFFIX avx2
#include "winograd_impl.h"
#endif
