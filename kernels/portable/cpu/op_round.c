/* aten::round.out(Tensor self, *, Tensor(a!) out)
 * aten::round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out)
 *
 * Round half to even (nearbyint in the default rounding mode), like ATen.
 * Integers are returned unchanged by round.out. With decimals, x is scaled by
 * 10^decimals (in the compute precision), rounded and scaled back; negative
 * decimals divide first, as ATen does. */
#include "util/elementwise_util.h"

K_ROW_FN(round_f32, float, float, nearbyintf(a))
K_ROW_FN(round_f64, double, double, nearbyint(a))
K_ROW_FN(round_i64, int64_t, int64_t, a)
static const k_row_fns round_fns = {{round_f32, round_f64, round_i64, NULL}};

/* p->d[0] = 10^|decimals|, p->i[0] = 1 when decimals < 0 */
K_ROW_FN(round_dec_f32, float, float,
         p->i[0] ? nearbyintf(a / (float)p->d[0]) * (float)p->d[0]
                 : nearbyintf(a *(float)p->d[0]) / (float)p->d[0])
K_ROW_FN(round_dec_f64, double, double,
         p->i[0] ? nearbyint(a / p->d[0]) * p->d[0] : nearbyint(a * p->d[0]) / p->d[0])
static const k_row_fns round_dec_fns = {{round_dec_f32, round_dec_f64, NULL, NULL}};

static pte_status round_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return ew_unary(ctx, args, nargs, &round_fns, 0, NULL);
}

static pte_status round_decimals_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  int64_t decimals = 0;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &decimals));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  k_params p;
  memset(&p, 0, sizeof p);
  bool neg = decimals < 0;
  /* |decimals| beyond ~400 makes the power overflow to inf, as in ATen */
  int64_t mag = neg ? (decimals < -1000 ? 1000 : -decimals) : (decimals > 1000 ? 1000 : decimals);
  p.d[0] = self->dtype == PTE_FLOAT64 ? pow(10.0, (double)mag) : (double)powf(10.0f, (float)mag);
  p.i[0] = neg;
  ew_operand op;
  ew_operand_tensor(self, &op);
  ew_operand *ops[1] = {&op};
  if (!k_is_float(self->dtype))
    return K_FAIL("round with decimals is not supported for dtype %s", pte_dtype_name(self->dtype));
  return ew_run(ctx, ops, 1, out, self->dtype, k_ctype_of(self->dtype), &round_dec_fns, &p);
}

PTE_PORTABLE_KERNEL(round_out, "aten::round.out")
PTE_PORTABLE_KERNEL(round_decimals_out, "aten::round.decimals_out")
