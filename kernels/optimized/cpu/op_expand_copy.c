/* aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
 * Any dtype of 1-8 bytes: a broadcast copy (stride 0 on expanded dims). */
#include "util/copy.h"

/* Target sizes and source strides; false if self does not expand to `size`. */
static bool plan(pte_value *const *args, int32_t nargs, const pte_tensor *x, int32_t *dim, int64_t *sizes,
                 int64_t *strides) {
  int32_t n = k_arg_ints(args, nargs, 1, sizes, PTE_MAX_DIM);
  if (n < x->dim) return false;
  int32_t lead = n - x->dim;
  for (int32_t k = 0; k < n; k++) {
    int32_t s = k - lead;
    if (s < 0) {
      if (sizes[k] < 0) return false;
      strides[k] = 0;
      continue;
    }
    if (sizes[k] == -1) sizes[k] = x->sizes[s];
    if (sizes[k] == x->sizes[s]) {
      strides[k] = x->strides[s];
    } else if (x->sizes[s] == 1 && sizes[k] >= 0) {
      strides[k] = 0;
    } else {
      return false;
    }
  }
  *dim = n;
  return true;
}

static bool expand_accepts(pte_value *const *args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t dim;
  if (nargs != 5 || !k_arg_tag(args, nargs, 2, PTE_TAG_BOOL)) return false;
  const pte_tensor *x = k_arg_tensor(args, nargs, 0), *out = k_arg_tensor(args, nargs, 3);
  if (!o_copyable(x) || !o_copyable(out) || x->dtype != out->dtype) return false;
  return plan(args, nargs, x, &dim, sizes, strides);
}

static pte_status expand_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  int32_t dim;
  if (!plan(args, nargs, x, &dim, sizes, strides))
    return K_FAIL("self does not expand to the requested size");
  K_CHECK(k_out(ctx, out, dim, sizes));
  if (o_numel(out) > 1) K_CHECK(k_disjoint(ctx, out, x, "self"));
  k_copy_to_contiguous(out->data, x->data, strides, dim, sizes, pte_dtype_size(x->dtype), true);
  return PTE_OK;
}

PTE_OPT_KERNEL(expand_out, "aten::expand_copy.out", expand_accepts, NULL)
