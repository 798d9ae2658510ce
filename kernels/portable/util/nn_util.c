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
    else softmax_any_line(self, a, sx, out, b, sy, len, is_log);
  }
  return PTE_OK;
}

/* An int list of 0 (→ dflt), 1 (→ all dims) or nsp values. */
static pte_status spatial_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t nsp,
                               const int64_t *dflt, const char *what, int64_t *out) {
  int64_t v[3] = {0, 0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, i, v, 3, &n));
  if (n != 0 && n != 1 && n != nsp)
    return K_FAIL("%s must have 1 or %d values, got %d", what, (int)nsp, (int)n);
  for (int32_t j = 0; j < nsp; j++) out[3 - nsp + j] = n == 0 ? dflt[3 - nsp + j] : n == 1 ? v[0] : v[j];
  return PTE_OK;
}

static int64_t div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t pool_out_size(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil,
                             bool ceil_mode) {
  int64_t o = div_floor(in + 2 * pad - dil * (k - 1) - 1 + (ceil_mode ? stride - 1 : 0), stride) + 1;
  if (ceil_mode && (o - 1) * stride >= in + pad) o--;
  return o;
}

pte_status kn_pool_init(pte_kernel_ctx *ctx, pte_value **args, const pte_tensor *in, int32_t nsp,
                        int32_t k_arg, int32_t s_arg, int32_t p_arg, int32_t dil_arg, bool ceil_mode,
                        kn_pool *p, int64_t *out_sizes) {
  memset(p, 0, sizeof *p);
  p->nsp = nsp;
  for (int32_t j = 0; j < 3; j++) {
    p->k[j] = p->s[j] = p->d[j] = 1;
    p->p[j] = 0;
  }
  int64_t ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
  int64_t kv[3] = {0, 0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, k_arg, kv, 3, &n));
  if (n != 1 && n != nsp) return K_FAIL("kernel_size must have 1 or %d values", (int)nsp);
  for (int32_t j = 0; j < nsp; j++) p->k[3 - nsp + j] = n == 1 ? kv[0] : kv[j];
  K_CHECK(spatial_list(ctx, args, s_arg, nsp, p->k, "stride", p->s));
  K_CHECK(spatial_list(ctx, args, p_arg, nsp, zeros, "padding", p->p));
  if (dil_arg >= 0) K_CHECK(spatial_list(ctx, args, dil_arg, nsp, ones, "dilation", p->d));
  p->ceil_mode = ceil_mode;
  if (in->dim != nsp + 1 && in->dim != nsp + 2)
    return K_FAIL("expected a %d-D or %d-D input, got rank %d", (int)nsp + 1, (int)nsp + 2, (int)in->dim);
  int32_t b = in->dim - nsp - 1;
  p->planes = (b ? in->sizes[0] : 1) * in->sizes[b];
  if (in->sizes[b] == 0) return K_FAIL("expected a non-empty channel dim");
  for (int32_t j = 0; j < 3; j++) {
    if (p->k[j] <= 0) return K_FAIL("kernel size must be greater than zero");
    if (p->s[j] <= 0) return K_FAIL("stride must be greater than zero");
    if (p->d[j] <= 0) return K_FAIL("dilation must be greater than zero");
    if (p->p[j] < 0) return K_FAIL("padding must be non-negative");
    if (p->p[j] > p->k[j] / 2) return K_FAIL("pad should be at most half of effective kernel size");
    if (p->k[j] > INT32_MAX || p->s[j] > INT32_MAX || p->d[j] > INT32_MAX)
      return K_FAIL("pooling parameters are too large");
    int32_t sj = j - (3 - nsp);
    p->in[j] = sj >= 0 ? in->sizes[b + 1 + sj] : 1;
    if (p->in[j] == 0) return K_FAIL("expected non-empty spatial dims");
    p->out[j] = pool_out_size(p->in[j], p->k[j], p->p[j], p->s[j], p->d[j], ceil_mode);
    if (p->out[j] < 1) return K_FAIL("output size is too small");
  }
  for (int32_t i = 0; i <= b; i++) out_sizes[i] = in->sizes[i];
  for (int32_t j = 0; j < nsp; j++) out_sizes[b + 1 + j] = p->out[3 - nsp + j];
  return PTE_OK;
}

/* Clipped window along one dim: first index >= 0 on the dilation grid, end. */
static inline void max_window(const kn_pool *p, int32_t j, int64_t o, int64_t *start, int64_t *end) {
  int64_t s = o * p->s[j] - p->p[j], e = s + (p->k[j] - 1) * p->d[j] + 1;
  if (e > p->in[j]) e = p->in[j];
  while (s < 0) s += p->d[j];
  *start = s;
  *end = e;
}

