/* The kernel layer's transcendental functions: the generic C instance of
 * vmath_impl.h (one lane) and the choice of instruction set. */
#include <math.h>
#include <stdatomic.h>

#include "klayer.h"

typedef float VF;
typedef int VM;
#define VW 1
#define vset(c) ((float)(c))
#define vload(p) (*(p))
#define vstore(p, v) (*(p) = (v))
#define vadd(a, b) ((a) + (b))
#define vsub(a, b) ((a) - (b))
#define vmul(a, b) ((a) * (b))
#define vdiv(a, b) ((a) / (b))
#define vfma(a, b, c) ((a) * (b) + (c))
#define vmin(a, b) ((a) < (b) ? (a) : (b))
#define vmax(a, b) ((a) > (b) ? (a) : (b))
#define vabs(a) fabsf(a)
#define vcopysign(m, s) copysignf(m, s)
#define vlt(a, b) ((a) < (b))
#define vgt(a, b) ((a) > (b))
#define vnan(a) isnan(a)
#define vsel(m, a, b) ((m) ? (a) : (b))
#define vall(m) (m)
#define vmullo(a, b, p) ((float)((double)(a) * (b) - (double)(p)))
#define vhsum(a) (a)
#define vhmax(a) (a)
#define VM_TABLE k_vmath_generic
static inline float vpow2i(float n) {
  uint32_t b = (uint32_t)((int32_t)n + 127) << 23;
  float f;
  memcpy(&f, &b, sizeof f);
  return f;
}
extern const k_vmath_ops k_vmath_generic;
#include "vmath_impl.h"

extern const k_vmath_ops k_vmath_avx2, k_vmath_avx512, k_vmath_neon;

const k_vmath_ops *k_vmath_ops_for(k_isa isa) {
  if (isa != K_ISA_GENERIC && isa != k_isa_get()) {
    /* a lower x86 set than the chosen one also runs */
    if (!(isa == K_ISA_AVX2 && k_isa_get() == K_ISA_AVX512)) return NULL;
  }
  switch (isa) {
#if defined(__x86_64__)
    case K_ISA_AVX512: return &k_vmath_avx512;
    case K_ISA_AVX2: return &k_vmath_avx2;
#elif defined(__aarch64__)
    case K_ISA_NEON: return &k_vmath_neon;
#endif
    case K_ISA_GENERIC: return &k_vmath_generic;
    default: return NULL;
  }
}

/* The chosen set's table, found once: k_isa_get's pthread_once and the
 * checks above cost ~8 ns a call, a quarter of a 197-float softmax row's
 * three calls. The choice never changes and the tables are constants, so
 * a relaxed load suffices (racing first calls store the same pointer). */
static _Atomic(const k_vmath_ops *) g_ops;
static const k_vmath_ops *ops(void) {
  const k_vmath_ops *o = atomic_load_explicit(&g_ops, memory_order_relaxed);
  if (!o) atomic_store_explicit(&g_ops, o = k_vmath_ops_for(k_isa_get()), memory_order_relaxed);
  return o;
}

void k_vexp(const float *x, float *y, int64_t n) { ops()->exp(x, y, n); }
void k_verf(const float *x, float *y, int64_t n) { ops()->erf(x, y, n); }
void k_vtanh(const float *x, float *y, int64_t n) { ops()->tanh(x, y, n); }
void k_vsigmoid(const float *x, float *y, int64_t n) { ops()->sigmoid(x, y, n); }
void k_vsilu(const float *x, float *y, int64_t n) { ops()->silu(x, y, n); }
void k_vgelu(const float *x, float *y, int64_t n) { ops()->gelu(x, y, n); }
void k_vgelu_tanh(const float *x, float *y, int64_t n) { ops()->gelu_tanh(x, y, n); }
void k_vgelu_q(const float *x, float *y, int64_t n) { ops()->gelu_q(x, y, n); }
void k_vgelu_tanh_fast(const float *x, float *y, int64_t n) { ops()->gelu_tanh_fast(x, y, n); }
float k_vexp_sum(const float *x, float *y, int64_t n, float shift) { return ops()->exp_sum(x, y, n, shift); }
float k_vmax(const float *x, int64_t n) { return ops()->max(x, n); }
float k_vexp_sum_scaled(const float *x, float *y, int64_t n, float scale, float shift) {
  return ops()->exp_sum_scaled(x, y, n, scale, shift);
}
void k_vmulc(float *y, int64_t n, float s) { ops()->mulc(y, n, s); }
