/* aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
 * aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
 * out = self, then out[index[i][j]][j] = src[i][j] (dim 0) for every
 * position of index. index values must be in [0, size) (no wrapping). */
#include "util/copy_util.h"

static pte_status scatter_src_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *index, *src, *out;
  int64_t dim = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_tensor(ctx, args, 2, &index));
  K_CHECK(k_tensor(ctx, args, 3, &src));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, index, src));
  return kc_scatter(ctx, self, dim, index, src, NULL, false, out);
}

static pte_status scatter_value_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *index, *out;
  int64_t dim = 0;
  k_scalar v;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_tensor(ctx, args, 2, &index));
  K_CHECK(k_scalar_arg(ctx, args, 3, &v));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, index, NULL));
  _Alignas(8) uint8_t elem[8] = {0};
  K_CHECK(kc_scalar_to(ctx, &v, self->dtype, true, elem));
  return kc_scatter(ctx, self, dim, index, NULL, elem, false, out);
}

PTE_PORTABLE_KERNEL(scatter_src_out, "aten::scatter.src_out")
PTE_PORTABLE_KERNEL(scatter_value_out, "aten::scatter.value_out")
