/* Helpers shared by the reduction and normalization kernels (see reduce_util.h). */
#include "reduce_util.h"

pte_status kr_plan_init(pte_kernel_ctx *ctx, kr_plan *p, const pte_tensor *in, const int64_t *dims,
                        int32_t ndims, bool keepdim) {
  K_CHECK(k_reduce_init(ctx, &p->r, in, dims, ndims, keepdim));
  int64_t strides[1][PTE_MAX_DIM];
  for (int32_t k = 0; k < p->r.inner_dim; k++) strides[0][k] = p->r.inner_strides[k];
  k_iter_init(&p->inner, p->r.inner_dim, p->r.inner_sizes, 1, strides);
  p->in = in;
  return PTE_OK;
}

pte_status kr_read_args(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, kr_form form, int32_t nouts,
                        kr_args *a) {
  const int32_t first_out = form == KR_ALL ? 1 : 3;
  bool present = true;
  K_CHECK(k_nargs(ctx, nargs, first_out + nouts + 1));
  K_CHECK(k_tensor(ctx, args, 0, &a->self));
  a->ndims = 1;
  a->keepdim = false;
  a->out2 = NULL;
  switch (form) {
    case KR_ALL: a->ndims = -1; break;
    case KR_DIM: K_CHECK(k_int(ctx, args, 1, &a->dims[0])); break;
    case KR_OPT_DIM:
      K_CHECK(k_opt_int(ctx, args, 1, &a->dims[0], &present));
      if (!present) a->ndims = -1;
      break;
    case KR_DIMS: K_CHECK(k_int_list(ctx, args, 1, a->dims, PTE_MAX_DIM, &a->ndims)); break;
    case KR_OPT_DIMS: K_CHECK(k_opt_int_list(ctx, args, 1, a->dims, PTE_MAX_DIM, &a->ndims)); break;
  }
  if (form != KR_ALL) K_CHECK(k_bool(ctx, args, 2, &a->keepdim));
  K_CHECK(k_tensor(ctx, args, first_out, &a->out));
  if (nouts == 2) K_CHECK(k_tensor(ctx, args, first_out + 1, &a->out2));
  return PTE_OK;
}

void kr_begin(const kr_plan *p, int64_t o, kr_walk *w) {
  w->it = p->inner;
  w->in = p->in;
  w->base = k_reduce_outer(&p->r, o);
  w->off = 0;
  w->len = 0;
  w->pos = 0;
  w->stride = k_iter_stride(&w->it, 0);
  w->index = 0;
  w->done = 0;
}

int64_t kr_next(kr_walk *w, void *buf, k_ctype ct) {
  if (w->pos >= w->len) {
    int64_t off[1] = {0};
    int64_t len = k_iter_row(&w->it, off);
    if (len <= 0) return 0;
    w->off = off[0];
    w->len = len;
    w->pos = 0;
  }
  int64_t m = w->len - w->pos < KR_CHUNK ? w->len - w->pos : KR_CHUNK;
  k_load_row(buf, ct, w->in->dtype, w->in->data, w->in->dtype, w->base + w->off + w->pos * w->stride,
             w->stride, m);
  w->index = w->done;
  w->done += m;
  w->pos += m;
  return m;
}

pte_status kr_minmax(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                     bool keepdim, bool is_max, pte_tensor *values, pte_tensor *indices) {
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype)) return K_FAIL("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (values && values->dtype != self->dtype)
    return K_FAIL("values dtype %s differs from the input dtype %s", pte_dtype_name(values->dtype),
                  pte_dtype_name(self->dtype));
  if (indices && indices->dtype != PTE_INT64)
    return K_FAIL("indices must be int64, got %s", pte_dtype_name(indices->dtype));
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim));
  if (p.r.inner_numel == 0)
    return K_FAIL("cannot reduce over an empty dimension: the operation has no identity");
  if (values) K_CHECK(k_out(ctx, values, p.r.out_dim, p.r.out_sizes));
  if (indices) K_CHECK(k_out(ctx, indices, p.r.out_dim, p.r.out_sizes));
  bool as_float = k_is_float(self->dtype);
  _Alignas(16) uint8_t buf[KR_CHUNK * 8];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    kr_begin(&p, o, &w);
    int64_t best_i = 0, m;
    if (as_float) {
      const double *v = (const double *)buf;
      double best = 0;
      bool first = true, nan = false;
      while (!nan && (m = kr_next(&w, buf, K_F64)) > 0) {
        for (int64_t j = 0; j < m; j++) {
          double x = v[j];
          if (x != x) { /* the first NaN wins */
            best = x;
            best_i = w.index + j;
            nan = true;
            break;
          }
          if (first || (is_max ? x > best : x < best)) {
            best = x;
            best_i = w.index + j;
            first = false;
          }
        }
      }
      if (values) k_set_d(values->data, values->dtype, kr_offset(values, o), best);
    } else {
      const int64_t *v = (const int64_t *)buf;
      int64_t best = 0;
      bool first = true;
      while ((m = kr_next(&w, buf, K_I64)) > 0) {
        for (int64_t j = 0; j < m; j++) {
          int64_t x = v[j];
          if (first || (is_max ? x > best : x < best)) {
            best = x;
            best_i = w.index + j;
            first = false;
          }
        }
      }
      if (values) k_set_i(values->data, values->dtype, kr_offset(values, o), best);
    }
    if (indices) ((int64_t *)indices->data)[kr_offset(indices, o)] = best_i;
  }
  return PTE_OK;
}

