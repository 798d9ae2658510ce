/* Outputs, data checks and scratch of the kernel layer (see klayer.h). */
#include "klayer.h"

pte_status k_out(pte_kernel_ctx *ctx, pte_tensor *out, int32_t dim, const int64_t *sizes) {
  if (out->flags & PTE_TENSOR_READONLY) return K_FAIL("the output tensor is read-only (a constant)");
  /* Shapes rarely change between runs: skip the resize (and its checks,
   * done when the shape was set) when they do not. */
  bool same = out->dim == dim;
  for (int32_t i = 0; same && i < dim; i++) same = out->sizes[i] == sizes[i];
  if (!same) {
    pte_status st = pte_tensor_resize(out, dim, sizes);
    if (st) return pte_kernel_fail(ctx, st, "output: %s", pte_last_error());
  }
  if (!out->data && pte_tensor_numel(out) > 0) return K_FAIL("the output tensor has no memory");
  return PTE_OK;
}

pte_status k_out_like(pte_kernel_ctx *ctx, pte_tensor *out, const pte_tensor *like) {
  return k_out(ctx, out, like->dim, like->sizes);
}

pte_status k_contiguous(pte_kernel_ctx *ctx, const pte_tensor *t, const char *name) {
  if (!pte_tensor_is_contiguous(t)) return K_FAIL("%s must be contiguous", name);
  return PTE_OK;
}

pte_status k_has_data(pte_kernel_ctx *ctx, const pte_tensor *t, const char *name) {
  if (!t->data && pte_tensor_numel(t) > 0) return K_FAIL("%s has no data", name);
  return PTE_OK;
}

/* The bytes [lo, hi) that t's elements occupy (empty when it has none). */
static void extent(const pte_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  int64_t first = 0, last = 0;
  for (int32_t d = 0; d < t->dim; d++) {
    if (t->sizes[d] == 0) {
      *lo = *hi = 0;
      return;
    }
    const int64_t span = (t->sizes[d] - 1) * t->strides[d];
    if (span < 0) first += span;
    else last += span;
  }
  const int64_t es = (int64_t)pte_dtype_size(t->dtype);
  *lo = (uintptr_t)t->data + (uintptr_t)(first * es);
  *hi = (uintptr_t)t->data + (uintptr_t)((last + 1) * es);
}

bool k_overlap(const pte_tensor *a, const pte_tensor *b) {
  if (!a->data || !b->data) return false;
  uintptr_t alo, ahi, blo, bhi;
  extent(a, &alo, &ahi);
  extent(b, &blo, &bhi);
  return alo < ahi && blo < bhi && alo < bhi && blo < ahi;
}

pte_status k_disjoint(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *in, const char *name) {
  if (k_overlap(out, in)) return K_FAIL("out must not share memory with %s", name);
  return PTE_OK;
}

static bool lacks_data(const pte_tensor *t) { return t && !t->data && pte_tensor_numel(t) > 0; }

pte_status k_args_have_data(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  for (int32_t i = 0; i < nargs; i++) {
    const pte_value *v = args[i];
    if (!v) continue;
    if (v->tag == PTE_TAG_TENSOR && lacks_data(v->u.tensor)) return K_FAIL("argument %d has no data", (int)i);
    if (v->tag == PTE_TAG_TENSOR_LIST)
      for (int32_t k = 0; k < v->len; k++)
        if (v->u.items[k] && v->u.items[k]->tag == PTE_TAG_TENSOR && lacks_data(v->u.items[k]->u.tensor))
          return K_FAIL("tensor %d of argument %d has no data", (int)k, (int)i);
  }
  return PTE_OK;
}

void *k_scratch(pte_kernel_ctx *ctx, size_t *size) {
  size_t n = 0;
  uint8_t *p = pte_kernel_scratch(ctx, &n);
  if (!p || n < 64) {
    *size = 0;
    return NULL;
  }
  uintptr_t a = ((uintptr_t)p + 63) & ~(uintptr_t)63;
  *size = n - (size_t)(a - (uintptr_t)p);
  return (void *)a;
}
