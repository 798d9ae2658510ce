/* aten::pow.Tensor_Tensor_out(Tensor self, Tensor exponent, *, Tensor(a!) out)
 * aten::pow.Tensor_Scalar_out(Tensor self, Scalar exponent, *, Tensor(a!) out)
 * aten::pow.Scalar_out(Scalar self, Tensor exponent, *, Tensor(a!) out)
 *
 * Computed in the common dtype (ATen's result_type; bool is not supported).
 * Integer powers use exact repeated squaring with wrap-around; a negative
 * integer exponent gives 1 for base 1, +-1 for base -1 and 0 otherwise, like
 * ATen, except that an integral tensor raised to a negative integer Scalar is
 * an error ("Integers to negative integer powers are not allowed"), and
 * that a Scalar base of 1 gives ones of the output's dtype and a Scalar
 * exponent of 0 or 1 gives ones or a copy of the input (bool too). A float
 * tensor raised to a Scalar takes ATen's shortcuts for 2, 3, 0.5, -0.5, -1
 * and -2 so results round the same way. */
#include "util/elementwise_util.h"

static inline int64_t pow_i(int64_t base, int64_t e) {
  if (e < 0) {
    if (base == 1) return 1;
    if (base == -1) return (e & 1) ? -1 : 1;
    return 0;
  }
  uint64_t r = 1, x = (uint64_t)base;
  while (e) {
    if (e & 1) r *= x;
    e >>= 1;
    x *= x;
  }
  return (int64_t)r;
}

K_ROW_FN(pow_f32, float, float, powf(a, b))
K_ROW_FN(pow_f64, double, double, pow(a, b))
K_ROW_FN(pow_i64, int64_t, int64_t, pow_i(a, b))
static const k_row_fns pow_fns = {{pow_f32, pow_f64, pow_i64, NULL}};

/* Tensor ** Scalar: p->d[0] is the exponent (already rounded to the compute
 * type), p->i[0] selects a shortcut. */
enum { POW_GENERIC, POW_SQUARE, POW_CUBE, POW_SQRT, POW_RSQRT, POW_RECIP, POW_RECIP_SQUARE };

#define POW_SCALAR_BODY(T, POW, SQRT)             \
  switch (p->i[0]) {                              \
    case POW_SQUARE: return x * x;                \
    case POW_CUBE: return x * x * x;              \
    case POW_SQRT: return SQRT(x);                \
    case POW_RSQRT: return (T)1 / SQRT(x);        \
    case POW_RECIP: return (T)1 / x;              \
    case POW_RECIP_SQUARE: return (T)1 / (x * x); \
    default: return POW(x, (T)p->d[0]);           \
  }

static inline float pow_scalar_f(float x, const k_params *p) { POW_SCALAR_BODY(float, powf, sqrtf) }
static inline double pow_scalar_d(double x, const k_params *p){POW_SCALAR_BODY(double, pow, sqrt)}

K_ROW_FN(pow_scalar_f32, float, float, pow_scalar_f(a, p)) K_ROW_FN(pow_scalar_f64, double, double,
                                                                    pow_scalar_d(a, p))
    K_ROW_FN(pow_scalar_i64, int64_t, int64_t, pow_i(a, p->i[1])) static const k_row_fns pow_scalar_fns = {
        {pow_scalar_f32, pow_scalar_f64, pow_scalar_i64, NULL}};

static pte_status pow_tensor_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_binary(ctx, args, nargs, false, false, &pow_fns, EW_NO_BOOL, NULL);
}

K_ROW_FN(pow_id_f32, float, float, a)
K_ROW_FN(pow_id_f64, double, double, a)
K_ROW_FN(pow_id_i64, int64_t, int64_t, a)
K_ROW_FN(pow_id_bool, uint8_t, uint8_t, a)
static const k_row_fns pow_id_fns = {{pow_id_f32, pow_id_f64, pow_id_i64, pow_id_bool}};

