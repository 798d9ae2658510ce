/* aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
 * Any dtype of 1-8 bytes: every exported nn.Linear transposes its weight
 * with this on each run, attention permutes its heads. A transpose of the
 * last two dims goes through cache tiles, contiguous source rows are
 * memcpy (util/copy.c). */
#include "util/copy.h"

static bool perm(pte_value *const *args, int32_t nargs, int32_t rank, int64_t *p) {
  int32_t n = k_arg_ints(args, nargs, 1, p, PTE_MAX_DIM);
  bool seen[PTE_MAX_DIM] = {false};
  if (n != rank) return false;
  for (int32_t i = 0; i < n; i++) {
    int32_t d = k_wrap_dim(p[i], rank);
    if (d < 0 || seen[d]) return false;
    seen[d] = true;
    p[i] = d;
  }
  return true;
}

static bool permute_accepts(pte_value *const *args, int32_t nargs) {
  int64_t p[PTE_MAX_DIM];
  if (nargs != 4) return false;
  const pte_tensor *x = k_arg_tensor(args, nargs, 0), *out = k_arg_tensor(args, nargs, 2);
  if (!o_copyable(x) || !o_copyable(out) || x->dtype != out->dtype) return false;
  return perm(args, nargs, x->dim, p);
}

static pte_status permute_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[2]->u.tensor;
  int64_t p[PTE_MAX_DIM], sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  if (!perm(args, nargs, x->dim, p)) return K_FAIL("dims must be a permutation of the input's dims");
  for (int32_t i = 0; i < x->dim; i++) {
    sizes[i] = x->sizes[p[i]];
    strides[i] = x->strides[p[i]];
  }
  K_CHECK(k_out(ctx, out, x->dim, sizes));
  if (o_numel(x) > 1) K_CHECK(k_disjoint(ctx, out, x, "self"));
  k_copy_to_contiguous(out->data, x->data, strides, x->dim, sizes, pte_dtype_size(x->dtype), true);
  return PTE_OK;
}

PTE_OPT_KERNEL(permute_out, "aten::permute_copy.out", permute_accepts, NULL)
