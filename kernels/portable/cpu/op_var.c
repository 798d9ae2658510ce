/* aten::var.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
 *                          bool keepdim=False, Tensor(a!) out)
 * aten::var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *,
 *               Tensor(a!) out)
 * Variance over dims (None or [] = all) with divisor max(N - correction, 0)
 * (correction defaults to 1). Two passes in double. */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status var_correction_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0;
  double correction = 1;
  bool has_corr = false, keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_opt_double(ctx, args, 2, &correction, &has_corr));
  if (!has_corr) correction = 1;
  K_CHECK(k_bool(ctx, args, 3, &keepdim));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  return kr_var(ctx, self, dims, ndims, keepdim, correction, false, out);
}

static pte_status var_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  int64_t dims[PTE_MAX_DIM];
  int32_t ndims = 0;
  bool unbiased = true, keepdim = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_opt_int_list(ctx, args, 1, dims, PTE_MAX_DIM, &ndims));
  K_CHECK(k_bool(ctx, args, 2, &unbiased));
  K_CHECK(k_bool(ctx, args, 3, &keepdim));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  return kr_var(ctx, self, dims, ndims, keepdim, unbiased ? 1 : 0, false, out);
}

PTE_PORTABLE_KERNEL(var_correction_out, "aten::var.correction_out")
PTE_PORTABLE_KERNEL(var_out, "aten::var.out")
