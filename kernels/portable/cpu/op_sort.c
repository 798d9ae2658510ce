/* aten::sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values,
 *                   Tensor(b!) indices) -> (values, indices)
 * aten::sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False,
 *                          Tensor(a!) values, Tensor(b!) indices) -> (values, indices)
 * Stable sort along dim; NaN sorts as the largest value (last ascending,
 * first descending) like ATen. Uses kernel scratch memory (24 bytes per
 * element of one line). */
#include "util/kernel_util.h"
#include "util/reduce_util.h"

static pte_status sort_values(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values, *indices;
  int64_t dim = 0;
  bool desc = false;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_bool(ctx, args, 2, &desc));
  K_CHECK(k_tensor(ctx, args, 3, &values));
  K_CHECK(k_tensor(ctx, args, 4, &indices));
  int64_t len = self->dim ? 0 : 1;
  if (self->dim) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, dim, self->dim, &d));
    len = self->sizes[d];
  }
  return kr_sort_lines(ctx, self, dim, len, desc, values, indices);
}

static pte_status sort_values_stable(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *values, *indices;
  int64_t dim = 0;
  bool desc = false;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  if (args[1]->tag != PTE_TAG_NONE && args[1]->tag != PTE_TAG_BOOL)
    return K_FAIL("stable must be a bool or None");
  K_CHECK(k_int(ctx, args, 2, &dim));
  K_CHECK(k_bool(ctx, args, 3, &desc));
  K_CHECK(k_tensor(ctx, args, 4, &values));
  K_CHECK(k_tensor(ctx, args, 5, &indices));
  int64_t len = self->dim ? 0 : 1;
  if (self->dim) {
    int32_t d = 0;
    K_CHECK(k_dim(ctx, dim, self->dim, &d));
    len = self->sizes[d];
  }
  return kr_sort_lines(ctx, self, dim, len, desc, values, indices);
}

static size_t sort_scratch(pte_value *const *args, int32_t nargs) {
  return kr_sort_scratch_for(args, nargs, 1);
}
static size_t sort_stable_scratch(pte_value *const *args, int32_t nargs) {
  return kr_sort_scratch_for(args, nargs, 2);
}

PTE_PORTABLE_KERNEL_EX(sort_values, "aten::sort.values", 0, sort_scratch)
PTE_PORTABLE_KERNEL_EX(sort_values_stable, "aten::sort.values_stable", 0, sort_stable_scratch)
