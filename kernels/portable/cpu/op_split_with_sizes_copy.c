/* aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *,
 *                                 Tensor(a!)[] out) -> ()
 * The trailing return slot (the out list again) is accepted but not needed. */
#include "util/copy_util.h"

static pte_status split_with_sizes_copy_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self;
  int64_t dim_arg = 0;
  pte_value *const *outs;
  int32_t nout = 0;
  if (nargs != 4 && nargs != 5) return K_FAIL("expected 5 arguments, got %d", (int)nargs);
  K_CHECK(k_tensor(ctx, args, 0, &self));
  if (args[1]->tag != PTE_TAG_INT_LIST)
    return K_FAIL("argument 1 is a %s, expected an IntList", pte_tag_name(args[1]->tag));
  K_CHECK(k_int(ctx, args, 2, &dim_arg));
  K_CHECK(k_tensor_list(ctx, args, 3, &outs, &nout));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dim == 0) return K_FAIL("split_with_sizes expects at least a 1-dimensional tensor");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  const pte_value *sl = args[1];
  if (sl->len != nout) return K_FAIL("%d split sizes given for %d outputs", (int)sl->len, (int)nout);
  int64_t total = 0;
  for (int32_t i = 0; i < nout; i++) {
    int64_t s = 0;
    if (!pte_value_to_int(sl->u.items[i], &s) || s < 0) return K_FAIL("split size %d is invalid", (int)i);
    if (s > self->sizes[dim] - total)
      return K_FAIL("split sizes must sum to the size of dim %d (%lld)", (int)dim,
                    (long long)self->sizes[dim]);
    total += s;
    if (!outs[i] || outs[i]->tag != PTE_TAG_TENSOR) return K_FAIL("output %d is not a Tensor", (int)i);
    K_CHECK(kc_same_dtype(ctx, outs[i]->u.tensor, self));
    K_CHECK(kc_no_alias(ctx, outs[i]->u.tensor, self, NULL, NULL));
  }
  if (total != self->sizes[dim])
    return K_FAIL("split sizes sum to %lld but dim %d has size %lld", (long long)total, (int)dim,
                  (long long)self->sizes[dim]);
  size_t es = pte_dtype_size(self->dtype);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < self->dim; k++) sizes[k] = self->sizes[k];
  int64_t at = 0;
  for (int32_t i = 0; i < nout; i++) {
    pte_tensor *out = outs[i]->u.tensor;
    pte_value_to_int(sl->u.items[i], &sizes[dim]);
    K_CHECK(k_out(ctx, out, self->dim, sizes));
    if (pte_tensor_numel(out) > 0)
      kc_copy(out->data, out->strides, (const uint8_t *)self->data + at * self->strides[dim] * (int64_t)es,
              self->strides, self->dim, sizes, es);
    at += sizes[dim];
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(split_with_sizes_copy_out, "aten::split_with_sizes_copy.out")
