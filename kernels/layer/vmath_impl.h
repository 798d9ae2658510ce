/* The vectorized transcendental functions of the kernel layer, written
 * once over a small set of vector operations that each instruction set's
 * file defines before including this (vmath.c: one-lane generic C,
 * vmath_avx2.c, vmath_avx512.c, vmath_neon.c), so every set computes the
 * same formulas with the same coefficients.
 *
 * Operations to define: VF (a vector of floats), VM (a lane mask), VW
 * (lanes), vset, vload, vstore, vadd, vsub, vmul, vdiv, vfma(a,b,c)=a*b+c,
 * vmin/vmax (the second operand when the first is NaN), vabs,
 * vcopysign(mag, sign), vlt, vgt, vnan, vsel(m, a, b) (= m ? a : b),
 * vpow2i(n) (2^n for integral n in [-126, 127]), vmullo(a, b, p) (a*b - p
 * exactly, p = a*b rounded), vhsum (sum of the lanes), vhmax (their max,
 * no lane NaN), and VM_TABLE (the
 * name of the k_vmath_ops to define).
 *
 * The methods (coefficients fitted here by least squares on Chebyshev
 * nodes against mpmath, then rounded to float):
 * - exp: x = n*ln2 + r, |r| <= ln2/2 (Cody-Waite with a 9-bit high part
 *   of ln2, so n*C1 is exact with or without FMA), e^r by a degree-7
 *   polynomial, the 2^n scaling in two halves so results that are
 *   denormal round once, as they should, and overflow falls out as inf.
 * - sigmoid(v)*m: e = e^-|v| never overflows; for v < 0 the result
 *   m*e/(1+e) is formed with e's mantissa and scaled last, so x*sigmoid(x)
 *   stays accurate where e alone would be denormal.
 * - tanh: odd polynomial below 0.625, 1 - 2/(e^2|x| + 1) above.
 * - erf: x*P(x^2) below 0.875, above 1 - erfc with erfc(a) =
 *   e^-a^2 * R(1/(1+a)). gelu's negative side uses erfc directly (no
 *   cancellation in 1 + erf) with e^-x^2/2 from the exact x^2 (hi + lo).
 * - gelu's tanh form: 0.5x(1 + tanh u) = x*sigmoid(2u), with 2u as a sum
 *   of two floats (its rounding would grow with |2u| through e^-2u). */
#include <stdint.h>
#include <string.h>

#define VM_MAGIC 12582912.0f /* 1.5 * 2^23: adding it rounds to an integer */
#define VM_LOG2E 1.44269504088896341f
#define VM_LN2_HI 0.693359375f
#define VM_LN2_LO -2.12194440e-4f
/* exp's argument range: above, inf; below, 0 even when multiplied by a
 * float (x*e^x underflows near -109). */
#define VM_EXP_HI 89.0f
#define VM_EXP_LO -115.0f

static inline VF vm_horner(VF x, const float *c, int deg) {
  VF p = vset(c[deg]);
  for (int i = deg - 1; i >= 0; i--) p = vfma(p, x, vset(c[i]));
  return p;
}

/* e^(x + xlo) = p * 2^n with p in [0.7, 1.42] and integral n in [-166,
 * 129]; xlo is a small correction (a low part) or 0. */
static inline VF vm_exp_parts2(VF x, VF xlo, VF *pn) {
  static const float ce[] = {0.5f, 0.16666667f, 0.04166644f, 0.008333378f, 0.0013936214f, 0.0001985011f};
  x = vmin(vmax(x, vset(VM_EXP_LO)), vset(VM_EXP_HI));
  VF n = vsub(vfma(x, vset(VM_LOG2E), vset(VM_MAGIC)), vset(VM_MAGIC));
  VF r = vfma(n, vset(-VM_LN2_HI), x);
  r = vadd(vfma(n, vset(-VM_LN2_LO), r), xlo);
  VF q = vm_horner(r, ce, 5);
  *pn = n;
  return vadd(vset(1.0f), vfma(q, vmul(r, r), r));
}

