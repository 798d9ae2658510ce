/* aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
 * out = self, then out[index[i][j]][j] += src[i][j] (dim 0). */
#include "util/copy_util.h"

static pte_status scatter_add_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *index, *src, *out;
  int64_t dim = 0;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_tensor(ctx, args, 2, &index));
  K_CHECK(k_tensor(ctx, args, 3, &src));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  K_CHECK(kc_no_alias(ctx, out, self, index, src));
  return kc_scatter(ctx, self, dim, index, src, NULL, true, out);
}

PTE_PORTABLE_KERNEL(scatter_add_out, "aten::scatter_add.out")
