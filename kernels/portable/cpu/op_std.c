/* aten::std.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
 *                          bool keepdim=False, Tensor(a!) out)
 * sqrt of the variance with divisor max(N - correction, 0) (default 1). */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status std_correction_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
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
  return kr_var(ctx, self, dims, ndims, keepdim, correction, true, out);
}

PTE_PORTABLE_KERNEL(std_correction_out, "aten::std.correction_out")
