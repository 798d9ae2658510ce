/* Helpers shared by the neural-network kernels of family B (see nn_util.h). */
#include "nn_util.h"

#include "reduce_util.h"

#define KN_BLOCK 256

/* Contiguous float32, reduced dim not innermost: blocks of KN_BLOCK inner
 * positions are processed together so every loop runs over contiguous memory. */
static void softmax_f32_blocked(const float *x, float *y, int64_t outer, int64_t len, int64_t inner,
                                bool is_log) {
  float mx[KN_BLOCK];
  double sum[KN_BLOCK];
  for (int64_t o = 0; o < outer; o++) {
    const float *xo = x + o * len * inner;
    float *yo = y + o * len * inner;
    for (int64_t i0 = 0; i0 < inner; i0 += KN_BLOCK) {
      int64_t nb = inner - i0 < KN_BLOCK ? inner - i0 : KN_BLOCK;
      for (int64_t i = 0; i < nb; i++) {
        mx[i] = -INFINITY;
        sum[i] = 0;
      }
      for (int64_t c = 0; c < len; c++) {
        const float *row = xo + c * inner + i0;
        for (int64_t i = 0; i < nb; i++) {
          float v = row[i];
          mx[i] = (v > mx[i] || v != v) ? v : mx[i];
        }
      }
      for (int64_t c = 0; c < len; c++) {
        const float *row = xo + c * inner + i0;
        float *orow = yo + c * inner + i0;
        for (int64_t i = 0; i < nb; i++) {
          float e = expf(row[i] - mx[i]);
          sum[i] += e;
          if (!is_log) orow[i] = e;
        }
      }
      if (is_log) {
        for (int64_t i = 0; i < nb; i++) sum[i] = log(sum[i]);
        for (int64_t c = 0; c < len; c++) {
          const float *row = xo + c * inner + i0;
          float *orow = yo + c * inner + i0;
          for (int64_t i = 0; i < nb; i++) orow[i] = (float)((double)row[i] - mx[i] - sum[i]);
        }
      } else {
        for (int64_t c = 0; c < len; c++) {
          float *orow = yo + c * inner + i0;
          for (int64_t i = 0; i < nb; i++) orow[i] = (float)(orow[i] / sum[i]);
        }
      }
    }
  }
}

/* One float32 line of n elements at strides sx / sy. */
static void softmax_f32_line(const float *x, int64_t sx, float *y, int64_t sy, int64_t n, bool is_log) {
  float m = -INFINITY;
  for (int64_t j = 0; j < n; j++) {
    float v = x[j * sx];
    if (v > m || v != v) m = v;
  }
  double sum = 0;
  if (is_log) {
    for (int64_t j = 0; j < n; j++) sum += expf(x[j * sx] - m);
    double ls = log(sum);
    for (int64_t j = 0; j < n; j++) y[j * sy] = (float)((double)x[j * sx] - m - ls);
  } else {
    for (int64_t j = 0; j < n; j++) {
      float e = expf(x[j * sx] - m);
      sum += e;
      y[j * sy] = e;
    }
    for (int64_t j = 0; j < n; j++) y[j * sy] = (float)(y[j * sy] / sum);
  }
}

/* Any float dtype, any strides: computes in double (float16/bfloat16/float64). */
static void softmax_any_line(const pte_tensor *in, int64_t a, int64_t sx, pte_tensor *out, int64_t b,
                             int64_t sy, int64_t n, bool is_log) {
  double m = -INFINITY;
  for (int64_t j = 0; j < n; j++) {
    double v = k_get_d(in->data, in->dtype, a + j * sx);
    if (v > m || v != v) m = v;
  }
  double sum = 0;
  for (int64_t j = 0; j < n; j++) sum += exp(k_get_d(in->data, in->dtype, a + j * sx) - m);
  double ls = log(sum);
  for (int64_t j = 0; j < n; j++) {
    double v = k_get_d(in->data, in->dtype, a + j * sx) - m;
    k_set_d(out->data, out->dtype, b + j * sy, is_log ? v - ls : exp(v) / sum);
  }
}

