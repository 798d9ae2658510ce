/* aten::slice_copy.Tensor_out(Tensor self, int dim=0, SymInt? start=None,
 *     SymInt? end=None, SymInt step=1, *, Tensor(a!) out)
 * Any dtype of 1-8 bytes: a strided copy (start and end clamped like
 * Python slicing, ATen's rules). */
#include "util/copy.h"

static bool opt_int(pte_value *const *args, int32_t nargs, int32_t i) {
  return k_arg_none(args, nargs, i) || k_arg_tag(args, nargs, i, PTE_TAG_INT);
}

static bool slice_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 7 || !k_arg_tag(args, nargs, 1, PTE_TAG_INT) || !opt_int(args, nargs, 2) ||
      !opt_int(args, nargs, 3) || !k_arg_tag(args, nargs, 4, PTE_TAG_INT) || args[4]->u.i < 1)
    return false;
  const pte_tensor *x = k_arg_tensor(args, nargs, 0), *out = k_arg_tensor(args, nargs, 5);
  if (!o_copyable(x) || !o_copyable(out) || x->dtype != out->dtype || x->dim < 1) return false;
  return k_wrap_dim(args[1]->u.i, x->dim) >= 0;
}

static pte_status slice_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[5]->u.tensor;
  int32_t d = k_wrap_dim(args[1]->u.i, x->dim);
  if (d < 0) return K_FAIL("dim out of range");
  const int64_t len = x->sizes[d], step = args[4]->u.i;
  int64_t start = args[2]->tag == PTE_TAG_INT ? args[2]->u.i : 0;
  int64_t end = args[3]->tag == PTE_TAG_INT ? args[3]->u.i : len;
  if (start < 0) start += len;
  if (end < 0) end += len;
  if (start < 0) start = 0;
  if (start > len) start = len;
  if (end < start) end = start;
  if (end > len) end = len;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  for (int32_t i = 0; i < x->dim; i++) {
    sizes[i] = x->sizes[i];
    strides[i] = x->strides[i];
  }
  /* step may be anything up to INT64_MAX: no end - start + step; and a
   * step that is used is shorter than the dim, so the stride fits */
  sizes[d] = end == start ? 0 : (end - start - 1) / step + 1;
  strides[d] = sizes[d] > 1 ? x->strides[d] * step : x->strides[d];
  K_CHECK(k_out(ctx, out, x->dim, sizes));
  K_CHECK(k_disjoint(ctx, out, x, "self"));
  const size_t es = pte_dtype_size(x->dtype);
  k_copy_to_contiguous(out->data, (const uint8_t *)x->data + start * x->strides[d] * (int64_t)es, strides,
                       x->dim, sizes, es, true);
  return PTE_OK;
}

PTE_OPT_KERNEL(slice_out, "aten::slice_copy.Tensor_out", slice_accepts, NULL)