pte_status kr_anyall(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                     bool keepdim, bool is_any, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype)) return K_FAIL("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (out->dtype != PTE_BOOL && out->dtype != PTE_UINT8)
    return K_FAIL("output must be bool or uint8, got %s", pte_dtype_name(out->dtype));
  if (ndims == 0) { /* no reduced dim: a plain != 0 test */
    K_CHECK(k_out(ctx, out, self->dim, self->sizes));
    int64_t n = pte_tensor_numel(self);
    for (int64_t i = 0; i < n; i++)
      ((uint8_t *)out->data)[kr_offset(out, i)] = k_get_d(self->data, self->dtype, kr_offset(self, i)) != 0;
    return PTE_OK;
  }
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim));
  K_CHECK(k_out(ctx, out, p.r.out_dim, p.r.out_sizes));
  _Alignas(16) uint8_t buf[KR_CHUNK];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    kr_begin(&p, o, &w);
    bool acc = !is_any; /* identity: any of nothing is false, all of nothing true */
    int64_t m;
    while (acc == !is_any && (m = kr_next(&w, buf, K_BOOL)) > 0) {
      for (int64_t j = 0; j < m; j++) {
        if ((buf[j] != 0) == is_any) {
          acc = is_any;
          break;
        }
      }
    }
    ((uint8_t *)out->data)[kr_offset(out, o)] = acc;
  }
  return PTE_OK;
}

pte_status kr_var(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                  bool keepdim, double correction, bool take_sqrt, pte_tensor *out) {
  return kr_var_mean(ctx, self, dims, ndims, keepdim, correction, take_sqrt, out, NULL);
}

pte_status kr_var_mean(pte_kernel_ctx *ctx, const pte_tensor *self, const int64_t *dims, int32_t ndims,
                       bool keepdim, double correction, bool take_sqrt, pte_tensor *out,
                       pte_tensor *mean_out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_float(self->dtype))
    return K_FAIL("std and var only support floating point dtypes, got %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from the input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  kr_plan p;
  K_CHECK(kr_plan_init(ctx, &p, self, dims, ndims, keepdim));
  if (mean_out && mean_out->dtype != self->dtype)
    return K_FAIL("mean output dtype %s differs from the input dtype %s", pte_dtype_name(mean_out->dtype),
                  pte_dtype_name(self->dtype));
  K_CHECK(k_out(ctx, out, p.r.out_dim, p.r.out_sizes));
  if (mean_out) K_CHECK(k_out(ctx, mean_out, p.r.out_dim, p.r.out_sizes));
  double n = (double)p.r.inner_numel;
  double div = n - correction > 0 ? n - correction : 0;
  _Alignas(16) double buf[KR_CHUNK];
  kr_walk w;
  for (int64_t o = 0; o < p.r.outer_numel; o++) {
    double sum = 0, ss = 0;
    int64_t m;
    kr_begin(&p, o, &w);
    while ((m = kr_next(&w, buf, K_F64)) > 0)
      for (int64_t j = 0; j < m; j++) sum += buf[j];
    double mean = sum / n;
    kr_begin(&p, o, &w);
    while ((m = kr_next(&w, buf, K_F64)) > 0)
      for (int64_t j = 0; j < m; j++) ss += (buf[j] - mean) * (buf[j] - mean);
    double v = n == 0 ? NAN : ss / div;
    k_set_d(out->data, out->dtype, kr_offset(out, o), take_sqrt ? sqrt(v) : v);
    if (mean_out) k_set_d(mean_out->data, mean_out->dtype, kr_offset(mean_out, o), n == 0 ? NAN : mean);
  }
  return PTE_OK;
}

/* ---- sorting ---- */

#define SORT_PRECEDES_F(a, b) \
  (desc ? ((a) > (b) || ((a) != (a) && (b) == (b))) : ((a) < (b) || ((a) == (a) && (b) != (b))))
#define SORT_PRECEDES_I(a, b) (desc ? (a) > (b) : (a) < (b))

