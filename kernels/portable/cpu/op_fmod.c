/* aten::fmod.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)
 * aten::fmod.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
 *
 * C-style remainder: the result has the sign of the dividend. Integer fmod
 * by zero is an error; float fmod by zero is NaN. */
#include "util/elementwise_util.h"

K_ROW_FN(fmod_f32, float, float, fmodf(a, b))
K_ROW_FN(fmod_f64, double, double, fmod(a, b))
K_ROW_FN(fmod_i64, int64_t, int64_t, ew_fmod_i(a, b, p))
static const k_row_fns fmod_fns = {{fmod_f32, fmod_f64, fmod_i64, NULL}};

static pte_status fmod_tensor_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_params p;
  memset(&p, 0, sizeof p);
  return ew_binary(ctx, args, nargs, false, false, &fmod_fns, EW_NO_BOOL, &p);
}

static pte_status fmod_scalar_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_params p;
  memset(&p, 0, sizeof p);
  return ew_binary(ctx, args, nargs, false, true, &fmod_fns, EW_NO_BOOL, &p);
}

PTE_PORTABLE_KERNEL(fmod_tensor_out, "aten::fmod.Tensor_out")
PTE_PORTABLE_KERNEL(fmod_scalar_out, "aten::fmod.Scalar_out")