void kn_max_pool(const kn_pool *p, const pte_tensor *in, pte_tensor *out, pte_tensor *ind) {
  const int64_t D = p->in[0], H = p->in[1], W = p->in[2], OD = p->out[0], OH = p->out[1], OW = p->out[2];
  const int64_t dd = p->d[0], dh = p->d[1], dw = p->d[2];
  bool f32 = in->dtype == PTE_FLOAT32, is_f = k_is_float(in->dtype);
  int64_t *I = (int64_t *)ind->data;
  for (int64_t pl = 0; pl < p->planes; pl++) {
    int64_t ib = pl * D * H * W, ob = pl * OD * OH * OW;
    const float *X = (const float *)in->data + ib;
    for (int64_t od = 0; od < OD; od++) {
      int64_t ds, de;
      max_window(p, 0, od, &ds, &de);
      for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs, he;
        max_window(p, 1, oh, &hs, &he);
        for (int64_t ow = 0; ow < OW; ow++) {
          int64_t ws, we;
          max_window(p, 2, ow, &ws, &we);
          int64_t o = ob + (od * OH + oh) * OW + ow;
          int64_t best_i = (ds * H + hs) * W + ws;
          if (is_f) {
            double best = -INFINITY;
            bool nan = false;
            for (int64_t d = ds; d < de && !nan; d += dd)
              for (int64_t h = hs; h < he && !nan; h += dh)
                for (int64_t w = ws; w < we; w += dw) {
                  int64_t at = (d * H + h) * W + w;
                  double v = f32 ? (double)X[at] : k_get_d(in->data, in->dtype, ib + at);
                  if (v > best || v != v) {
                    best = v;
                    best_i = at;
                    if (v != v) {
                      nan = true;
                      break;
                    }
                  }
                }
            if (f32) ((float *)out->data)[o] = (float)best;
            else k_set_d(out->data, out->dtype, o, best);
          } else {
            int64_t best = 0;
            bool first = true;
            for (int64_t d = ds; d < de; d += dd)
              for (int64_t h = hs; h < he; h += dh)
                for (int64_t w = ws; w < we; w += dw) {
                  int64_t at = (d * H + h) * W + w;
                  int64_t v = k_get_i(in->data, in->dtype, ib + at);
                  if (first || v > best) {
                    best = v;
                    best_i = at;
                    first = false;
                  }
                }
            k_set_i(out->data, out->dtype, o, best);
          }
          I[o] = best_i;
        }
      }
    }
  }
}

/* Average window along one dim: [start, end) clipped to the input, and the
 * length clipped to the padded input (for count_include_pad). */
static inline void avg_window(const kn_pool *p, int32_t j, int64_t o, int64_t *start, int64_t *end,
                              int64_t *padded) {
  int64_t s = o * p->s[j] - p->p[j];
  int64_t e = s + p->k[j] < p->in[j] + p->p[j] ? s + p->k[j] : p->in[j] + p->p[j];
  *padded = e - s;
  *start = s < 0 ? 0 : s;
  *end = e > p->in[j] ? p->in[j] : e;
}