static inline VF vm_exp_parts(VF x, VF *pn) { return vm_exp_parts2(x, vset(0.0f), pn); }

/* v * 2^n in two steps (each factor a normal float). */
static inline VF vm_scale(VF v, VF n) {
  VF n1 = vsub(vfma(n, vset(0.5f), vset(VM_MAGIC)), vset(VM_MAGIC));
  return vmul(vmul(v, vpow2i(n1)), vpow2i(vsub(n, n1)));
}

/* vm_scale in one instruction where the ISA has it (AVX-512's scalef: one
 * rounding, as vm_scale's two steps). Only where results rarely underflow:
 * scalef's denormal and zero results take a microcode assist even slower
 * than a multiply's (exp of a softmax's masked -inf lanes). */
#ifdef vscalef
#define vm_scale1 vscalef
#else
#define vm_scale1 vm_scale
#endif

static inline VF vm_exp(VF x) {
  VF n, p = vm_exp_parts(x, &n);
  return vsel(vnan(x), vadd(x, x), vm_scale(p, n));
}

/* m * sigmoid(v + vlo). */
static inline VF vm_msig2(VF v, VF vlo, VF m) {
  VF a = vabs(v), alo = vcopysign(vlo, vmul(v, vlo)); /* |v + vlo| = a + alo */
  /* beyond the clamp the low part is unused, and may be inf or NaN there */
  alo = vsel(vlt(a, vset(-VM_EXP_LO)), alo, vset(0.0f));
  VF n, p = vm_exp_parts2(vsub(vset(0.0f), a), vsub(vset(0.0f), alo), &n);
  VF r = vdiv(vset(1.0f), vadd(vset(1.0f), vm_scale(p, n)));
  VF neg = vm_scale(vmul(vmul(m, p), r), n);
  neg = vsel(vgt(a, vset(-VM_EXP_LO)), vmul(m, vset(0.0f)), neg);
  VF y = vsel(vlt(v, vset(0.0f)), neg, vmul(m, r));
  return vsel(vnan(v), vadd(v, v), y);
}

static inline VF vm_msig(VF v, VF m) { return vm_msig2(v, vset(0.0f), m); }

static inline VF vm_tanh(VF x) {
  static const float ct[] = {-0.33333334f, 0.13333303f,   -0.053959116f,
                             0.021767898f, -0.008340986f, 0.0022897364f};
  VF a = vabs(x), s = vmul(x, x);
  /* on |x|, the sign last: x + x^3*P would turn -0 into +0 */
  VF ys = vfma(vmul(a, s), vm_horner(s, ct, 5), a);
  VF n, p = vm_exp_parts(vmul(vset(2.0f), vmin(a, vset(10.0f))), &n);
  VF yl = vsub(vset(1.0f), vdiv(vset(2.0f), vadd(vm_scale(p, n), vset(1.0f))));
  VF y = vcopysign(vsel(vlt(a, vset(0.625f)), ys, yl), x);
  return vsel(vnan(x), vadd(x, x), y);
}

/* erf(x)/x for |x| < 0.875, as a polynomial in x^2. */
static inline VF vm_erf_small(VF x) {
  static const float cs[] = {1.1283791f,    -0.37612548f,  0.11282441f,
                             -0.026790949f, 0.0050314246f, -0.00061993446f};
  return vm_horner(vmul(x, x), cs, 5);
}

/* erfc(a) * e^(a^2) for a in [0.875, 12], as t*P(t) with t = 1/(1+a)
 * (the t factor apart: P's Horner sum then cancels less). */
