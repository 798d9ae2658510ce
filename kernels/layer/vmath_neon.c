/* NEON instance of vmath_impl.h (aarch64 baseline: no flags needed). */
#include "klayer.h"

#if defined(__aarch64__)
#include <arm_neon.h>

typedef float32x4_t VF;
typedef uint32x4_t VM;
#define VW 4
#define vset(c) vdupq_n_f32(c)
#define vload(p) vld1q_f32(p)
#define vstore(p, v) vst1q_f32(p, v)
#define vadd vaddq_f32
#define vsub vsubq_f32
#define vmul vmulq_f32
#define vdiv vdivq_f32
#define vfma(a, b, c) vfmaq_f32(c, a, b)
/* fmin/fmax semantics are not needed: NaN lanes are replaced at the end,
 * and the integer conversion of a NaN is 0 on aarch64. */
#define vmin vminq_f32
#define vmax vmaxq_f32
#define vabs vabsq_f32
#define vcopysign(m, s) vbslq_f32(vdupq_n_u32(0x80000000u), s, m)
#define vlt vcltq_f32
#define vgt vcgtq_f32
#define vnan(a) vmvnq_u32(vceqq_f32(a, a))
#define vsel(m, a, b) vbslq_f32(m, a, b)
#define vall(m) (vminvq_u32(m) != 0)
#define vmullo(a, b, p) vfmaq_f32(vnegq_f32(p), a, b)
#define vpow2i(n) vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtnq_s32_f32(n), vdupq_n_s32(127)), 23))
#define vhsum vaddvq_f32
#define vhmax vmaxvq_f32
#define VM_TABLE k_vmath_neon
extern const k_vmath_ops k_vmath_neon;
#include "vmath_impl.h"
#endif