/* Stable bottom-up merge sort of idx[0..n) by keys. */
#define DEFINE_SORT(NAME, T, PRECEDES)                                               \
  static void NAME(const T *key, int64_t *idx, int64_t *tmp, int64_t n, bool desc) { \
    int64_t *src = idx, *dst = tmp;                                                  \
    for (int64_t w = 1; w < n; w *= 2) {                                             \
      for (int64_t lo = 0; lo < n; lo += 2 * w) {                                    \
        int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n; \
        int64_t i = lo, j = mid, o = lo;                                             \
        while (i < mid && j < hi) {                                                  \
          T a = key[src[i]], b = key[src[j]];                                        \
          dst[o++] = PRECEDES(b, a) ? src[j++] : src[i++];                           \
        }                                                                            \
        while (i < mid) dst[o++] = src[i++];                                         \
        while (j < hi) dst[o++] = src[j++];                                          \
      }                                                                              \
      int64_t *t = src;                                                              \
      src = dst;                                                                     \
      dst = t;                                                                       \
    }                                                                                \
    if (src != idx) memcpy(idx, src, (size_t)n * sizeof *idx);                       \
  }

DEFINE_SORT(sort_f, double, SORT_PRECEDES_F)
DEFINE_SORT(sort_i, int64_t, SORT_PRECEDES_I)

size_t kr_sort_scratch_for(pte_value *const *args, int32_t nargs, int32_t dim_arg) {
  if (nargs <= dim_arg || args[0]->tag != PTE_TAG_TENSOR) return 0;
  int64_t dim = 0;
  if (!pte_value_to_int(args[dim_arg], &dim)) return 0;
  const pte_tensor *t = args[0]->u.tensor;
  if (t->dim == 0) return kr_sort_scratch(1);
  if (dim < -t->dim || dim >= t->dim) return 0;
  if (dim < 0) dim += t->dim;
  return kr_sort_scratch(t->sizes[dim]);
}

pte_status kr_sort_lines(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t dim, int64_t k, bool descending,
                         pte_tensor *values, pte_tensor *indices) {
  int32_t d = 0;
  K_CHECK(k_has_data(ctx, self, "self"));
  if (!k_is_supported(self->dtype)) return K_FAIL("unsupported dtype %s", pte_dtype_name(self->dtype));
  if (values->dtype != self->dtype)
    return K_FAIL("values dtype %s differs from the input dtype %s", pte_dtype_name(values->dtype),
                  pte_dtype_name(self->dtype));
  if (indices->dtype != PTE_INT64)
    return K_FAIL("indices must be int64, got %s", pte_dtype_name(indices->dtype));
  if (values == indices) return K_FAIL("values and indices must be different tensors");
  K_CHECK(k_dim(ctx, dim, self->dim, &d));
  int64_t len = self->dim ? self->sizes[d] : 1;
  if (k < 0 || k > len)
    return K_FAIL("k (%lld) is out of range for a dimension of size %lld", (long long)k, (long long)len);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t i = 0; i < self->dim; i++) sizes[i] = i == d ? k : self->sizes[i];
  K_CHECK(k_out(ctx, values, self->dim, sizes));
  K_CHECK(k_out(ctx, indices, self->dim, sizes));
  int64_t numel = pte_tensor_numel(self);
  if (numel == 0 || k == 0) return PTE_OK;
  size_t have = 0;
  uint8_t *scratch = (uint8_t *)pte_kernel_scratch(ctx, &have);
  if (!scratch || have < kr_sort_scratch(len))
    return K_FAIL("scratch memory too small for a sort of %lld elements", (long long)len);
  uintptr_t base = ((uintptr_t)scratch + 15) & ~(uintptr_t)15;
  int64_t *idx = (int64_t *)base, *tmp = idx + len;
  void *keys = tmp + len;
  bool as_float = k_is_float(self->dtype);
  int64_t lines = numel / len;
  int64_t sx = self->dim ? self->strides[d] : 1, sv = values->dim ? values->strides[d] : 1;
  int64_t si = indices->dim ? indices->strides[d] : 1;
  for (int64_t l = 0; l < lines; l++) {
    int64_t a = kr_line_offset(self, d, l), bv = kr_line_offset(values, d, l),
            bi = kr_line_offset(indices, d, l);
    for (int64_t j = 0; j < len; j++) idx[j] = j;
    if (as_float) {
      double *kd = (double *)keys;
      k_load_row(kd, K_F64, self->dtype, self->data, self->dtype, a, sx, len);
      sort_f(kd, idx, tmp, len, descending);
      for (int64_t j = 0; j < k; j++) k_set_d(values->data, values->dtype, bv + j * sv, kd[idx[j]]);
    } else {
      int64_t *ki = (int64_t *)keys;
      k_load_row(ki, K_I64, self->dtype, self->data, self->dtype, a, sx, len);
      sort_i(ki, idx, tmp, len, descending);
      for (int64_t j = 0; j < k; j++) k_set_i(values->data, values->dtype, bv + j * sv, ki[idx[j]]);
    }
    for (int64_t j = 0; j < k; j++) ((int64_t *)indices->data)[bi + j * si] = idx[j];
  }
  return PTE_OK;
}
