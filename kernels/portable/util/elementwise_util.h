/* Helpers for the elementwise operator family (arithmetic, math functions,
 * activations, comparisons, logic): argument decoding for the usual
 * Tensor/Scalar overloads, ATen's common-dtype rules, Scalar overflow checks,
 * and the elementwise driver (ew_run), which rounds
 * results through the common dtype and reports errors raised inside row
 * functions (integer division by zero).
 *
 * Internal to kernels_portable (ew_ prefix). */
#ifndef PTERUN_ELEMENTWISE_UTIL_H
#define PTERUN_ELEMENTWISE_UTIL_H

#include "kernel_util.h"

/* Row functions flag a failure (e.g. an integer division by zero) by setting
 * p->i[EW_ERR_SLOT]; the k_params object handed to ew_run is never const, so
 * writing through the pointer is well defined. ew_run turns the flag into a
 * kernel error after the loop. */
#define EW_ERR_SLOT 3
#define EW_ERR_ZERO_DIV 1
#define EW_RAISE(p, code) (((k_params *)(p))->i[EW_ERR_SLOT] = (code))

/* One operand of an elementwise op: a Tensor argument, or a Scalar argument
 * viewed as a 0-dim tensor (a "wrapped number" for type promotion). Do not
 * copy it: `t` may point at `wrapped`. */
typedef struct ew_operand {
  const pte_tensor *t;
  pte_tensor wrapped;
  k_scalar s;
  k_operand op;
  bool is_scalar;
  /* Load this operand from its own dtype instead of rounding it through a
   * float16/bfloat16 common dtype: ATen's mul/div use the original value of
   * a one-element second operand in float ("opmath") for reduced floats. */
  bool keep_precision;
} ew_operand;

/* Read argument i as a Tensor (scalar = false) or a Scalar (scalar = true). */
pte_status ew_operand_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool scalar, ew_operand *o);
/* Make an operand from a Scalar already read. */
void ew_operand_scalar(const k_scalar *s, ew_operand *o);
/* Make an operand from a tensor. */
void ew_operand_tensor(const pte_tensor *t, ew_operand *o);

/* Sets keep_precision when `o` has one element (ATen's is_scalar operand). */
static inline void ew_keep_scalar_precision(ew_operand *o) {
  o->keep_precision = pte_tensor_numel(o->t) == 1;
}

/* ATen's result_type over the operands (NULL entries are skipped). */
int32_t ew_result_type(ew_operand *const *ops, int32_t n);

/* Integral and bool dtypes become float32 (ATen's promote_integer_inputs_to_float). */
static inline int32_t ew_int_to_float(int32_t dt) { return k_is_float(dt) ? dt : PTE_FLOAT32; }

/* A scalar converted to the compute type of `common` exactly the way tensor
 * elements are (wrapping through narrower integer types, rounding through
 * float16/bfloat16). */
double ew_scalar_d(const k_scalar *s, int32_t common);
int64_t ew_scalar_i(const k_scalar *s, int32_t common);

/* out = f(operands...) with broadcasting (NULL operands are skipped, order
 * kept): operands are converted to `common`, row functions compute in its
 * compute type and write `out_ct` (common's ctype, or K_BOOL for predicates).
 * Results are rounded through `common` before being stored to an output of
 * another dtype (as ATen computes in the common dtype, then casts), and a
 * flag raised by a row function becomes an error. `p` may be NULL. */
pte_status ew_run(pte_kernel_ctx *ctx, ew_operand *const *ops, int32_t n, pte_tensor *out, int32_t common,
                  k_ctype out_ct, const k_row_fns *fns, k_params *p);

/* Fail like ATen's Scalar::to<T>() when a Scalar argument (a fill value, a
 * bound) does not fit `dtype`; `what` names it in the message. */
pte_status ew_scalar_check(pte_kernel_ctx *ctx, const k_scalar *s, int32_t dtype, const char *what);

/* Flags for the one-call helpers below. */
#define EW_FLOAT 0x1u       /* integral/bool common dtype computes in float32 */
#define EW_PRED 0x2u        /* row functions write bool (uint8_t) */
#define EW_NO_BOOL 0x4u     /* a bool common dtype is an error */
#define EW_KEEP_SCALAR 0x8u /* ew_keep_scalar_precision on the second operand */
#define EW_SWAP 0x10u       /* the row functions see (other, self) */
#define EW_SUBTRACT 0x20u   /* bool operands are an error, with ATen's subtraction messages */
#define EW_TRUTH 0x40u      /* operands of any dtype read as truth values: the common dtype is bool */

/* Unary op: args = (self, out, ret). The common dtype is self's dtype
 * (adjusted by EW_FLOAT). */
pte_status ew_unary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const k_row_fns *fns,
                    unsigned flags, k_params *p);

