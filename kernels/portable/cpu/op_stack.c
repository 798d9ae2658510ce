/* aten::stack.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
 * All tensors have the same shape; out gets a new dim of size len(tensors)
 * at dim. Mixed dtypes promote like cat. */
#include "util/copy_util.h"

static pte_status stack_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_value *const *items;
  int32_t n = 0;
  int64_t dim_arg = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor_list(ctx, args, 0, &items, &n));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias_list(ctx, out, items, n));
  if (n == 0) return K_FAIL("stack expects a non-empty TensorList");
  K_CHECK(kc_list_inputs(ctx, items, n, out));
  const pte_tensor *ref = items[0]->u.tensor;
  for (int32_t i = 1; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    bool same = t->dim == ref->dim;
    for (int32_t k = 0; same && k < t->dim; k++) same = t->sizes[k] == ref->sizes[k];
    if (!same) {
      char a[160], b[160];
      return K_FAIL("stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d",
                    pte_shape_str(ref->dim, ref->sizes, a, sizeof a),
                    pte_shape_str(t->dim, t->sizes, b, sizeof b), (int)i);
    }
  }
  if (ref->dim >= PTE_MAX_DIM) return K_FAIL("the result would have more than %d dims", PTE_MAX_DIM);
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, ref->dim + 1, &dim));
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0, j = 0; k <= ref->dim; k++) sizes[k] = k == dim ? n : ref->sizes[j++];
  K_CHECK(k_out(ctx, out, ref->dim + 1, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  int64_t ost[PTE_MAX_DIM];
  for (int32_t k = 0, j = 0; k <= ref->dim; k++)
    if (k != dim) ost[j++] = out->strides[k];
  size_t es = pte_dtype_size(out->dtype);
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    uint8_t *d = (uint8_t *)out->data + i * out->strides[dim] * (int64_t)es;
    kc_convert(d, out->dtype, ost, t->data, t->dtype, t->strides, t->dim, t->sizes);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(stack_out, "aten::stack.out")
