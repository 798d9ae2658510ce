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
 * vall(m) (every lane of m set, a C truth value), vpow2i(n) (2^n for
 * integral n in [-126, 127]), vmullo(a, b, p) (a*b - p exactly, p = a*b
 * rounded), vhsum (sum of the lanes), vhmax (their max, no lane NaN), and
 * VM_TABLE (the name of the k_vmath_ops to define). Optional: vscalef(v,
 * n) (v*2^n rounded once, any integral n), vload_pad(p, k, pad) and
 * vstore_n(p, k, v) (the first k < VW lanes, without touching the rest of
 * memory).
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
 *   e^-a^2 * R(1/(1+a)).
 * - gelu: x*Phi(x) with Phi(-|x|) = e^-x^2/2 (from the exact x^2, hi +
 *   lo) times a rational in |x|, for every x (see vm_gelu).
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

/* v * 2^n where n is in [-126, 127] and the result normal: one step */
#ifdef vscalef
#define vm_scale_normal vscalef
#else
#define vm_scale_normal(v, n) vmul(v, vpow2i(n))
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

/* gelu(x) = x*Phi(x), one formula for every x (no erf split at 0.875, no
 * branch computed and dropped): with u = |x| and t = u*Phi(-u), gelu is
 * x - t for x > 0 and -t otherwise, neither side cancelling (t <= x/2),
 * so y = m*x - t in one fmsub with m = (x > 0) (m*x is NaN for NaN and
 * -inf, as 0.5x(1 + erf) is). Phi(-u) = e^(-u^2/2) * R(u) with R(u) =
 * erfcx(u/sqrt2)/2 = p4*A(u)/(u*A(u) + D(u)), A monic of degree 4, D of
 * degree 4: a (4, 5) rational whose denominator shares the numerator's A,
 * so A's rounding cancels in the quotient (as P/Q, P's and Q's Horner
 * errors added up to 3.6 ulp at u = 7). u*A is formed once for both. p4
 * rides in E(rho) = p4*e^(-rho/2), e^(-u^2/2) = E(rho)/p4 * 2^nn from the
 * exact u^2 = h + l, rho = h + l + 2nn*ln2 in [-ln2, ln2]. u is clamped
 * at 14.75 (beyond, t rounds to 0; u^2 stays finite). One division: a
 * division-free piecewise fit needs table lookups (three instructions
 * each on AVX2) and as many FMAs as the division saves.
 * Fits, all against mpmath at 40 digits on Chebyshev nodes, relative
 * error, Lawson reweighting towards minimax: R as P/Q by linearized least
 * squares (Sanathanan-Koerner) on 3000 nodes of [0, 14.75], rewritten as
 * A and D; A's coefficients rounded to float, D refitted and rounded, then
 * a descent over a few ulp of each coefficient (1.5e-8 with the float
 * coefficients); E with p4 and -p4/2 fixed on 2000 nodes of |rho| <= 1.01
 * ln2, rounded to float from rho^2 up with the higher ones refitted
 * (3.3e-9). All 2^32 floats: 4 ulp at most (AVX-512, AVX2, generic). */
static inline VF vm_gelu(VF x) {
  static const float ca[] = {120.91976928710938f, 106.11811828613281f, 44.403350830078125f,
                             9.857051849365234f}; /* and u^4 */
  static const float cd[] = {96.48109436035156f, 40.73199462890625f, 10.049455642700195f, 0.986330509185791f,
                             0.0007158558582887053f};
  static const float ce[] = {0.39894673228263855f,   -0.19947336614131927f,  0.04986833408474922f,
                             -0.008311314508318901f, 0.0010389718227088451f, -0.00010434228170197457f,
                             8.605526090832427e-06f};
  VF u = vmin(vabs(x), vset(14.75f));
  VF h = vmul(u, u), l = vmullo(u, u, h);
  VF nn = vsub(vfma(h, vset(-0.5f * VM_LOG2E), vset(VM_MAGIC)), vset(VM_MAGIC));
  VF rho = vadd(vfma(nn, vset(2.0f * VM_LN2_HI), h), vfma(nn, vset(2.0f * VM_LN2_LO), l));
  VF a = vadd(u, vset(ca[3]));
  for (int i = 2; i >= 0; i--) a = vfma(a, u, vset(ca[i]));
  VF au = vmul(a, u);
  VF t = vm_scale1(vmul(vm_horner(rho, ce, 6), vdiv(au, vadd(au, vm_horner(u, cd, 4)))), nn);
  return vmullo(vsel(vgt(x, vset(0.0f)), vset(1.0f), vset(0.0f)), x, t);
}

/* gelu for outputs that are quantized next (the delegate's gelu before an
 * int8 convert): 0.5x(1 + erf(z)) with erf(z) = z*P(z^2)/Q(z^2) on |z| <=
 * 3.9 (a rational fit, absolute error below 3e-7 in float), so the result
 * is within 2e-7 * (1 + |x|) of gelu's, a millionth of an int8 step on any
 * range it is quantized over, in three quarters of vm_gelu's operations.
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

/* exp_sum's e^d = p * 2^n: as vm_exp_parts without the clamps (the caller
 * picks lanes in range or clamps) and with one Horner sum of degree 6
 * (1 + r + r^2*P(r) in vm_exp_parts: one FMA more). Coefficients: relative
 * least squares on 2000 Chebyshev nodes of |r| <= 1.01 ln2/2 against
 * mpmath, Lawson-reweighted towards minimax, with 1 + r fixed, rounded to
 * float from r^2 up with the higher ones refitted (3.4e-9 relative). */
