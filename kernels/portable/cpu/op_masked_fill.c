/* aten::masked_fill.Scalar_out(Tensor self, Tensor mask, Scalar value, *, Tensor(a!) out)
 *
 * mask ? value : self, with self and the bool mask broadcast together (the
 * output has the broadcast shape, like ATen's out-of-place masked_fill). The
 * value is converted to self's dtype. */
#include "util/elementwise_util.h"

/* a = self, b = mask (loaded in the compute type: nonzero is true); the value
 * is p->d[0] (float compute) or p->i[0] (integer/bool compute) */
K_ROW_FN(masked_fill_f32, float, float, b != 0 ? (float)p->d[0] : a)
K_ROW_FN(masked_fill_f64, double, double, b != 0 ? p->d[0] : a)
K_ROW_FN(masked_fill_i64, int64_t, int64_t, b != 0 ? p->i[0] : a)
K_ROW_FN(masked_fill_bool, uint8_t, uint8_t, b != 0 ? (uint8_t)p->i[0] : a)
static const k_row_fns masked_fill_fns = {
    {masked_fill_f32, masked_fill_f64, masked_fill_i64, masked_fill_bool}};

static pte_status masked_fill_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  ew_operand self, mask;
  k_scalar value;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, false, &mask));
  K_CHECK(k_scalar_arg(ctx, args, 2, &value));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (mask.t->dtype != PTE_BOOL)
    return K_FAIL("masked_fill only supports boolean masks, got %s", pte_dtype_name(mask.t->dtype));
  int32_t dt = self.t->dtype;
  if (!k_is_supported(dt)) return K_FAIL("input has unsupported dtype %s", pte_dtype_name(dt));
  K_CHECK(ew_scalar_check(ctx, &value, dt, "value"));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = ew_scalar_d(&value, dt);
  p.i[0] = ew_scalar_i(&value, dt);
  ew_operand *ops[2] = {&self, &mask};
  return ew_run(ctx, ops, 2, out, dt, k_ctype_of(dt), &masked_fill_fns, &p);
}

PTE_PORTABLE_KERNEL(masked_fill_scalar_out, "aten::masked_fill.Scalar_out")
