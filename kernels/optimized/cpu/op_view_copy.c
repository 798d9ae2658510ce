/* aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)
 * dim_order_ops::_clone_dim_order.out(Tensor self, *, bool non_blocking=False,
 *     int[]? dim_order=None, Tensor(a!) out)
 * Any dtype, both tensors in default order: one memcpy (memmove, in case
 * the planner gave both the same memory). Layout-changing clones stay
 * portable. */
#include "util/copy.h"

static bool view_sizes(pte_value *const *args, int32_t nargs, const pte_tensor *x, int32_t *dim,
                       int64_t *sizes) {
  int32_t n = k_arg_ints(args, nargs, 1, sizes, PTE_MAX_DIM);
  if (n < 0) return false;
  int64_t numel = pte_tensor_numel(x), known = 1;
  int32_t infer = -1;
  for (int32_t i = 0; i < n; i++) {
    if (sizes[i] == -1) {
      if (infer >= 0) return false;
      infer = i;
    } else if (sizes[i] < 0) {
      return false;
    } else if (__builtin_mul_overflow(known, sizes[i], &known)) {
      return false;
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known) return false;
    sizes[infer] = numel / known;
  } else if (known != numel) {
    return false;
  }
  *dim = n;
  return true;
}

static bool view_accepts(pte_value *const *args, int32_t nargs) {
  int64_t sizes[PTE_MAX_DIM];
  int32_t dim;
  if (nargs != 4) return false;
  const pte_tensor *x = k_arg_tensor(args, nargs, 0), *out = k_arg_tensor(args, nargs, 2);
  if (!o_copyable(x) || !o_copyable(out) || x->dtype != out->dtype) return false;
  return view_sizes(args, nargs, x, &dim, sizes);
}

static pte_status view_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[2]->u.tensor;
  int64_t sizes[PTE_MAX_DIM];
  int32_t dim;
  if (!view_sizes(args, nargs, x, &dim, sizes))
    return K_FAIL("size is not compatible with the input's element count");
  K_CHECK(k_out(ctx, out, dim, sizes));
  if (out->data != x->data) memmove(out->data, x->data, pte_tensor_nbytes(x));
  return PTE_OK;
}

static bool identity_order(pte_value *const *args, int32_t nargs, int32_t i, int32_t rank) {
  int64_t order[PTE_MAX_DIM];
  if (k_arg_none(args, nargs, i)) return true;
  if (k_arg_ints(args, nargs, i, order, PTE_MAX_DIM) != rank) return false;
  for (int32_t k = 0; k < rank; k++)
    if (order[k] != k) return false;
  return true;
}

static bool clone_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 5 || !k_arg_tag(args, nargs, 1, PTE_TAG_BOOL)) return false;
  const pte_tensor *x = k_arg_tensor(args, nargs, 0), *out = k_arg_tensor(args, nargs, 3);
  if (!o_copyable(x) || !o_copyable(out) || x->dtype != out->dtype) return false;
  return identity_order(args, nargs, 2, x->dim);
}

static pte_status clone_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  K_CHECK(k_out_like(ctx, out, x));
  if (out->data != x->data) memmove(out->data, x->data, pte_tensor_nbytes(x));
  return PTE_OK;
}

PTE_OPT_KERNEL(view_out, "aten::view_copy.out", view_accepts, NULL)
PTE_OPT_KERNEL(clone_out, "dim_order_ops::_clone_dim_order.out", clone_accepts, NULL)
