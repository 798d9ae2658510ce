/* aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
 *
 * min(max(x, min_val), max_val) in self's dtype: unlike clamp the bounds are
 * converted to that dtype (an integer tensor with bounds -2.5/2.5 clamps to
 * -2/2), like ATen. NaN propagates. Bool is not supported. */
#include "util/elementwise_util.h"

K_ROW_FN(hardtanh_f32, float, float, ew_minf(ew_maxf(a, (float)p->d[0]), (float)p->d[1]))
K_ROW_FN(hardtanh_f64, double, double, ew_min(ew_max(a, p->d[0]), p->d[1]))
K_ROW_FN(hardtanh_i64, int64_t, int64_t, ew_clampi(a, p->i[0], p->i[1]))
static const k_row_fns hardtanh_fns = {{hardtanh_f32, hardtanh_f64, hardtanh_i64, NULL}};

static pte_status hardtanh_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self;
  k_scalar lo, hi;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(k_scalar_arg(ctx, args, 1, &lo));
  K_CHECK(k_scalar_arg(ctx, args, 2, &hi));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  int32_t dt = self.t->dtype;
  if (dt == PTE_BOOL) return K_FAIL("hardtanh: bool inputs are not supported");
  if (!k_is_supported(dt)) return K_FAIL("input has unsupported dtype %s", pte_dtype_name(dt));
  if (dt == PTE_UINT8 && ((lo.dtype == PTE_FLOAT64 ? lo.d : (double)lo.i) < 0 ||
                          (hi.dtype == PTE_FLOAT64 ? hi.d : (double)hi.i) < 0))
    return K_FAIL("hardtanh: cannot do hardtanh on an unsigned type with negative limits");
  K_CHECK(ew_scalar_check(ctx, &lo, dt, "min_val"));
  K_CHECK(ew_scalar_check(ctx, &hi, dt, "max_val"));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = ew_scalar_d(&lo, dt);
  p.d[1] = ew_scalar_d(&hi, dt);
  p.i[0] = ew_scalar_i(&lo, dt);
  p.i[1] = ew_scalar_i(&hi, dt);
  ew_operand *ins[1] = {&self};
  return ew_run(ctx, ins, 1, out, dt, k_ctype_of(dt), &hardtanh_fns, &p);
}

PTE_PORTABLE_KERNEL(hardtanh_out, "aten::hardtanh.out")