pte_status kn_softmax(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool is_log) {
  pte_tensor *self, *out;
  int64_t dim = 0;
  int32_t d = 0;
  bool half_to_float = false;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_int(ctx, args, 1, &dim));
  K_CHECK(k_bool(ctx, args, 2, &half_to_float));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (half_to_float) return K_FAIL("softmax with half to float conversion is not supported on CPU");
  if (!k_is_float(self->dtype)) return K_FAIL("not implemented for %s", pte_dtype_name(self->dtype));
  if (out->dtype != self->dtype)
    return K_FAIL("output dtype %s differs from the input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(self->dtype));
  K_CHECK(k_dim(ctx, dim, self->dim, &d));
  K_CHECK(k_out(ctx, out, self->dim, self->sizes));
  int64_t outer, len, inner;
  kn_split(self, d, &outer, &len, &inner);
  if (outer * len * inner == 0) return PTE_OK;
  bool contig = pte_tensor_is_contiguous(self) && pte_tensor_is_contiguous(out);
  if (self->dtype == PTE_FLOAT32 && contig && inner > 1) {
    softmax_f32_blocked((const float *)self->data, (float *)out->data, outer, len, inner, is_log);
    return PTE_OK;
  }
  int64_t lines = outer * inner;
  int64_t sx = self->dim ? self->strides[d] : 1, sy = out->dim ? out->strides[d] : 1;
  for (int64_t l = 0; l < lines; l++) {
    int64_t a = kr_line_offset(self, d, l), b = kr_line_offset(out, d, l);
    if (self->dtype == PTE_FLOAT32)
      softmax_f32_line((const float *)self->data + a, sx, (float *)out->data + b, sy, len, is_log);
    else
      softmax_any_line(self, a, sx, out, b, sy, len, is_log);
  }
  return PTE_OK;
}

static pte_status pair_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, const char *what, int64_t dflt0,
                           int64_t dflt1, int64_t *a, int64_t *b) {
  int64_t v[2] = {0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, i, v, 2, &n));
  if (n == 0) {
    *a = dflt0;
    *b = dflt1;
  } else if (n == 1) {
    *a = *b = v[0];
  } else {
    *a = v[0];
    *b = v[1];
  }
  (void)what;
  return PTE_OK;
}

static int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil_mode) {
  int64_t o = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (o - 1) * stride >= in + pad) o--;
  return o;
}

pte_status kn_pool2d_init(pte_kernel_ctx *ctx, pte_value **args, const pte_tensor *in, int32_t k_arg,
                          int32_t s_arg, int32_t p_arg, int32_t dil_arg, bool ceil_mode, kn_pool2d *p,
                          int64_t *out_sizes) {
  memset(p, 0, sizeof *p);
  int64_t v[2] = {0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, k_arg, v, 2, &n));
  if (n != 1 && n != 2) return K_FAIL("kernel_size must have one or two values");
  p->kh = v[0];
  p->kw = n == 2 ? v[1] : v[0];
  K_CHECK(pair_arg(ctx, args, s_arg, "stride", p->kh, p->kw, &p->sh, &p->sw));
  K_CHECK(pair_arg(ctx, args, p_arg, "padding", 0, 0, &p->ph, &p->pw));
  p->dh = p->dw = 1;
  if (dil_arg >= 0) K_CHECK(pair_arg(ctx, args, dil_arg, "dilation", 1, 1, &p->dh, &p->dw));
  p->ceil_mode = ceil_mode;
  if (in->dim != 3 && in->dim != 4) return K_FAIL("expected a 3-D or 4-D input, got rank %d", (int)in->dim);
  if (p->kh <= 0 || p->kw <= 0) return K_FAIL("kernel size must be greater than zero");
  if (p->sh <= 0 || p->sw <= 0) return K_FAIL("stride must be greater than zero");
  if (p->dh <= 0 || p->dw <= 0) return K_FAIL("dilation must be greater than zero");
  if (p->ph < 0 || p->pw < 0) return K_FAIL("padding must be non-negative");
  if (p->ph > p->kh / 2 || p->pw > p->kw / 2) return K_FAIL("pad should be at most half of effective kernel size");
  if (p->kh > INT32_MAX || p->kw > INT32_MAX || p->sh > INT32_MAX || p->sw > INT32_MAX ||
      p->dh > INT32_MAX || p->dw > INT32_MAX)
    return K_FAIL("pooling parameters are too large");
  int32_t b = in->dim - 3;
  p->N = b ? in->sizes[0] : 1;
  p->C = in->sizes[b];
  p->H = in->sizes[b + 1];
  p->W = in->sizes[b + 2];
  if (p->C == 0 || p->H == 0 || p->W == 0) return K_FAIL("expected non-empty channel and spatial dims");
  p->OH = pool_out_size(p->H, p->kh, p->ph, p->sh, p->dh, ceil_mode);
  p->OW = pool_out_size(p->W, p->kw, p->pw, p->sw, p->dw, ceil_mode);
  if (p->OH < 1 || p->OW < 1)
    return K_FAIL("output size is too small (%lldx%lld)", (long long)p->OH, (long long)p->OW);
  for (int32_t i = 0; i < b; i++) out_sizes[i] = in->sizes[i];
  out_sizes[b] = p->C;
  out_sizes[b + 1] = p->OH;
  out_sizes[b + 2] = p->OW;
  return PTE_OK;
}

