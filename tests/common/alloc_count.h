/* Counting every heap allocation of a process. Linking alloc_count.c into an
 * executable interposes malloc and friends for every library the process
 * loads (the runtime, kernels, delegates, libstdc++'s operator new); glibc's
 * __libc_* entry points do the real work. Not for sanitizer builds, whose
 * runtimes interpose the allocator themselves. */
#ifndef PTERUN_ALLOC_COUNT_H
#define PTERUN_ALLOC_COUNT_H

/* Start counting from zero. */
void alloc_count_start(void);
/* Stop counting; returns the allocations made since alloc_count_start. */
long alloc_count_stop(void);

#endif
