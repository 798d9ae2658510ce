/* aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
 *
 * Inputs may have different dtypes (the result type is their promotion,
 * which must be castable to out). Legacy empty 1-D tensors of size [0] are
 * skipped, as ATen does. */
#include "util/copy_util.h"

/* ATen skips 1-D tensors with no elements regardless of the other shapes. */
static bool skipped(const pte_tensor *t) { return t->dim == 1 && t->sizes[0] == 0; }

static pte_status cat_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_value *const *items;
  int32_t n = 0;
  int64_t dim_arg = 0;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor_list(ctx, args, 0, &items, &n));
  K_CHECK(k_int(ctx, args, 1, &dim_arg));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(kc_no_alias_list(ctx, out, items, n));
  if (n == 0) return K_FAIL("expected a non-empty list of tensors");
  K_CHECK(kc_list_inputs(ctx, items, n, out));
  const pte_tensor *ref = NULL;
  for (int32_t i = 0; i < n && !ref; i++)
    if (!skipped(items[i]->u.tensor)) ref = items[i]->u.tensor;
  if (!ref) { /* every input is an empty 1-D tensor */
    int64_t zero = 0;
    return k_out(ctx, out, 1, &zero);
  }
  if (ref->dim == 0) return K_FAIL("zero-dimensional tensor cannot be concatenated");
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, ref->dim, &dim));
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < ref->dim; k++) sizes[k] = ref->sizes[k];
  sizes[dim] = 0;
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    if (skipped(t)) continue;
    if (t->dim != ref->dim)
      return K_FAIL("tensors must have the same number of dimensions: got %d and %d", (int)ref->dim,
                    (int)t->dim);
    for (int32_t k = 0; k < t->dim; k++)
      if (k != dim && t->sizes[k] != ref->sizes[k])
        return K_FAIL(
            "sizes of tensors must match except in dimension %d: expected size %lld but got size %lld for "
            "tensor number %d in the list",
            (int)dim, (long long)ref->sizes[k], (long long)t->sizes[k], (int)i);
    if (t->sizes[dim] > INT64_MAX - sizes[dim]) return K_FAIL("the concatenated size overflows");
    sizes[dim] += t->sizes[dim];
  }
  K_CHECK(k_out(ctx, out, ref->dim, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;
  int64_t at = 0;
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    if (skipped(t)) continue;
    uint8_t *dst = (uint8_t *)out->data + at * out->strides[dim] * (int64_t)pte_dtype_size(out->dtype);
    kc_convert(dst, out->dtype, out->strides, t->data, t->dtype, t->strides, t->dim, t->sizes);
    at += t->sizes[dim];
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(cat_out, "aten::cat.out")