static inline VF vm_erfcx(VF a) {
  static const float cr[] = {0.5641921758651733f,  0.5640472769737244f,   0.2854672372341156f,
                             -0.3273686170578003f, -0.32487592101097107f, -2.21486759185791f,
                             8.887777328491211f,   -13.003260612487793f,  9.129706382751465f,
                             -2.4459738731384277f, -0.14766772091388702f};
  VF t = vdiv(vset(1.0f), vadd(vset(1.0f), vmin(a, vset(12.0f))));
  return vmul(t, vm_horner(t, cr, 10));
}

static inline VF vm_erf(VF x) {
  VF a = vabs(x), ys = vmul(x, vm_erf_small(x));
  VF ac = vmin(a, vset(12.0f)), n, p = vm_exp_parts(vsub(vset(0.0f), vmul(ac, ac)), &n);
  VF yl = vsub(vset(1.0f), vm_scale(vmul(p, vm_erfcx(ac)), n));
  VF y = vsel(vlt(a, vset(0.875f)), ys, vcopysign(yl, x));
  return vsel(vnan(x), vadd(x, x), y);
}

static inline VF vm_gelu(VF x) {
  VF z = vmul(x, vset(0.70710678118654752f)), a = vabs(z);
  VF half = vmul(x, vset(0.5f));
  /* |z| < 0.875: 0.5x(1 + z*P(z^2)) */
  VF ys = vmul(half, vfma(z, vm_erf_small(z), vset(1.0f)));
  /* otherwise erfc(|z|) = R * e^(-x^2/2), with x^2 = h + l */
  VF h = vmul(x, x), l = vmullo(x, x, h), hh = vmul(h, vset(0.5f));
  VF n, p = vm_exp_parts(vsub(vset(0.0f), hh), &n);
  VF ec = vmul(vmul(vm_erfcx(a), p), vfma(l, vset(-0.5f), vset(1.0f)));
  /* where e^(-x^2/2) underflows (x^2 may even be inf): x and 0 */
  VM big = vgt(hh, vset(-VM_EXP_LO));
  VF t = vm_scale1(vmul(half, ec), n); /* underflows only beyond |x| = 13 */
  VF ypos = vsel(big, x, vsub(x, t));
  VF yneg = vsel(big, vmul(x, vset(0.0f)), t);
  VF y = vsel(vlt(a, vset(0.875f)), ys, vsel(vgt(z, vset(0.0f)), ypos, yneg));
  return vsel(vnan(x), vadd(x, x), y);
}

/* gelu for outputs that are quantized next (the delegate's gelu before an
 * int8 convert): 0.5x(1 + erf(z)) with erf(z) = z*P(z^2)/Q(z^2) on |z| <=
 * 3.9 (a rational fit, absolute error below 3e-7 in float), so the result
 * is within 2e-7 * (1 + |x|) of gelu's, a millionth of an int8 step on any
 * range it is quantized over, in a third of the exact form's operations.
 * Beyond |x| = 5.6: x and 0 (gelu's tail is below 6e-8 there). */
static inline VF vm_gelu_q(VF x) {
  static const float cp[] = {1.1283791065216064f,   0.19027630984783173f,    0.05275103077292442f,
                             0.003766252426430583f, 0.00028599766665138304f, 2.065111630145111e-06f};
  static const float cq[] = {1.0f,
                             0.5019603371620178f,
                             0.11407361179590225f,
                             0.014968319796025753f,
                             0.0011648122454062104f,
                             3.830642526736483e-05f};
  VF z = vmin(vmax(vmul(x, vset(0.70710678118654752f)), vset(-3.9f)), vset(3.9f)), u = vmul(z, z);
  VF half = vmul(x, vset(0.5f));
  VF e = vdiv(vmul(z, vm_horner(u, cp, 5)), vm_horner(u, cq, 5));
  VF y = vfma(half, e, half);
  y = vsel(vgt(x, vset(5.6f)), x, vsel(vlt(x, vset(-5.6f)), vset(0.0f), y));
  return vsel(vnan(x), vadd(x, x), y);
}