/* Binary op: args = (self, other, out, ret), where self and/or other are
 * Scalars when self_scalar/other_scalar say so. The common dtype is
 * result_type(self, other) (adjusted by EW_FLOAT). */
/* Complex self (args[0]) op other (args[1]) into out (args[2]), all three of
 * one complex dtype, broadcasting like the real path; each element in
 * double (so float parts round once) by op(ar, ai, br, bi, &cr, &ci). */
typedef void (*ew_complex_fn)(double ar, double ai, double br, double bi, double *cr, double *ci);
pte_status ew_complex_binary(pte_kernel_ctx *ctx, pte_value **args, ew_complex_fn op);

pte_status ew_binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool self_scalar,
                     bool other_scalar, const k_row_fns *fns, unsigned flags, k_params *p);

/* add, sub, rsub: args = (self, other, alpha, out, ret), the row functions
 * computing a op alpha*b over (self, other) (EW_SWAP: (other, self)), with
 * ATen's rules on alpha's type. Flags: EW_SWAP, EW_SUBTRACT. */
pte_status ew_alpha_binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool other_scalar,
                           const k_row_fns *fns, unsigned flags);

/* Float helpers shared by several ops. NaN-propagating min/max (ATen's
 * minimum/maximum and its vectorised clamp). */
static inline float ew_maxf(float a, float b) { return a != a ? a : b != b ? b : a > b ? a : b; }
static inline float ew_minf(float a, float b) { return a != a ? a : b != b ? b : a < b ? a : b; }
static inline double ew_max(double a, double b) { return a != a ? a : b != b ? b : a > b ? a : b; }
static inline double ew_min(double a, double b) { return a != a ? a : b != b ? b : a < b ? a : b; }

/* max(x, lo) then min(., hi): with lo > hi every element becomes hi (ATen). */
static inline int64_t ew_clampi(int64_t x, int64_t lo, int64_t hi) {
  x = x < lo ? lo : x;
  return x > hi ? hi : x;
}

/* Round a float to dtype `dt` and back when it is float16/bfloat16 (for
 * intermediate results ATen rounds to the reduced type). */
static inline float ew_round_reduced(float v, int64_t dt) {
  if (dt == PTE_FLOAT16) return k_half_to_float(k_float_to_half(v));
  if (dt == PTE_BFLOAT16) return k_bf16_to_float(k_float_to_bf16(v));
  return v;
}

/* Wrapping int64 arithmetic (two's complement, no undefined behaviour). */
static inline int64_t ew_addi(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static inline int64_t ew_subi(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static inline int64_t ew_muli(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* Integer and float division helpers shared by div, floor_divide and
 * remainder. Integer division by zero raises EW_ERR_ZERO_DIV and yields 0. */
static inline int64_t ew_div_trunc_i(int64_t a, int64_t b, const k_params *p) {
  if (b == 0) {
    EW_RAISE(p, EW_ERR_ZERO_DIV);
    return 0;
  }
  if (b == -1) return ew_subi(0, a); /* INT64_MIN / -1 wraps instead of trapping */
  return a / b;
}

static inline int64_t ew_div_floor_i(int64_t a, int64_t b, const k_params *p) {
  int64_t q = ew_div_trunc_i(a, b, p);
  if (b == 0 || b == -1) return q;
  /* round toward -inf when the signs differ and the division is inexact */
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

/* Python's float floor division: exact quotient of (a - fmod(a, b)) / b,
 * corrected for the sign of the remainder and for rounding of that quotient. */
static inline float ew_div_floor_f(float a, float b) {
  if (b == 0) return a / b;
  float m = fmodf(a, b);
  float q = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) q -= 1.0f;
  if (q == 0) return copysignf(0.0f, a / b);
  float f = floorf(q);
  if (q - f > 0.5f) f += 1.0f;
  return f;
}

static inline double ew_div_floor_d(double a, double b) {
  if (b == 0) return a / b;
  double m = fmod(a, b);
  double q = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) q -= 1.0;
  if (q == 0) return copysign(0.0, a / b);
  double f = floor(q);
  if (q - f > 0.5) f += 1.0;
  return f;
}

/* Python-style remainder (result has the sign of the divisor). */
static inline int64_t ew_rem_i(int64_t a, int64_t b, const k_params *p) {
  if (b == 0) {
    EW_RAISE(p, EW_ERR_ZERO_DIV);
    return 0;
  }
  if (b == -1) return 0; /* INT64_MIN % -1 would trap */
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static inline float ew_rem_f(float a, float b) {
  float m = fmodf(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

static inline double ew_rem_d(double a, double b) {
  double m = fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

/* C-style remainder (sign of the dividend). */
static inline int64_t ew_fmod_i(int64_t a, int64_t b, const k_params *p) {
  if (b == 0) {
    EW_RAISE(p, EW_ERR_ZERO_DIV);
    return 0;
  }
  if (b == -1) return 0;
  return a % b;
}

#endif
