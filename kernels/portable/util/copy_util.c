/* Helpers for the shape, indexing, creation and copy/cast kernels (see copy_util.h). */
#include "copy_util.h"

#include <float.h>

/* ---- strided copies ---- */

void kc_copy(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
             const int64_t *sizes, size_t es) {
  /* on this thread: the portable kernels never start the pool */
  k_copy(dst, ds, src, ss, dim, sizes, es, false);
}

void kc_copy_batched_view(pte_tensor *out, const pte_tensor *self, int32_t nb, int32_t nt,
                          const int64_t *sizes, const int64_t *ds, const int64_t *ss) {
  int64_t is[PTE_MAX_DIM], od[PTE_MAX_DIM], os[PTE_MAX_DIM];
  for (int32_t k = 0; k < nb; k++) {
    is[k] = self->sizes[k];
    od[k] = out->strides[k];
    os[k] = self->strides[k];
  }
  for (int32_t k = 0; k < nt; k++) {
    is[nb + k] = sizes[k];
    od[nb + k] = ds[k];
    os[nb + k] = ss[k];
  }
  kc_copy(out->data, od, self->data, os, nb + nt, is, pte_dtype_size(self->dtype));
}

/* The compute type that holds every value of `dt` exactly, and the dtype the
 * loaded values are "rounded through" (a no-op for these). */
static k_ctype exact_ctype(int32_t dt, int32_t *through) {
  if (dt == PTE_FLOAT64) {
    *through = PTE_FLOAT64;
    return K_F64;
  }
  if (k_is_float(dt)) {
    *through = PTE_FLOAT32;
    return K_F32;
  }
  if (dt == PTE_BOOL) {
    *through = PTE_BOOL;
    return K_BOOL;
  }
  *through = PTE_INT64;
  return K_I64;
}

#define KC_CHUNK 256

/* Direct loops for the hottest casts (no staging buffer). */
static bool convert_fast(void *dst, int32_t ddt, int64_t doff, int64_t ds, const void *src, int32_t sdt,
                         int64_t soff, int64_t ss, int64_t n) {
  if (sdt == PTE_FLOAT32 && ddt == PTE_FLOAT16) {
    uint16_t *d = (uint16_t *)dst + doff;
    const float *s = (const float *)src + soff;
    for (int64_t j = 0; j < n; j++) d[j * ds] = k_float_to_half(s[j * ss]);
    return true;
  }
  if (sdt == PTE_FLOAT16 && ddt == PTE_FLOAT32) {
    float *d = (float *)dst + doff;
    const uint16_t *s = (const uint16_t *)src + soff;
    for (int64_t j = 0; j < n; j++) d[j * ds] = k_half_to_float(s[j * ss]);
    return true;
  }
  if (sdt == PTE_FLOAT32 && ddt == PTE_BFLOAT16) {
    uint16_t *d = (uint16_t *)dst + doff;
    const float *s = (const float *)src + soff;
    for (int64_t j = 0; j < n; j++) d[j * ds] = k_float_to_bf16(s[j * ss]);
    return true;
  }
  if (sdt == PTE_BFLOAT16 && ddt == PTE_FLOAT32) {
    float *d = (float *)dst + doff;
    const uint16_t *s = (const uint16_t *)src + soff;
    for (int64_t j = 0; j < n; j++) {
      uint32_t bits = (uint32_t)s[j * ss] << 16;
      memcpy(&d[j * ds], &bits, 4);
    }
    return true;
  }
  return false;
}

/* A conversion with a complex side, as ATen casts: part by part, a real
 * source giving a zero imaginary part and a complex one losing it. Each
 * complex tensor is seen as its parts, strides counted in parts. */
static void convert_complex(void *dst, int32_t ddt, const int64_t *ds, const void *src, int32_t sdt,
                            const int64_t *ss, int32_t dim, const int64_t *sizes) {
  int32_t dp = k_is_complex(ddt) ? k_complex_part(ddt) : ddt,
          sp = k_is_complex(sdt) ? k_complex_part(sdt) : sdt;
  int64_t dstr[PTE_MAX_DIM], sstr[PTE_MAX_DIM];
  for (int32_t i = 0; i < dim; i++) {
    dstr[i] = ds[i] * (dp != ddt ? 2 : 1);
    sstr[i] = ss[i] * (sp != sdt ? 2 : 1);
  }
  kc_convert(dst, dp, dstr, src, sp, sstr, dim, sizes);
  if (dp == ddt) return;
  uint8_t *dim_part = (uint8_t *)dst + pte_dtype_size(dp);
  if (sp != sdt) {
    kc_convert(dim_part, dp, dstr, (const uint8_t *)src + pte_dtype_size(sp), sp, sstr, dim, sizes);
  } else {
    static const uint8_t zero[8];
    kc_fill(dim_part, dstr, dim, sizes, zero, pte_dtype_size(dp));
  }
}

