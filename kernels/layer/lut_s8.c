/* y[i] = table[x[i] + 128] over int8 bytes: a function of one int8 value
 * folded into 256 entries (the delegate's qint8 -> fp32 -> f -> qint8
 * chains). AVX-512 VBMI looks up 64 bytes at a time; the rest byte by byte. */
#include "klayer.h"

#if defined(PTERUN_QGEMM_X86)
void k_lut_s8_vbmi(const int8_t *x, int8_t *y, size_t n, const int8_t *table);

/* VBMI is not implied by AVX-512F (Skylake-X has F and BW, not VBMI). */
static bool has_vbmi(void) {
  static int known = -1;
  if (known < 0) {
    __builtin_cpu_init();
    known = __builtin_cpu_supports("avx512vbmi") ? 1 : 0;
  }
  return known == 1;
}
#endif

void k_lut_s8(const int8_t *x, int8_t *y, size_t n, const int8_t *table) {
  size_t done = 0;
#if defined(PTERUN_QGEMM_X86)
  if (k_isa_get() == K_ISA_AVX512 && has_vbmi()) done = n / 64 * 64, k_lut_s8_vbmi(x, y, done, table);
#endif
  const int8_t *t = table + 128;
  for (size_t i = done; i < n; i++) y[i] = t[x[i]];
}