K_ROW_FN(pow_one_f32, float, float, 1.0f)
K_ROW_FN(pow_one_f64, double, double, 1.0)
K_ROW_FN(pow_one_i64, int64_t, int64_t, 1)
K_ROW_FN(pow_one_bool, uint8_t, uint8_t, 1)
static const k_row_fns pow_one_fns = {{pow_one_f32, pow_one_f64, pow_one_i64, pow_one_bool}};

static pte_status pow_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_nargs(ctx, nargs, 4));
  k_scalar base;
  K_CHECK(k_scalar_arg(ctx, args, 0, &base));
  bool one = base.dtype == PTE_FLOAT64 ? base.d == 1.0 : base.dtype == PTE_INT64 && base.i == 1;
  if (one && args[1]->tag == PTE_TAG_TENSOR && args[2]->tag == PTE_TAG_TENSOR) {
    /* ATen fills ones for base 1, whatever the dtypes: 1 ** x == 1 even for NaN */
    ew_operand exponent;
    K_CHECK(ew_operand_arg(ctx, args, 1, false, &exponent));
    pte_tensor *out = args[2]->u.tensor;
    ew_operand *ops[1] = {&exponent};
    return ew_run(ctx, ops, 1, out, out->dtype, k_ctype_of(out->dtype), &pow_one_fns, NULL);
  }
  return ew_binary(ctx, args, nargs, true, false, &pow_fns, EW_NO_BOOL, NULL);
}

static pte_status pow_tensor_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, exponent;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, true, &exponent));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  const k_scalar *e = &exponent.s;
  bool int_base = k_is_int(self.t->dtype) || self.t->dtype == PTE_BOOL;
  if (int_base && e->dtype != PTE_FLOAT64 && e->i < 0)
    return K_FAIL("Integers to negative integer powers are not allowed");
  ew_operand *ops[2] = {&self, &exponent};
  int32_t common = ew_result_type(ops, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  K_CHECK(ew_scalar_check(ctx, e, common, "exponent"));
  /* like ATen: x ** 0 is one and x ** 1 is x, whatever the dtype (bool too) */
  bool zero = e->dtype == PTE_FLOAT64 ? e->d == 0.0 : e->i == 0;
  bool unit = e->dtype == PTE_FLOAT64 ? e->d == 1.0 : e->i == 1;
  ew_operand *ins[1] = {&self};
  if (zero || unit)
    return ew_run(ctx, ins, 1, out, common, k_ctype_of(common), zero ? &pow_one_fns : &pow_id_fns, NULL);
  if (common == PTE_BOOL) return K_FAIL("pow is not implemented for bool");
  k_params p;
  memset(&p, 0, sizeof p);
  if (k_is_float(common)) {
    double v = e->dtype == PTE_FLOAT64 ? e->d : (double)e->i;
    p.d[0] = ew_scalar_d(e, common);
    p.i[0] = v == 2.0    ? POW_SQUARE
             : v == 3.0  ? POW_CUBE
             : v == 0.5  ? POW_SQRT
             : v == -0.5 ? POW_RSQRT
             : v == -1.0 ? POW_RECIP
             : v == -2.0 ? POW_RECIP_SQUARE
                         : POW_GENERIC;
  } else {
    p.i[1] = ew_scalar_i(e, common);
  }
  /* only the tensor goes through the driver; the exponent is in p */
  return ew_run(ctx, ins, 1, out, common, k_ctype_of(common), &pow_scalar_fns, &p);
}

PTE_PORTABLE_KERNEL(pow_tensor_tensor_out, "aten::pow.Tensor_Tensor_out")
PTE_PORTABLE_KERNEL(pow_tensor_scalar_out, "aten::pow.Tensor_Scalar_out")
PTE_PORTABLE_KERNEL(pow_scalar_out, "aten::pow.Scalar_out")