void kc_convert(void *dst, int32_t ddt, const int64_t *ds, const void *src, int32_t sdt, const int64_t *ss,
                int32_t dim, const int64_t *sizes) {
  if (ddt == sdt) {
    kc_copy(dst, ds, src, ss, dim, sizes, pte_dtype_size(ddt));
    return;
  }
  if (k_is_complex(ddt) || k_is_complex(sdt)) {
    convert_complex(dst, ddt, ds, src, sdt, ss, dim, sizes);
    return;
  }
  int32_t through = PTE_INT64;
  k_ctype ct = exact_ctype(sdt, &through);
  int64_t strides[2][PTE_MAX_DIM], msizes[PTE_MAX_DIM];
  const int64_t *in[2] = {ds, ss};
  k_memory_order(dim, sizes, in, 2, msizes, strides);
  k_iter it;
  k_iter_init(&it, dim, msizes, 2, strides);
  int64_t off[2], len, s0 = k_iter_stride(&it, 0), s1 = k_iter_stride(&it, 1);
  _Alignas(64) uint8_t buf[KC_CHUNK * 8];
  while ((len = k_iter_row(&it, off)) > 0) {
    if (convert_fast(dst, ddt, off[0], s0, src, sdt, off[1], s1, len)) continue;
    for (int64_t s = 0; s < len; s += KC_CHUNK) {
      int64_t m = len - s < KC_CHUNK ? len - s : KC_CHUNK;
      k_load_row(buf, ct, through, src, sdt, off[1] + s * s1, s1, m);
      k_store_row(dst, ddt, off[0] + s * s0, s0, buf, ct, m);
    }
  }
}

void kc_convert_elem(void *out, int32_t dtype, const void *p, int32_t src_dtype) {
  int32_t through = PTE_INT64;
  k_ctype ct = exact_ctype(src_dtype, &through);
  _Alignas(8) uint8_t buf[8];
  k_load_row(buf, ct, through, p, src_dtype, 0, 1, 1);
  k_store_row(out, dtype, 0, 1, buf, ct, 1);
}

void kc_copy_tensor(pte_tensor *dst, const pte_tensor *src) {
  kc_convert(dst->data, dst->dtype, dst->strides, src->data, src->dtype, src->strides, dst->dim, dst->sizes);
}

static void contiguous_strides(int32_t dim, const int64_t *sizes, int64_t *strides) {
  int64_t st = 1;
  for (int32_t k = dim - 1; k >= 0; k--) {
    strides[k] = st;
    if (sizes[k] > 0) st *= sizes[k];
  }
}

void kc_copy_flat(pte_tensor *dst, const pte_tensor *src) {
  size_t es = pte_dtype_size(dst->dtype);
  int64_t n = pte_tensor_numel(dst);
  if (n == 0) return;
  int64_t cs[PTE_MAX_DIM];
  if (pte_tensor_is_contiguous(src)) { /* view src with dst's shape */
    contiguous_strides(dst->dim, dst->sizes, cs);
    kc_copy(dst->data, dst->strides, src->data, cs, dst->dim, dst->sizes, es);
    return;
  }
  if (pte_tensor_is_contiguous(dst)) { /* view dst with src's shape */
    contiguous_strides(src->dim, src->sizes, cs);
    kc_copy(dst->data, cs, src->data, src->strides, src->dim, src->sizes, es);
    return;
  }
  uint8_t *d = (uint8_t *)dst->data;
  const uint8_t *s = (const uint8_t *)src->data;
  for (int64_t i = 0; i < n; i++) {
    int64_t od = k_offset(dst->dim, dst->sizes, dst->strides, i);
    int64_t os = k_offset(src->dim, src->sizes, src->strides, i);
    kc_copy_elem(d + od * (int64_t)es, s + os * (int64_t)es, es);
  }
}