static inline VF vm_gelu_tanh(VF x) {
  /* 2u = x*(k1 + k2*x^2), k1 = 2*sqrt(2/pi), k2 = 0.044715*k1, each
   * constant and each step carried as a high and a low float */
  const float k1 = 1.5957691669464111f, k1lo = -4.534068054340423e-08f;
  const float k2 = 0.07135481387376785f, k2lo = 2.3988324659995897e-09f;
  VF s = vmul(x, x), slo = vmullo(x, x, s);
  VF p = vmul(vset(k2), s), plo = vmullo(vset(k2), s, p);
  VF w = vadd(p, vset(k1)), d = vsub(w, p); /* two-sum: w + wlo = p + k1 */
  VF wlo = vadd(vsub(p, vsub(w, d)), vsub(vset(k1), d));
  wlo = vadd(wlo, vadd(plo, vfma(vset(k2), slo, vfma(vset(k2lo), s, vset(k1lo)))));
  VF v = vmul(x, w), vlo = vfma(x, wlo, vmullo(x, w, v));
  return vm_msig2(v, vlo, x);
}

/* gelu's tanh form where it replaces the chain of float ops a program
 * spells it with (GPT-2's, whose 1 + tanh u loses all digits below
 * x = -4): x / (1 + e^-2u), 2u in one float, so the relative error grows
 * like |2u| ulp (~100 at x = -9, where gelu is 1e-28; ~10 at x = -4) in
 * half of vm_gelu_tanh's operations. Where e^-2u overflows (2u < -88):
 * x * 0, as vm_gelu_tanh. */
static inline VF vm_gelu_tanh_fast(VF x) {
  const float k1 = 1.5957691216057308f, k2 = 0.07135481627159562f; /* 2 sqrt(2/pi), 0.044715 k1 */
  VF v = vmul(x, vfma(vset(k2), vmul(x, x), vset(k1)));
  /* e^-2u on [-87, 88], where 2^n is one normal float (one scaling step,
   * not vm_scale's two): beyond, 1 + e^-2u is 1, or the result x * 0 */
  VF n, p = vm_exp_parts(vmin(vmax(vsub(vset(0.0f), v), vset(-87.0f)), vset(88.0f)), &n);
  VF y = vdiv(x, vfma(p, vpow2i(n), vset(1.0f)));
  y = vsel(vlt(v, vset(-88.0f)), vmul(x, vset(0.0f)), y);
  return vsel(vnan(x), vadd(x, x), y);
}

static inline VF vm_sigmoid(VF x) { return vm_msig(x, vset(1.0f)); }
static inline VF vm_silu(VF x) { return vm_msig(x, x); }

/* y[i] = f(x[i]); the tail goes through a padded buffer so every lane is
 * computed the same way. */
#define VM_ARRAY(name, f)                                        \
  static void name(const float *x, float *y, int64_t n) {        \
    int64_t i = 0;                                               \
    for (; i + VW <= n; i += VW) vstore(y + i, f(vload(x + i))); \
    if (i < n) {                                                 \
      float tx[VW] = {0}, ty[VW];                                \
      memcpy(tx, x + i, (size_t)(n - i) * sizeof(float));        \
      vstore(ty, f(vload(tx)));                                  \
      memcpy(y + i, ty, (size_t)(n - i) * sizeof(float));        \
    }                                                            \
  }
VM_ARRAY(vm_arr_exp, vm_exp)
VM_ARRAY(vm_arr_erf, vm_erf)
VM_ARRAY(vm_arr_tanh, vm_tanh)
VM_ARRAY(vm_arr_sigmoid, vm_sigmoid)
VM_ARRAY(vm_arr_silu, vm_silu)
VM_ARRAY(vm_arr_gelu, vm_gelu)
VM_ARRAY(vm_arr_gelu_tanh, vm_gelu_tanh)
VM_ARRAY(vm_arr_gelu_q, vm_gelu_q)
VM_ARRAY(vm_arr_gelu_tanh_fast, vm_gelu_tanh_fast)
#undef VM_ARRAY