static inline VF vm_exp_sum_parts(VF d, VF *pn) {
  static const float cx[] = {1.0f,
                             1.0f,
                             0.4999999403953552f,
                             0.16666516661643982f,
                             0.041668280959129333f,
                             0.008369248360395432f,
                             0.0013820742024108768f};
  VF n = vsub(vfma(d, vset(VM_LOG2E), vset(VM_MAGIC)), vset(VM_MAGIC));
  *pn = n;
  return vm_horner(vfma(n, vset(-VM_LN2_LO), vfma(n, vset(-VM_LN2_HI), d)), cx, 6);
}

/* e^d for exp_sum. Vectors whose lanes all lie in (-87, 88), every
 * result normal (a softmax row's, but for the far tail), skip the clamps
 * and scale in one step; any other goes through vm_scale's two steps
 * (denormal results rounded once, as they should) with the same
 * polynomial, so a lane's value does not depend on its neighbours. Lanes
 * below -104 (e^d < 2^-150: 0; a mask's -inf) select 0 rather than
 * underflow to it: an underflowing multiply takes a microcode assist. */
static inline VF vm_exp_sum_lane(VF d) {
  VF n, p;
  if (vall(vlt(vabs(vsub(d, vset(0.5f))), vset(87.5f)))) {
    p = vm_exp_sum_parts(d, &n);
    return vm_scale_normal(p, n);
  }
  VM zero = vlt(d, vset(-104.0f));
  p = vm_exp_sum_parts(vmin(vsel(zero, vset(0.0f), d), vset(VM_EXP_HI)), &n);
  return vsel(vnan(d), vadd(d, d), vsel(zero, vset(0.0f), vm_scale(p, n)));
}

/* The lanes 0..15, for a mask of a vector's first k lanes. */
static const float vm_iota[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* y[i] = e^(x[i] - shift), or e^(x[i]*scale - shift) with the product
 * rounded first (the scaled row a softmax after a multiply would read),
 * returning the sum (lanes summed apart, then together). The tail's
 * missing lanes compute e^0 (an exponential that underflows would cost a
 * microcode assist, as much as the row's other vectors together) and add
 * 0. */
static inline float vm_exp_sum_body(const float *x, float *y, int64_t n, float scale, float shift,
                                    int scaled) {
  VF acc = vset(0.0f), sh = vset(shift), sc = vset(scale);
  int64_t i = 0;
  for (; i + VW <= n; i += VW) {
    VF v = vload(x + i);
    if (scaled) v = vmul(v, sc);
    VF e = vm_exp_sum_lane(vsub(v, sh));
    vstore(y + i, e);
    acc = vadd(acc, e);
  }
  if (i < n) {
    VM m = vlt(vload(vm_iota), vset((float)(n - i)));
#ifdef vload_pad
    VF v = vload_pad(x + i, n - i, 0.0f); /* masked: a buffer round trip stalls store forwarding */
#else
    float tx[VW] = {0}, ty[VW];
    memcpy(tx, x + i, (size_t)(n - i) * sizeof(float));
    VF v = vload(tx);
#endif
    if (scaled) v = vmul(v, sc);
    VF e = vsel(m, vm_exp_sum_lane(vsel(m, vsub(v, sh), vset(0.0f))), vset(0.0f));
#ifdef vload_pad
    vstore_n(y + i, n - i, e);
#else
    vstore(ty, e);
    memcpy(y + i, ty, (size_t)(n - i) * sizeof(float));
#endif
    acc = vadd(acc, e);
  }
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
 * max would keep NaN), -inf when none: the same value in every set. Four
 * accumulators: one waits out compare and select latency on every vector
 * (a 197-float row: 13 vectors, 13 such waits in a row). */
static float vm_arr_max(const float *x, int64_t n) {
  VF a0 = vset(-__builtin_inff()), a1 = a0, a2 = a0, a3 = a0;
  int64_t i = 0;
  for (; i + 4 * VW <= n; i += 4 * VW) {
    VF v0 = vload(x + i), v1 = vload(x + i + VW), v2 = vload(x + i + 2 * VW), v3 = vload(x + i + 3 * VW);
    a0 = vsel(vgt(v0, a0), v0, a0);
    a1 = vsel(vgt(v1, a1), v1, a1);
    a2 = vsel(vgt(v2, a2), v2, a2);
    a3 = vsel(vgt(v3, a3), v3, a3);
  }
  for (; i + VW <= n; i += VW) {
    VF v = vload(x + i);
    a0 = vsel(vgt(v, a0), v, a0);
  }
#ifdef vload_pad
  if (i < n) {
    VF v = vload_pad(x + i, n - i, -__builtin_inff());
    a1 = vsel(vgt(v, a1), v, a1);
    i = n;
  }
#endif
  a0 = vsel(vgt(a1, a0), a1, a0);
  a2 = vsel(vgt(a3, a2), a3, a2);
  float m = vhmax(vsel(vgt(a2, a0), a2, a0));
  for (; i < n; i++) m = x[i] > m ? x[i] : m;
  return m;
}

const k_vmath_ops VM_TABLE = {vm_arr_exp,  vm_arr_erf,    vm_arr_tanh,           vm_arr_sigmoid,
                              vm_arr_silu, vm_arr_gelu,   vm_arr_gelu_tanh,      vm_arr_exp_sum,
                              vm_arr_max,  vm_arr_gelu_q, vm_arr_gelu_tanh_fast, vm_arr_exp_sum_scaled,
                              vm_arr_mulc};
