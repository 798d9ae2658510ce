/* aten::clamp.out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out)
 * aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
 *
 * min(max(x, lo), hi) in the common dtype of self and the bounds (ATen's
 * result_type, so an integer tensor with float bounds gives float). When
 * lo > hi the result is hi. NaN in x or in a bound gives NaN (ATen's
 * vectorised behaviour). At least one bound is required. Like ATen, bool
 * is only supported with a single tensor bound. */
#include "util/elementwise_util.h"

/* Scalar bounds: p->d[0..1] (float compute) or p->i[0..1] (integer/bool
 * compute); a missing bound is -inf/+inf or INT64_MIN/INT64_MAX. */
K_ROW_FN(clamp_f32, float, float, ew_minf(ew_maxf(a, (float)p->d[0]), (float)p->d[1]))
K_ROW_FN(clamp_f64, double, double, ew_min(ew_max(a, p->d[0]), p->d[1]))
K_ROW_FN(clamp_i64, int64_t, int64_t, ew_clampi(a, p->i[0], p->i[1]))
static const k_row_fns clamp_fns = {{clamp_f32, clamp_f64, clamp_i64, NULL}};

/* Tensor bounds: a = self, then b = min and/or c = max. */
#define CLAMP_MAXI(x, y) ((x) < (y) ? (y) : (x))
#define CLAMP_MINI(x, y) ((x) > (y) ? (y) : (x))
K_ROW_FN(clamp_both_f32, float, float, ew_minf(ew_maxf(a, b), c))
K_ROW_FN(clamp_both_f64, double, double, ew_min(ew_max(a, b), c))
K_ROW_FN(clamp_both_i64, int64_t, int64_t, CLAMP_MINI(CLAMP_MAXI(a, b), c))
static const k_row_fns clamp_both_fns = {{clamp_both_f32, clamp_both_f64, clamp_both_i64, NULL}};

K_ROW_FN(clamp_lo_f32, float, float, ew_maxf(a, b))
K_ROW_FN(clamp_lo_f64, double, double, ew_max(a, b))
K_ROW_FN(clamp_lo_i64, int64_t, int64_t, CLAMP_MAXI(a, b))
K_ROW_FN(clamp_lo_bool, uint8_t, uint8_t, CLAMP_MAXI(a, b))
static const k_row_fns clamp_lo_fns = {{clamp_lo_f32, clamp_lo_f64, clamp_lo_i64, clamp_lo_bool}};

K_ROW_FN(clamp_hi_f32, float, float, ew_minf(a, b))
K_ROW_FN(clamp_hi_f64, double, double, ew_min(a, b))
K_ROW_FN(clamp_hi_i64, int64_t, int64_t, CLAMP_MINI(a, b))
K_ROW_FN(clamp_hi_bool, uint8_t, uint8_t, CLAMP_MINI(a, b))
static const k_row_fns clamp_hi_fns = {{clamp_hi_f32, clamp_hi_f64, clamp_hi_i64, clamp_hi_bool}};

static pte_status clamp_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, lo, hi;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  bool has_lo = args[1]->tag != PTE_TAG_NONE, has_hi = args[2]->tag != PTE_TAG_NONE;
  if (has_lo) K_CHECK(ew_operand_arg(ctx, args, 1, true, &lo));
  if (has_hi) K_CHECK(ew_operand_arg(ctx, args, 2, true, &hi));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (!has_lo && !has_hi) return K_FAIL("clamp: at least one of 'min' or 'max' must not be None");
  ew_operand *ops[3] = {&self, has_lo ? &lo : NULL, has_hi ? &hi : NULL};
  int32_t common = ew_result_type(ops, 3);
  if (common < 0) return K_FAIL("unsupported input dtype");
  if (has_lo) K_CHECK(ew_scalar_check(ctx, &lo.s, common, "min"));
  if (has_hi) K_CHECK(ew_scalar_check(ctx, &hi.s, common, "max"));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = has_lo ? ew_scalar_d(&lo.s, common) : -INFINITY;
  p.d[1] = has_hi ? ew_scalar_d(&hi.s, common) : INFINITY;
  p.i[0] = has_lo ? ew_scalar_i(&lo.s, common) : INT64_MIN;
  p.i[1] = has_hi ? ew_scalar_i(&hi.s, common) : INT64_MAX;
  ew_operand *ins[1] = {&self};
  return ew_run(ctx, ins, 1, out, common, k_ctype_of(common), &clamp_fns, &p);
}

static pte_status clamp_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, lo, hi;
  pte_tensor *out = NULL, *tlo = NULL, *thi = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(k_opt_tensor(ctx, args, 1, &tlo));
  K_CHECK(k_opt_tensor(ctx, args, 2, &thi));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (!tlo && !thi) return K_FAIL("clamp: at least one of 'min' or 'max' must not be None");
  if (tlo) ew_operand_tensor(tlo, &lo);
  if (thi) ew_operand_tensor(thi, &hi);
  ew_operand *ops[3] = {&self, tlo ? &lo : NULL, thi ? &hi : NULL};
  int32_t common = ew_result_type(ops, 3);
  if (common < 0) return K_FAIL("unsupported input dtype");
  const k_row_fns *fns = tlo && thi ? &clamp_both_fns : tlo ? &clamp_lo_fns : &clamp_hi_fns;
  return ew_run(ctx, ops, 3, out, common, k_ctype_of(common), fns, NULL);
}

PTE_PORTABLE_KERNEL(clamp_out, "aten::clamp.out")
PTE_PORTABLE_KERNEL(clamp_tensor_out, "aten::clamp.Tensor_out")