void kn_avg_pool(const kn_pool *p, const pte_tensor *in, pte_tensor *out, bool count_include_pad,
                 bool has_div, int64_t divisor) {
  const int64_t D = p->in[0], H = p->in[1], W = p->in[2], OD = p->out[0], OH = p->out[1], OW = p->out[2];
  bool f32 = in->dtype == PTE_FLOAT32, is_f = k_is_float(in->dtype);
  for (int64_t pl = 0; pl < p->planes; pl++) {
    int64_t ib = pl * D * H * W, ob = pl * OD * OH * OW;
    const float *X = (const float *)in->data + ib;
    for (int64_t od = 0; od < OD; od++) {
      int64_t ds, de, pd;
      avg_window(p, 0, od, &ds, &de, &pd);
      for (int64_t oh = 0; oh < OH; oh++) {
        int64_t hs, he, ph;
        avg_window(p, 1, oh, &hs, &he, &ph);
        for (int64_t ow = 0; ow < OW; ow++) {
          int64_t ws, we, pw;
          avg_window(p, 2, ow, &ws, &we, &pw);
          int64_t o = ob + (od * OH + oh) * OW + ow;
          if (ds >= de || hs >= he || ws >= we) {
            k_set_d(out->data, out->dtype, o, 0);
            continue;
          }
          int64_t div = has_div             ? divisor
                        : count_include_pad ? pd * ph * pw
                                            : (de - ds) * (he - hs) * (we - ws);
          if (is_f) {
            double s = 0;
            for (int64_t d = ds; d < de; d++)
              for (int64_t h = hs; h < he; h++) {
                int64_t row = (d * H + h) * W;
                if (f32)
                  for (int64_t w = ws; w < we; w++) s += X[row + w];
                else
                  for (int64_t w = ws; w < we; w++) s += k_get_d(in->data, in->dtype, ib + row + w);
              }
            if (f32) ((float *)out->data)[o] = (float)(s / (double)div);
            else k_set_d(out->data, out->dtype, o, s / (double)div);
          } else {
            /* integers: ATen sums in int64 and divides with truncation */
            uint64_t su = 0; /* wraps like ATen's int64 accumulator */
            for (int64_t d = ds; d < de; d++)
              for (int64_t h = hs; h < he; h++)
                for (int64_t w = ws; w < we; w++)
                  su += (uint64_t)k_get_i(in->data, in->dtype, ib + (d * H + h) * W + w);
            int64_t s = (int64_t)su;
            /* INT64_MIN / -1 overflows: it wraps to INT64_MIN */
            k_set_i(out->data, out->dtype, o, (s == INT64_MIN && div == -1) ? s : s / div);
          }
        }
      }
    }
  }
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

/* ---- pooling kernels ---- */

pte_status kn_max_pool_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp) {
  pte_tensor *in, *out, *ind;
  bool ceil_mode = false;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_bool(ctx, args, 5, &ceil_mode));
  K_CHECK(k_tensor(ctx, args, 6, &out));
  K_CHECK(k_tensor(ctx, args, 7, &ind));
  K_CHECK(k_has_data(ctx, in, "self"));
  if (!k_is_supported(in->dtype) || in->dtype == PTE_BOOL)
    return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  if (ind->dtype != PTE_INT64) return K_FAIL("indices must be int64, got %s", pte_dtype_name(ind->dtype));
  if (out == ind) return K_FAIL("out and indices must be different tensors");
  kn_pool p;
  int64_t osz[5];
  K_CHECK(kn_pool_init(ctx, args, in, nsp, 1, 2, 3, 4, ceil_mode, &p, osz));
  K_CHECK(k_out(ctx, out, in->dim, osz));
  K_CHECK(k_out(ctx, ind, in->dim, osz));
  /* strided (channels-last) tensors are repacked into kernel scratch */
  kn_packer pk;
  pte_tensor vi, vo, vx;
  kn_packer_init(ctx, &pk);
  K_CHECK(kn_pack(ctx, &pk, in, true, &vi));
  K_CHECK(kn_pack(ctx, &pk, out, false, &vo));
  K_CHECK(kn_pack(ctx, &pk, ind, false, &vx));
  kn_max_pool(&p, &vi, &vo, &vx);
  kn_unpack(&vo, out);
  kn_unpack(&vx, ind);
  return PTE_OK;
}

pte_status kn_avg_pool_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t nsp) {
  pte_tensor *in, *out;
  bool ceil_mode = false, include_pad = true, has_div = false;
  int64_t divisor = 0;
  K_CHECK(k_nargs(ctx, nargs, 9));
  K_CHECK(k_tensor(ctx, args, 0, &in));
  K_CHECK(k_bool(ctx, args, 4, &ceil_mode));
  K_CHECK(k_bool(ctx, args, 5, &include_pad));
  K_CHECK(k_opt_int(ctx, args, 6, &divisor, &has_div));
  K_CHECK(k_tensor(ctx, args, 7, &out));
  K_CHECK(k_has_data(ctx, in, "self"));
  if (has_div && divisor == 0) return K_FAIL("divisor must be not zero");
  if (!k_is_supported(in->dtype) || in->dtype == PTE_BOOL)
    return K_FAIL("not implemented for %s", pte_dtype_name(in->dtype));
  if (out->dtype != in->dtype)
    return K_FAIL("output dtype %s differs from input %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(in->dtype));
  kn_pool p;
  int64_t osz[5];
  K_CHECK(kn_pool_init(ctx, args, in, nsp, 1, 2, 3, -1, ceil_mode, &p, osz));
  K_CHECK(k_out(ctx, out, in->dim, osz));
  kn_packer pk;
  pte_tensor vi, vo;
  kn_packer_init(ctx, &pk);
  K_CHECK(kn_pack(ctx, &pk, in, true, &vi));
  K_CHECK(kn_pack(ctx, &pk, out, false, &vo));
  kn_avg_pool(&p, &vi, &vo, include_pad, has_div, divisor);
  kn_unpack(&vo, out);
  return PTE_OK;
}

size_t kn_max_pool_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[3] = {0, 6, 7};
  return kn_pack_scratch(args, nargs, idx, 3);
}

size_t kn_avg_pool_scratch(pte_value *const *args, int32_t nargs) {
  static const int32_t idx[2] = {0, 7};
  return kn_pack_scratch(args, nargs, idx, 2);
}