/* ---- packing strided tensors into scratch ---- */

size_t kn_pack_scratch(pte_value *const *args, int32_t nargs, const int32_t *idx, int32_t n) {
  size_t total = 0;
  for (int32_t i = 0; i < n; i++) {
    if (idx[i] >= nargs || args[idx[i]]->tag != PTE_TAG_TENSOR) continue;
    total += kn_pack_bytes(args[idx[i]]->u.tensor);
  }
  return total;
}

void kn_packer_init(pte_kernel_ctx *ctx, kn_packer *p) {
  size_t size = 0;
  uint8_t *s = (uint8_t *)pte_kernel_scratch(ctx, &size);
  p->next = s;
  p->end = s ? s + size : s;
}

/* Copy between a strided tensor and a contiguous buffer of the same shape. */
static void strided_copy(const pte_tensor *t, void *buf, bool to_buf) {
  int64_t strides[2][PTE_MAX_DIM];
  int64_t cs = 1;
  for (int32_t d = t->dim - 1; d >= 0; d--) {
    strides[0][d] = t->strides[d];
    strides[1][d] = cs;
    cs *= t->sizes[d];
  }
  size_t es = pte_dtype_size(t->dtype);
  k_iter it;
  k_iter_init(&it, t->dim, t->sizes, 2, strides);
  int64_t off[2], len, s0 = k_iter_stride(&it, 0), s1 = k_iter_stride(&it, 1);
  uint8_t *a = (uint8_t *)t->data, *b = (uint8_t *)buf;
  while ((len = k_iter_row(&it, off)) > 0) {
    for (int64_t j = 0; j < len; j++) {
      uint8_t *pa = a + (size_t)(off[0] + j * s0) * es, *pb = b + (size_t)(off[1] + j * s1) * es;
      if (to_buf) memcpy(pb, pa, es);
      else memcpy(pa, pb, es);
    }
  }
}

pte_status kn_pack(pte_kernel_ctx *ctx, kn_packer *p, const pte_tensor *t, bool copy_in, pte_tensor *view) {
  *view = *t;
  if (pte_tensor_is_contiguous(t)) return PTE_OK;
  size_t need = (size_t)pte_tensor_numel(t) * pte_dtype_size(t->dtype);
  uintptr_t at = ((uintptr_t)p->next + 63) & ~(uintptr_t)63;
  if (!p->next || at + need > (uintptr_t)p->end)
    return K_FAIL("not enough scratch memory to repack a non-contiguous tensor (%zu bytes)", need);
  pte_tensor_init(view, t->dtype, t->dim, t->sizes, (void *)at);
  view->flags = t->flags & ~PTE_TENSOR_READONLY;
  view->flags |= 0x80000000u; /* marks a packed copy for kn_unpack */
  p->next = (uint8_t *)(at + need);
  if (copy_in) strided_copy(t, view->data, true);
  return PTE_OK;
}

void kn_unpack(const pte_tensor *view, pte_tensor *t) {
  if (!(view->flags & 0x80000000u) || view->data == t->data) return;
  strided_copy(t, view->data, false);
}

bool kn_pack_fits(pte_kernel_ctx *ctx, const pte_tensor *const *ts, int32_t n) {
  size_t need = 0, have = 0;
  for (int32_t i = 0; i < n; i++)
    if (ts[i]) need += kn_pack_bytes(ts[i]);
  if (need == 0) return true;
  void *s = pte_kernel_scratch(ctx, &have);
  return s && need <= have;
}