/* a + b per dtype, as ATen's add: half types through float, integers
 * wrapping (computed unsigned), bool as or. OP(T, EXPR) applies it; shared
 * by the strided accumulate and scatter_add's per-element add. */
#define KC_ADD_CASES(OP)                                                                            \
  case PTE_FLOAT32: OP(float, a + b); break;                                                        \
  case PTE_FLOAT64: OP(double, a + b); break;                                                       \
  case PTE_FLOAT16: OP(uint16_t, k_float_to_half(k_half_to_float(a) + k_half_to_float(b))); break;  \
  case PTE_BFLOAT16: OP(uint16_t, k_float_to_bf16(k_bf16_to_float(a) + k_bf16_to_float(b))); break; \
  case PTE_BOOL: OP(uint8_t, a || b); break;                                                        \
  case PTE_UINT8: OP(uint8_t, (uint32_t)a + b); break;                                              \
  case PTE_INT8: OP(int8_t, (uint8_t)((uint32_t)(uint8_t)a + (uint8_t)b)); break;                   \
  case PTE_INT16: OP(int16_t, (uint16_t)((uint32_t)(uint16_t)a + (uint16_t)b)); break;              \
  case PTE_INT32: OP(int32_t, (uint32_t)a + (uint32_t)b); break;                                    \
  case PTE_INT64:                                                                                   \
    OP(int64_t, (uint64_t)a + (uint64_t)b);                                                         \
    break;

#define KC_ACC(T, EXPR)                    \
  do {                                     \
    T *d_ = (T *)dst + off[0];             \
    const T *s_ = (const T *)src + off[1]; \
    for (int64_t j = 0; j < len; j++) {    \
      T a = d_[j * s0], b = s_[j * s1];    \
      d_[j * s0] = (T)(EXPR);              \
    }                                      \
  } while (0)

void kc_accumulate(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
                   const int64_t *sizes, int32_t dt) {
  int64_t strides[2][PTE_MAX_DIM];
  for (int32_t k = 0; k < dim; k++) {
    strides[0][k] = ds[k];
    strides[1][k] = ss[k];
  }
  k_iter it;
  k_iter_init(&it, dim, sizes, 2, strides);
  int64_t off[2], len, s0 = k_iter_stride(&it, 0), s1 = k_iter_stride(&it, 1);
  while ((len = k_iter_row(&it, off)) > 0) {
    switch (dt) {
      KC_ADD_CASES(KC_ACC)
      default: break;
    }
  }
}

#define KC_FILL(T)                                     \
  do {                                                 \
    T v_;                                              \
    memcpy(&v_, elem, sizeof v_);                      \
    T *d_ = (T *)d;                                    \
    for (int64_t j = 0; j < len; j++) d_[j * s0] = v_; \
  } while (0)

void kc_fill(void *dst, const int64_t *ds, int32_t dim, const int64_t *sizes, const void *elem, size_t es) {
  int64_t strides[1][PTE_MAX_DIM], msizes[PTE_MAX_DIM];
  const int64_t *in[1] = {ds};
  k_memory_order(dim, sizes, in, 1, msizes, strides);
  k_iter it;
  k_iter_init(&it, dim, msizes, 1, strides);
  int64_t off[1], len, s0 = k_iter_stride(&it, 0);
  bool zero = true;
  for (size_t b = 0; b < es; b++) zero = zero && ((const uint8_t *)elem)[b] == 0;
  while ((len = k_iter_row(&it, off)) > 0) {
    uint8_t *d = (uint8_t *)dst + off[0] * (int64_t)es;
    if (s0 == 1 && (zero || es == 1)) {
      memset(d, ((const uint8_t *)elem)[0], (size_t)len * es);
      continue;
    }
    switch (es) {
      case 1: KC_FILL(uint8_t); break;
      case 2: KC_FILL(uint16_t); break;
      case 4: KC_FILL(uint32_t); break;
      case 8: KC_FILL(uint64_t); break;
      default:
        for (int64_t j = 0; j < len; j++) memcpy(d + j * s0 * (int64_t)es, elem, es);
        break;
    }
  }
}

/* ---- scalars ---- */

static bool int_range(int32_t dt, int64_t *lo, int64_t *hi) {
  switch (dt) {
    case PTE_UINT8:
      *lo = 0;
      *hi = 255;
      return true;
    case PTE_INT8:
      *lo = -128;
      *hi = 127;
      return true;
    case PTE_INT16:
      *lo = INT16_MIN;
      *hi = INT16_MAX;
      return true;
    case PTE_INT32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return true;
    case PTE_INT64:
      *lo = INT64_MIN;
      *hi = INT64_MAX;
      return true;
    default: return false;
  }
}

