#include "backward_util.h"

pte_status kb_float_input(pte_kernel_ctx *ctx, const pte_tensor *t, int32_t dtype, const char *name) {
  if (!k_is_float(t->dtype)) return K_FAIL("%s: not implemented for %s", name, pte_dtype_name(t->dtype));
  if (t->dtype != dtype)
    return K_FAIL("%s has dtype %s, expected %s", name, pte_dtype_name(t->dtype), pte_dtype_name(dtype));
  K_CHECK(k_has_data(ctx, t, name));
  return k_contiguous(ctx, t, name);
}

pte_status kb_same_shape(pte_kernel_ctx *ctx, const pte_tensor *t, int32_t dim, const int64_t *sizes,
                         const char *name) {
  bool same = t->dim == dim;
  for (int32_t i = 0; same && i < dim; i++) same = t->sizes[i] == sizes[i];
  if (!same) return K_FAIL("%s has rank %d and does not match the expected shape", name, (int)t->dim);
  return PTE_OK;
}

pte_status kb_zero_out_like(pte_kernel_ctx *ctx, pte_tensor *out, const pte_tensor *like, const char *name) {
  if (out->dtype != like->dtype)
    return K_FAIL("%s has dtype %s, expected %s", name, pte_dtype_name(out->dtype),
                  pte_dtype_name(like->dtype));
  K_CHECK(k_out_like(ctx, out, like));
  K_CHECK(k_contiguous(ctx, out, name));
  size_t bytes = (size_t)pte_tensor_numel(out) * pte_dtype_size(out->dtype);
  if (bytes) memset(out->data, 0, bytes);
  return PTE_OK;
}

pte_status kb_mask3(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool *mask) {
  if (args[i]->tag != PTE_TAG_BOOL_LIST || args[i]->len != 3)
    return k_wrong_tag(ctx, i, args[i], "BoolList of 3");
  for (int32_t k = 0; k < 3; k++) mask[k] = args[i]->u.bools[k] != 0;
  return PTE_OK;
}

pte_status kb_masked_out(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool wanted, pte_tensor **out) {
  *out = NULL;
  if (!wanted) return PTE_OK;
  return k_tensor(ctx, args, i, out);
}