/* y[i] = e^(x[i] - shift), or e^(x[i]*scale - shift) with the product
 * rounded first (the scaled row a softmax after a multiply would read),
 * returning the sum (lanes summed apart, then together; the tail is padded
 * with -inf, whose exponential adds 0: scale > 0 there). */
static inline float vm_exp_sum_body(const float *x, float *y, int64_t n, float scale, float shift,
                                    int scaled) {
  VF acc = vset(0.0f), sh = vset(shift), sc = vset(scale);
  int64_t i = 0;
  for (; i + VW <= n; i += VW) {
    VF v = vload(x + i);
    if (scaled) v = vmul(v, sc);
    VF d = vsub(v, sh), e;
#ifdef vscalef
    /* every lane's result normal (the common case): the one-instruction
     * scaling; else vm_exp's (underflow assists cost less there) */
    if (vall(vgt(d, vset(-87.0f)))) {
      VF nn, p = vm_exp_parts(d, &nn);
      e = vscalef(p, nn);
    } else
#endif
      e = vm_exp(d);
    vstore(y + i, e);
    acc = vadd(acc, e);
  }
#ifdef vload_pad
  if (i < n) { /* masked: the buffer round trip below stalls store forwarding */
    VF v = vload_pad(x + i, n - i, -__builtin_inff());
    if (scaled) v = vmul(v, sc);
    VF e = vm_exp(vsub(v, sh));
    vstore_n(y + i, n - i, e);
    acc = vadd(acc, e);
  }
#else
  if (i < n) {
    float tx[VW], ty[VW];
    for (int k = 0; k < VW; k++) tx[k] = -__builtin_inff();
    memcpy(tx, x + i, (size_t)(n - i) * sizeof(float));
    VF v = vload(tx);
    if (scaled) v = vmul(v, sc);
    VF e = vm_exp(vsub(v, sh));
    vstore(ty, e);
    acc = vadd(acc, e);
    memcpy(y + i, ty, (size_t)(n - i) * sizeof(float));
  }
#endif
  return vhsum(acc);
}

static float vm_arr_exp_sum(const float *x, float *y, int64_t n, float shift) {
  return vm_exp_sum_body(x, y, n, 1.0f, shift, 0);
}

static float vm_arr_exp_sum_scaled(const float *x, float *y, int64_t n, float scale, float shift) {
  return vm_exp_sum_body(x, y, n, scale, shift, 1);
}

/* y[i] *= s */
static void vm_arr_mulc(float *y, int64_t n, float s) {
  VF sv = vset(s);
  int64_t i = 0;
  for (; i + VW <= n; i += VW) vstore(y + i, vmul(vload(y + i), sv));
#ifdef vload_pad
  if (i < n) vstore_n(y + i, n - i, vmul(vload_pad(y + i, n - i, 0.0f), sv));
#else
  for (; i < n; i++) y[i] *= s;
#endif
}

/* The largest x[i], NaN skipped (a select on an ordered compare, as NEON's
 * max would keep NaN), -inf when none: the same value in every set. */
static float vm_arr_max(const float *x, int64_t n) {
  VF acc = vset(-__builtin_inff());
  int64_t i = 0;
  for (; i + VW <= n; i += VW) {
    VF v = vload(x + i);
    acc = vsel(vgt(v, acc), v, acc);
  }
  float m = vhmax(acc);
  for (; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

const k_vmath_ops VM_TABLE = {vm_arr_exp,  vm_arr_erf,    vm_arr_tanh,           vm_arr_sigmoid,
                              vm_arr_silu, vm_arr_gelu,   vm_arr_gelu_tanh,      vm_arr_exp_sum,
                              vm_arr_max,  vm_arr_gelu_q, vm_arr_gelu_tanh_fast, vm_arr_exp_sum_scaled,
                              vm_arr_mulc};
