/* aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
 * Any dtype of 1-8 bytes, all inputs of the output's dtype in default
 * order: per outer index one memcpy per input. 1-D empty inputs are
 * skipped (ATen's legacy rule). Mixed dtypes stay portable. */
#include "util/copy.h"

static bool cat_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 4 || !k_arg_tag(args, nargs, 0, PTE_TAG_TENSOR_LIST) ||
      !k_arg_tag(args, nargs, 1, PTE_TAG_INT))
    return false;
  const pte_tensor *out = k_arg_tensor(args, nargs, 2);
  if (!o_copyable(out) || args[0]->len < 1) return false;
  for (int32_t i = 0; i < args[0]->len; i++) {
    const pte_value *v = args[0]->u.items[i];
    if (!v || v->tag != PTE_TAG_TENSOR || !o_copyable(v->u.tensor) || v->u.tensor->dtype != out->dtype)
      return false;
  }
  return true;
}

static bool skipped(const pte_tensor *t) { return t->dim == 1 && t->sizes[0] == 0; }

static pte_status cat_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  pte_value *const *items = args[0]->u.items;
  const int32_t n = args[0]->len;
  pte_tensor *out = args[2]->u.tensor;
  const pte_tensor *ref = NULL;
  for (int32_t i = 0; i < n && !ref; i++)
    if (!skipped(items[i]->u.tensor)) ref = items[i]->u.tensor;
  if (!ref) {
    int64_t zero = 0;
    return k_out(ctx, out, 1, &zero);
  }
  int32_t d = k_wrap_dim(args[1]->u.i, ref->dim);
  if (d < 0) return K_FAIL("dim out of range");
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t k = 0; k < ref->dim; k++) sizes[k] = ref->sizes[k];
  sizes[d] = 0;
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    if (skipped(t)) continue;
    if (t->dim != ref->dim) return K_FAIL("tensors must have the same rank");
    for (int32_t k = 0; k < ref->dim; k++)
      if (k != d && t->sizes[k] != ref->sizes[k])
        return K_FAIL("tensors must match except in dim %d", (int)d);
    sizes[d] += t->sizes[d];
  }
  K_CHECK(k_out(ctx, out, ref->dim, sizes));
  for (int32_t i = 0; i < n; i++)
    if (!skipped(items[i]->u.tensor)) K_CHECK(k_disjoint(ctx, out, items[i]->u.tensor, "an input"));
  const size_t es = pte_dtype_size(out->dtype);
  int64_t outer = 1, inner = 1;
  for (int32_t k = 0; k < d; k++) outer *= sizes[k];
  for (int32_t k = d + 1; k < ref->dim; k++) inner *= sizes[k];
  const int64_t orow = sizes[d] * inner * (int64_t)es;
  int64_t col = 0;
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = items[i]->u.tensor;
    if (skipped(t)) continue;
    const int64_t irow = t->sizes[d] * inner * (int64_t)es;
    for (int64_t o = 0; o < outer; o++)
      memcpy((uint8_t *)out->data + o * orow + col, (const uint8_t *)t->data + o * irow, (size_t)irow);
    col += irow;
  }
  return PTE_OK;
}

PTE_OPT_KERNEL(cat_out, "aten::cat.out", cat_accepts, NULL)
