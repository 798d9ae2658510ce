/* The instruction-set choice of the kernel layer (see klayer.h). */
#include "klayer.h"

#include <pthread.h>
#include <stdlib.h>
#if defined(__aarch64__)
#include <sys/auxv.h>
#endif

static k_isa g_isa;
static pthread_once_t g_isa_once = PTHREAD_ONCE_INIT;

static void isa_init(void) {
  k_isa best = K_ISA_GENERIC;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = K_ISA_AVX2;
  /* BW too: the int8 bodies (qgemm, depthwise) use its byte and word
   * instructions; every AVX-512 CPU but the Xeon Phi has it. */
  if (best == K_ISA_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
    best = K_ISA_AVX512;
#elif defined(__aarch64__)
  if (getauxval(AT_HWCAP) & HWCAP_ASIMD) best = K_ISA_NEON;
#endif
  /* The override can only lower the choice: asking for an instruction set
   * the CPU lacks must not crash the process. */
  const char *env = getenv("PTERUN_OPT_ISA");
  if (env) {
    if (!strcmp(env, "generic")) best = K_ISA_GENERIC;
#if defined(__x86_64__) || defined(__i386__)
    k_isa want = !strcmp(env, "avx2") ? K_ISA_AVX2 : K_ISA_AVX512;
    if (best != K_ISA_GENERIC && want < best) best = want;
#endif
  }
  g_isa = best;
}

k_isa k_isa_get(void) {
  pthread_once(&g_isa_once, isa_init);
  return g_isa;
}

const char *k_isa_name(k_isa isa) {
  return isa == K_ISA_AVX512 ? "avx512" : isa == K_ISA_AVX2 ? "avx2" : isa == K_ISA_NEON ? "neon" : "generic";
}
