/* AVX-512 instance of winograd_impl.h (built with -mavx512f -mavx2 -mfma). */
#if defined(__x86_64__)
#define WV 16
#define WINO_SUFFIX avx512
#include "winograd_impl.h"
#endif
