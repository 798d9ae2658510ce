/* aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
 *                               bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1)
 * The variance (out0, divisor max(N - correction, 0), correction 1 by
 * default) and the mean (out1) over dims (None or [] = all). */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status var_mean_correction_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *var, *mean;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0;
  double correction = 1;
  bool has_corr = false, keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_opt_double(ctx, args, 2, &correction, &has_corr));
  if (!has_corr) correction = 1;
  K_CHECK(k_bool(ctx, args, 3, &keepdim));
  K_CHECK(k_tensor(ctx, args, 4, &var));
  K_CHECK(k_tensor(ctx, args, 5, &mean));
  if (var == mean) return K_FAIL("out0 and out1 must be different tensors");
  return kr_var_mean(ctx, self, dims, ndims, keepdim, correction, false, var, mean);
}

PTE_PORTABLE_KERNEL(var_mean_correction_out, "aten::var_mean.correction_out")