static double float_max(int32_t dt) {
  switch (dt) {
    case PTE_FLOAT16: return 65504.0;
    case PTE_BFLOAT16: return 3.38953138925153547590470800371487866880e+38;
    case PTE_FLOAT32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

pte_status kc_scalar_to(pte_kernel_ctx *ctx, const k_scalar *s, int32_t dtype, bool checked, void *out) {
  if (!k_is_supported(dtype)) return K_FAIL("dtype %s is not supported", pte_dtype_name(dtype));
  bool overflow = false;
  int64_t lo = 0, hi = 0;
  if (s->dtype == PTE_FLOAT64) {
    double d = s->d;
    if (checked && dtype != PTE_BOOL) {
      if (int_range(dtype, &lo, &hi)) overflow = d != d || d < (double)lo || d > (double)hi;
      else overflow = !isinf(d) && d == d && fabs(d) > float_max(dtype);
    }
    if (!overflow) k_store_row(out, dtype, 0, 1, &d, K_F64, 1);
  } else {
    int64_t v = s->i;
    if (checked && dtype != PTE_BOOL) {
      if (dtype == PTE_UINT8) /* ATen lets negative ints wrap into unsigned types */
        overflow = v > 255 || v < -255;
      else if (int_range(dtype, &lo, &hi)) overflow = v < lo || v > hi;
      else overflow = fabs((double)v) > float_max(dtype);
    }
    if (!overflow) k_store_row(out, dtype, 0, 1, &v, K_I64, 1);
  }
  if (overflow) return K_FAIL("value cannot be converted to type %s without overflow", pte_dtype_name(dtype));
  return PTE_OK;
}

/* ---- argument checks ---- */

pte_status kc_supported(pte_kernel_ctx *ctx, int32_t dt, const char *what) {
  if (!k_is_supported(dt)) return K_FAIL("%s has unsupported dtype %s", what, pte_dtype_name(dt));
  return PTE_OK;
}

pte_status kc_movable(pte_kernel_ctx *ctx, int32_t dt, const char *what) {
  return k_is_complex(dt) ? PTE_OK : kc_supported(ctx, dt, what);
}

pte_status kc_movable_cast(pte_kernel_ctx *ctx, int32_t from, int32_t to) {
  K_CHECK(kc_movable(ctx, from, "the source"));
  K_CHECK(kc_movable(ctx, to, "the destination"));
  if (k_is_complex(from) && to == PTE_BOOL)
    return K_FAIL("%s to bool is not supported", pte_dtype_name(from));
  return PTE_OK;
}

pte_status kc_no_alias(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *a, const pte_tensor *b,
                       const pte_tensor *c) {
  if (out == a || out == b || out == c) return K_FAIL("the output tensor is also an input");
  const pte_tensor *in[3] = {a, b, c};
  for (int i = 0; i < 3; i++)
    if (in[i] && k_overlap(out, in[i])) return K_FAIL("out must not share memory with an input");
  return PTE_OK;
}

pte_status kc_no_alias_list(pte_kernel_ctx *ctx, const pte_tensor *out, pte_value *const *items, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (items[i] && items[i]->tag == PTE_TAG_TENSOR) {
      if (items[i]->u.tensor == out) return K_FAIL("the output tensor is also an input");
      if (k_overlap(out, items[i]->u.tensor)) return K_FAIL("out must not share memory with an input");
    }
  return PTE_OK;
}

pte_status kc_same_dtype(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *like) {
  if (out->dtype != like->dtype)
    return K_FAIL("output dtype %s differs from input dtype %s", pte_dtype_name(out->dtype),
                  pte_dtype_name(like->dtype));
  return PTE_OK;
}

pte_status kc_memory_format(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool allow_cl) {
  int64_t mf = 0;
  bool present = false;
  K_CHECK(k_opt_int(ctx, args, i, &mf, &present));
  if (!present || mf == 0 || mf == 1) return PTE_OK;
  if (allow_cl && (mf == 2 || mf == 3)) return PTE_OK;
  return K_FAIL("memory_format %lld is not supported", (long long)mf);
}

pte_status kc_check_dim_order(pte_kernel_ctx *ctx, pte_value **args, int32_t i, const pte_tensor *out) {
  int64_t order[PTE_MAX_DIM];
  int32_t n = 0;
  K_CHECK(k_opt_int_list(ctx, args, i, order, PTE_MAX_DIM, &n));
  if (n < 0) return PTE_OK;
  if (n != out->dim) return K_FAIL("dim_order has %d entries for a rank-%d output", (int)n, (int)out->dim);
  bool seen[PTE_MAX_DIM] = {false};
  for (int32_t k = 0; k < n; k++) {
    if (order[k] < 0 || order[k] >= n || seen[order[k]]) return K_FAIL("dim_order is not a permutation");
    seen[order[k]] = true;
    if (order[k] != out->dim_order[k])
      return K_FAIL("dim_order does not match the output tensor's dim order");
  }
  return PTE_OK;
}

pte_status kc_slice_range(pte_kernel_ctx *ctx, int64_t size, bool has_start, int64_t start, bool has_end,
                          int64_t end, int64_t step, int64_t *first, int64_t *len) {
  if (step <= 0) return K_FAIL("slice step must be positive, got %lld", (long long)step);
  int64_t s = has_start ? start : 0;
  int64_t e = has_end ? end : INT64_MAX;
  if (s < 0) s += size;
  if (e < 0) e += size;
  if (s < 0) s = 0;
  else if (s > size) s = size;
  if (e < s) e = s;
  else if (e > size) e = size;
  *first = s;
  *len = e == s ? 0 : (e - s - 1) / step + 1;
  return PTE_OK;
}

/* ---- scatter ---- */

#define KC_ADD1(T, EXPR)         \
  do {                           \
    T a, b;                      \
    memcpy(&a, dst, sizeof a);   \
    memcpy(&b, src, sizeof b);   \
    T r_ = (T)(EXPR);            \
    memcpy(dst, &r_, sizeof r_); \
  } while (0)

/* *dst += *src for one element of dtype dt (same rules as kc_accumulate). */
static void add_elem(void *dst, const void *src, int32_t dt) {
  switch (dt) {
    KC_ADD_CASES(KC_ADD1)
    default: break;
  }
}

pte_status kc_scatter(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t dim_arg, const pte_tensor *index,
                      const pte_tensor *src, const void *value, bool add, pte_tensor *out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, index, "index"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (index->dtype != PTE_INT64 && index->dtype != PTE_INT32)
    return K_FAIL("expected dtype int64 for index, got %s", pte_dtype_name(index->dtype));
  if (src) {
    K_CHECK(k_has_data(ctx, src, "src"));
    if (src->dtype != self->dtype) return K_FAIL("expected self.dtype to be equal to src.dtype");
  }
  int32_t dim = 0;
  K_CHECK(k_dim(ctx, dim_arg, self->dim, &dim));
  /* 0-dim tensors act as 1-D tensors of one element */
  int32_t rank = self->dim ? self->dim : 1;
  if ((index->dim ? index->dim : 1) != rank || (src && (src->dim ? src->dim : 1) != rank))
    return K_FAIL("index tensor must have the same number of dimensions as self and src");
  int64_t isz[PTE_MAX_DIM], ist[PTE_MAX_DIM], sst[PTE_MAX_DIM] = {0};
  for (int32_t k = 0; k < rank; k++) {
    isz[k] = index->dim ? index->sizes[k] : 1;
    ist[k] = index->dim ? index->strides[k] : 0;
    int64_t ss = self->dim ? self->sizes[k] : 1;
    if (k != dim && isz[k] > ss)
      return K_FAIL("expected index size %lld to be no larger than self size %lld at dimension %d",
                    (long long)isz[k], (long long)ss, (int)k);
    if (src) {
      int64_t rs = src->dim ? src->sizes[k] : 1;
      sst[k] = src->dim ? src->strides[k] : 0;
      if (isz[k] > rs)
        return K_FAIL("expected index size %lld to be no larger than src size %lld at dimension %d",
                      (long long)isz[k], (long long)rs, (int)k);
    }
  }
  int64_t size = self->dim ? self->sizes[dim] : 1;
  int64_t n = pte_tensor_numel(index);
  int64_t pos[PTE_MAX_DIM] = {0};
  for (int64_t e = 0; e < n; e++) { /* validate before writing */
    int64_t v = k_get_i(index->data, index->dtype, k_offset(rank, isz, ist, e));
    if (v < 0 || v >= size)
      return K_FAIL("index %lld is out of bounds for dimension %d with size %lld", (long long)v, (int)dim,
                    (long long)size);
  }
  K_CHECK(k_out_like(ctx, out, self));
  if (out->data != self->data) kc_copy_tensor(out, (pte_tensor *)self);
  if (n == 0) return PTE_OK;
  int64_t ost[PTE_MAX_DIM];
  for (int32_t k = 0; k < rank; k++) ost[k] = out->dim ? out->strides[k] : 0;
  size_t es = pte_dtype_size(self->dtype);
  uint8_t *dst = (uint8_t *)out->data;
  const uint8_t *sp = src ? (const uint8_t *)src->data : NULL;
  int64_t ioff = 0, ooff = 0, soff = 0; /* ooff: out offset without dim */
  for (int64_t e = 0; e < n; e++) {
    int64_t v = k_get_i(index->data, index->dtype, ioff);
    uint8_t *d = dst + (ooff + v * ost[dim]) * (int64_t)es;
    const void *s = sp ? (const void *)(sp + soff * (int64_t)es) : value;
    if (add) add_elem(d, s, self->dtype);
    else kc_copy_elem(d, s, es);
    for (int32_t k = rank - 1; k >= 0; k--) {
      ioff += ist[k];
      soff += sst[k];
      if (k != dim) ooff += ost[k];
      if (++pos[k] < isz[k]) break;
      ioff -= ist[k] * isz[k];
      soff -= sst[k] * isz[k];
      if (k != dim) ooff -= ost[k] * isz[k];
      pos[k] = 0;
    }
  }
  return PTE_OK;
}

/* ---- tril / triu ---- */

pte_status kc_triangle(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t diagonal, bool upper,
                       pte_tensor *out) {
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(kc_supported(ctx, self->dtype, "self"));
  K_CHECK(kc_same_dtype(ctx, out, self));
  if (self->dim < 2)
    return K_FAIL("%s: input tensor must have at least 2 dimensions", upper ? "triu" : "tril");
  K_CHECK(k_out_like(ctx, out, self));
  int64_t numel = pte_tensor_numel(self);
  if (numel == 0) return PTE_OK;
  if (out->data != self->data) kc_copy_tensor(out, self);
  int32_t nb = self->dim - 2;
  int64_t rows = self->sizes[nb], cols = self->sizes[nb + 1];
  int64_t rs = out->strides[nb], cs = out->strides[nb + 1];
  int64_t batches = numel / (rows * cols);
  size_t es = pte_dtype_size(out->dtype);
  const uint8_t zero[8] = {0};
  for (int64_t b = 0; b < batches; b++) {
    uint8_t *m = (uint8_t *)out->data + k_offset(nb, out->sizes, out->strides, b) * (int64_t)es;
    for (int64_t i = 0; i < rows; i++) {
      /* zero columns [lo, hi) of row i; clamp in a way that can't overflow */
      int64_t lo, hi;
      if (upper) { /* keep j >= i + diagonal */
        lo = 0;
        hi = diagonal >= cols ? cols : diagonal <= -rows ? 0 : i + diagonal;
      } else { /* keep j <= i + diagonal */
        lo = diagonal >= cols ? cols : diagonal <= -rows ? 0 : i + diagonal + 1;
        hi = cols;
      }
      if (lo < 0) lo = 0;
      if (hi > cols) hi = cols;
      if (lo >= hi) continue;
      int64_t n = hi - lo;
      kc_fill(m + (i * rs + lo * cs) * (int64_t)es, &cs, 1, &n, zero, es);
    }
  }
  return PTE_OK;
}

/* ---- advanced indexing ---- */

pte_status kc_index_plan_init(pte_kernel_ctx *ctx, kc_index_plan *p, const pte_tensor *self,
                              pte_value *const *items, int32_t n) {
  memset(p, 0, sizeof *p);
  if (n <= 0) return K_FAIL("at least one index must be provided");
  int32_t sd = 0;
  bool seen_entry = false, gap = false, adjacent = true;
  for (int32_t i = 0; i < n; i++) {
    const pte_value *v = items[i];
    if (!v || v->tag == PTE_TAG_NONE) {
      if (sd >= self->dim) return K_FAIL("too many indices for a tensor of rank %d", (int)self->dim);
      sd++;
      if (seen_entry) gap = true;
      continue;
    }
    if (v->tag != PTE_TAG_TENSOR)
      return K_FAIL("index %d is a %s, expected a Tensor", (int)i, pte_tag_name(v->tag));
    const pte_tensor *t = v->u.tensor;
    K_CHECK(k_has_data(ctx, t, "an index tensor"));
    kc_index_entry *e = &p->e[p->nentries];
    e->t = t;
    e->self_dim = sd;
    e->cur_p = -1;
    e->cur_lin = -1;
    if (t->dtype == PTE_BOOL || t->dtype == PTE_UINT8) {
      if (t->dim == 0) return K_FAIL("0-dim boolean indices are not supported");
      if (sd + t->dim > self->dim) return K_FAIL("too many indices for a tensor of rank %d", (int)self->dim);
      for (int32_t k = 0; k < t->dim; k++)
        if (t->sizes[k] != self->sizes[sd + k]) {
          char a[160], b[160];
          return K_FAIL(
              "the shape of the mask %s at index %d does not match the shape of the indexed tensor %s",
              pte_shape_str(t->dim, t->sizes, a, sizeof a), (int)k,
              pte_shape_str(self->dim, self->sizes, b, sizeof b));
        }
      e->mask = true;
      e->ndims = t->dim;
      int64_t numel = pte_tensor_numel(t), nnz = 0;
      const uint8_t *m = (const uint8_t *)t->data;
      for (int64_t j = 0; j < numel; j++) nnz += m[k_offset(t->dim, t->sizes, t->strides, j)] != 0;
      e->nnz = nnz;
    } else if (t->dtype == PTE_INT64 || t->dtype == PTE_INT32) {
      if (sd >= self->dim) return K_FAIL("too many indices for a tensor of rank %d", (int)self->dim);
      e->ndims = 1;
    } else {
      return K_FAIL("tensors used as indices must be int64, int32, uint8 or bool, not %s",
                    pte_dtype_name(t->dtype));
    }
    if (gap) adjacent = false;
    seen_entry = true;
    for (int32_t k = 0; k < e->ndims; k++) p->covered[sd + k] = true;
    sd += e->ndims;
    p->nentries++;
  }
  /* broadcast the index shapes (a mask acts as a 1-D index of length nnz) */
  int32_t bd = 0;
  for (int32_t j = 0; j < p->nentries; j++) {
    int32_t d = p->e[j].mask ? 1 : p->e[j].t->dim;
    if (d > bd) bd = d;
  }
  for (int32_t k = 0; k < bd; k++) p->bsizes[k] = 1;
  for (int32_t j = 0; j < p->nentries; j++) {
    kc_index_entry *e = &p->e[j];
    int32_t d = e->mask ? 1 : e->t->dim;
    for (int32_t k = 0; k < d; k++) {
      int64_t s = e->mask ? e->nnz : e->t->sizes[k];
      int32_t o = bd - d + k;
      if (s == p->bsizes[o] || s == 1) continue;
      if (p->bsizes[o] != 1)
        return K_FAIL("shape mismatch: indexing tensors could not be broadcast together");
      p->bsizes[o] = s;
    }
  }
  p->bdim = bd;
  for (int32_t j = 0; j < p->nentries; j++) {
    kc_index_entry *e = &p->e[j];
    int32_t d = e->mask ? 1 : e->t->dim;
    for (int32_t k = 0; k < bd; k++) {
      int32_t src = k - (bd - d);
      int64_t s = src < 0 ? 1 : e->mask ? e->nnz : e->t->sizes[src];
      e->bstrides[k] = (src < 0 || (s == 1 && p->bsizes[k] != 1)) ? 0 : e->mask ? 1 : e->t->strides[src];
    }
  }
  /* result shape: the broadcast index dims replace the indexed dims in place
   * when the indexed dims are adjacent, otherwise they go first */
  int32_t nslice = 0;
  for (int32_t k = 0; k < self->dim; k++)
    if (!p->covered[k]) nslice++;
  if (bd + nslice > PTE_MAX_DIM) return K_FAIL("the result would have more than %d dims", PTE_MAX_DIM);
  int32_t first = p->nentries ? p->e[0].self_dim : 0;
  p->bstart = adjacent ? first : 0;
  for (int32_t k = 0; k < self->dim; k++) {
    if (p->covered[k]) continue;
    int32_t o;
    if (!adjacent) o = bd + p->nslice;
    else if (k < first) o = k;
    else o = k - (self->dim - nslice) + bd; /* after the index block */
    p->slice_self[p->nslice] = k;
    p->slice_out[p->nslice++] = o;
    p->out_sizes[o] = self->sizes[k];
  }
  for (int32_t k = 0; k < bd; k++) p->out_sizes[p->bstart + k] = p->bsizes[k];
  p->out_dim = bd + nslice;
  return PTE_OK;
}

/* Linear index (into the mask) of its p-th true element, reusing the cursor. */
static int64_t mask_find(kc_index_entry *e, int64_t target) {
  const pte_tensor *t = e->t;
  const uint8_t *m = (const uint8_t *)t->data;
  if (target < e->cur_p || e->cur_p < 0) {
    e->cur_p = -1;
    e->cur_lin = -1;
  }
  while (e->cur_p < target) {
    e->cur_lin++;
    if (m[k_offset(t->dim, t->sizes, t->strides, e->cur_lin)]) e->cur_p++;
  }
  return e->cur_lin;
}

pte_status kc_index_offset(pte_kernel_ctx *ctx, kc_index_plan *p, const pte_tensor *self,
                           const int64_t *strides, const int64_t *bpos, int64_t *off) {
  int64_t o = 0;
  for (int32_t j = 0; j < p->nentries; j++) {
    kc_index_entry *e = &p->e[j];
    int64_t pos = 0;
    for (int32_t k = 0; k < p->bdim; k++) pos += bpos[k] * e->bstrides[k];
    if (e->mask) {
      int64_t lin = mask_find(e, pos);
      o += k_offset(e->ndims, &self->sizes[e->self_dim], &strides[e->self_dim], lin);
      continue;
    }
    int64_t v = k_get_i(e->t->data, e->t->dtype, pos);
    int64_t size = self->sizes[e->self_dim];
    if (v < 0) v += size;
    if (v < 0 || v >= size)
      return K_FAIL("index %lld is out of bounds for dimension %d with size %lld",
                    (long long)k_get_i(e->t->data, e->t->dtype, pos), (int)e->self_dim, (long long)size);
    o += v * strides[e->self_dim];
  }
  *off = o;
  return PTE_OK;
}

pte_status kc_list_inputs(pte_kernel_ctx *ctx, pte_value *const *items, int32_t n, const pte_tensor *out) {
  if (k_is_complex(out->dtype)) { /* no promotion to or from complex: every input is out's dtype */
    for (int32_t i = 0; i < n; i++) {
      if (!items[i] || items[i]->tag != PTE_TAG_TENSOR)
        return K_FAIL("item %d of tensors is not a Tensor", (int)i);
      if (items[i]->u.tensor->dtype != out->dtype)
        return K_FAIL("input %d is %s, not %s like out", (int)i, pte_dtype_name(items[i]->u.tensor->dtype),
                      pte_dtype_name(out->dtype));
      K_CHECK(k_has_data(ctx, items[i]->u.tensor, "an input"));
    }
    return PTE_OK;
  }
  K_CHECK(kc_supported(ctx, out->dtype, "out"));
  int32_t common = -1;
  for (int32_t i = 0; i < n; i++) {
    if (!items[i] || items[i]->tag != PTE_TAG_TENSOR)
      return K_FAIL("item %d of tensors is not a Tensor", (int)i);
    const pte_tensor *t = items[i]->u.tensor;
    K_CHECK(kc_supported(ctx, t->dtype, "an input"));
    K_CHECK(k_has_data(ctx, t, "an input"));
    common = common < 0 ? t->dtype : k_promote(common, t->dtype);
  }
  if (n > 0 && !k_can_cast(common, out->dtype))
    return K_FAIL("result type %s can't be cast to the output dtype %s", pte_dtype_name(common),
                  pte_dtype_name(out->dtype));
  return PTE_OK;
}

pte_status kc_self_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, pte_tensor **self,
                       pte_tensor **out) {
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_tensor(ctx, args, 0, self));
  K_CHECK(k_tensor(ctx, args, 1, out));
  K_CHECK(kc_no_alias(ctx, *out, *self, NULL, NULL));
  return k_has_data(ctx, *self, "self");
}

pte_status kc_copy_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  K_CHECK(kc_self_out(ctx, args, nargs, &self, &out));
  K_CHECK(kc_same_dtype(ctx, out, self));
  K_CHECK(k_out_like(ctx, out, self));
  kc_copy_tensor(out, self);
  return PTE_OK;
}
