/* aten::topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *,
 *                   Tensor(a!) values, Tensor(b!) indices) -> (values, indices)
 * The k largest (or smallest) elements along dim, always returned in sorted
 * order (also when sorted=False, where ATen leaves the order unspecified);
 * ties keep the lower index first; NaN counts as the largest value. Uses
 * kernel scratch memory (24 bytes per element of one line). */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status topk_values(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values, *indices;
  int64_t k = 0, dim = 0;
  bool largest = true, sorted = true;
  K_CHECK(k_nargs(ctx, nargs, 8));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &k));
  K_CHECK(k_int(ctx, args, 2, &dim));
  K_CHECK(k_bool(ctx, args, 3, &largest));
  K_CHECK(k_bool(ctx, args, 4, &sorted));
  K_CHECK(k_tensor(ctx, args, 5, &values));
  K_CHECK(k_tensor(ctx, args, 6, &indices));
  (void)sorted;
  return kr_sort_lines(ctx, self, dim, k, largest, values, indices);
}

static size_t topk_scratch(pte_value *const *args, int32_t nargs) {
  return kr_sort_scratch_for(args, nargs, 2);
}

PTE_PORTABLE_KERNEL_EX(topk_values, "aten::topk.values", 0, topk_scratch)
