/* Shared helpers for the portable kernels (see kernel_util.h). */
#include "kernel_util.h"

#include <stdio.h>

/* ---- dtypes ---- */

static int float_rank(int32_t dt) {
  return dt == PTE_FLOAT16 || dt == PTE_BFLOAT16 ? 1 : dt == PTE_FLOAT32 ? 2 : 3;
}

int32_t k_promote(int32_t a, int32_t b) {
  if (!k_is_supported(a) || !k_is_supported(b)) return -1;
  if (a == b) return a;
  if (a == PTE_BOOL) return b;
  if (b == PTE_BOOL) return a;
  if (k_is_float(a) && k_is_float(b)) {
    if ((a == PTE_FLOAT16 && b == PTE_BFLOAT16) || (a == PTE_BFLOAT16 && b == PTE_FLOAT16))
      return PTE_FLOAT32;
    return float_rank(a) >= float_rank(b) ? a : b;
  }
  if (k_is_float(a)) return a;
  if (k_is_float(b)) return b;
  /* both integral */
  if ((a == PTE_UINT8 && b == PTE_INT8) || (a == PTE_INT8 && b == PTE_UINT8)) return PTE_INT16;
  if (a == PTE_UINT8) return b;
  if (b == PTE_UINT8) return a;
  return pte_dtype_size(a) >= pte_dtype_size(b) ? a : b;
}

k_operand k_tensor_operand(const pte_tensor *t) {
  k_operand o = {t->dtype, t->dim, false};
  return o;
}

k_operand k_scalar_operand(const k_scalar *s) {
  k_operand o = {s->dtype, 0, true};
  return o;
}

static int32_t promote_opt(int32_t a, int32_t b) { return a < 0 ? b : b < 0 ? a : k_promote(a, b); }

static int32_t combine(int32_t higher, int32_t lower) {
  if (higher >= 0 && k_is_float(higher)) return higher;
  if (higher == PTE_BOOL || (lower >= 0 && k_is_float(lower))) return promote_opt(higher, lower);
  return higher >= 0 ? higher : lower;
}

int32_t k_result_type(const k_operand *ops, int32_t n) {
  int32_t dimr = -1, zeror = -1, wrapr = -1;
  for (int32_t i = 0; i < n; i++) {
    int32_t dt = ops[i].dtype;
    if (ops[i].wrapped) {
      if (k_is_float(dt)) dt = PTE_FLOAT32; /* the default dtype */
      else if (k_is_int(dt)) dt = PTE_INT64;
      wrapr = promote_opt(wrapr, dt);
    } else if (ops[i].dim == 0) {
      zeror = promote_opt(zeror, dt);
    } else {
      dimr = promote_opt(dimr, dt);
    }
  }
  return combine(dimr, combine(zeror, wrapr));
}

bool k_can_cast(int32_t from, int32_t to) {
  if (k_is_float(from) && k_is_int(to)) return false;
  if (from != PTE_BOOL && to == PTE_BOOL) return false;
  return true;
}

/* float → integer without undefined behaviour: NaN → 0, saturate to int64. */
static inline int64_t f2i(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775807.0) return INT64_MAX;
  if (v <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

double k_get_d(const void *p, int32_t dt, int64_t i) {
  switch (dt) {
    case PTE_FLOAT32: return ((const float *)p)[i];
    case PTE_FLOAT64: return ((const double *)p)[i];
    case PTE_FLOAT16: return k_half_to_float(((const uint16_t *)p)[i]);
    case PTE_BFLOAT16: return k_bf16_to_float(((const uint16_t *)p)[i]);
    case PTE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case PTE_UINT8: return ((const uint8_t *)p)[i];
    case PTE_INT8: return ((const int8_t *)p)[i];
    case PTE_INT16: return ((const int16_t *)p)[i];
    case PTE_INT32: return ((const int32_t *)p)[i];
    case PTE_INT64: return (double)((const int64_t *)p)[i];
    default: return 0;
  }
}

int64_t k_get_i(const void *p, int32_t dt, int64_t i) {
  switch (dt) {
    case PTE_BOOL: return ((const uint8_t *)p)[i] != 0;
    case PTE_UINT8: return ((const uint8_t *)p)[i];
    case PTE_INT8: return ((const int8_t *)p)[i];
    case PTE_INT16: return ((const int16_t *)p)[i];
    case PTE_INT32: return ((const int32_t *)p)[i];
    case PTE_INT64: return ((const int64_t *)p)[i];
    default: return f2i(k_get_d(p, dt, i));
  }
}

void k_set_d(void *p, int32_t dt, int64_t i, double v) {
  switch (dt) {
    case PTE_FLOAT32: ((float *)p)[i] = (float)v; break;
    case PTE_FLOAT64: ((double *)p)[i] = v; break;
    case PTE_FLOAT16: ((uint16_t *)p)[i] = k_float_to_half((float)v); break;
    case PTE_BFLOAT16: ((uint16_t *)p)[i] = k_float_to_bf16((float)v); break;
    case PTE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    default: k_set_i(p, dt, i, f2i(v)); break;
  }
}

void k_set_i(void *p, int32_t dt, int64_t i, int64_t v) {
  switch (dt) {
    case PTE_BOOL: ((uint8_t *)p)[i] = v != 0; break;
    case PTE_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case PTE_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
    case PTE_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
    case PTE_INT32: ((int32_t *)p)[i] = (int32_t)v; break;
    case PTE_INT64: ((int64_t *)p)[i] = v; break;
    default: k_set_d(p, dt, i, (double)v); break;
  }
}

/* Round an integer through a narrower integer dtype (wraps like a C cast). */
static inline int64_t through_int(int64_t v, int32_t dt) {
  switch (dt) {
    case PTE_UINT8: return (uint8_t)v;
    case PTE_INT8: return (int8_t)v;
    case PTE_INT16: return (int16_t)v;
    case PTE_INT32: return (int32_t)v;
    default: return v;
  }
}

static inline float through_float(float v, int32_t dt) {
  if (dt == PTE_FLOAT16) return k_half_to_float(k_float_to_half(v));
  if (dt == PTE_BFLOAT16) return k_bf16_to_float(k_float_to_bf16(v));
  return v;
}

#define LOAD_LOOP(DT, CT, EXPR)           \
  do {                                    \
    const DT *s_ = (const DT *)src + off; \
    CT *d_ = (CT *)dst;                   \
    for (int64_t j = 0; j < n; j++) {     \
      DT x = s_[j * stride];              \
      d_[j] = (CT)(EXPR);                 \
    }                                     \
  } while (0)

#define LOAD_ANY(CT, FROMF, FROMI)                                                        \
  switch (dt) {                                                                           \
    case PTE_FLOAT32: LOAD_LOOP(float, CT, FROMF((double)x)); break;                      \
    case PTE_FLOAT64: LOAD_LOOP(double, CT, FROMF(x)); break;                             \
    case PTE_FLOAT16: LOAD_LOOP(uint16_t, CT, FROMF((double)k_half_to_float(x))); break;  \
    case PTE_BFLOAT16: LOAD_LOOP(uint16_t, CT, FROMF((double)k_bf16_to_float(x))); break; \
    case PTE_BOOL: LOAD_LOOP(uint8_t, CT, FROMI((int64_t)(x != 0))); break;               \
    case PTE_UINT8: LOAD_LOOP(uint8_t, CT, FROMI((int64_t)x)); break;                     \
    case PTE_INT8: LOAD_LOOP(int8_t, CT, FROMI((int64_t)x)); break;                       \
    case PTE_INT16: LOAD_LOOP(int16_t, CT, FROMI((int64_t)x)); break;                     \
    case PTE_INT32: LOAD_LOOP(int32_t, CT, FROMI((int64_t)x)); break;                     \
    case PTE_INT64: LOAD_LOOP(int64_t, CT, FROMI(x)); break;                              \
    default: memset(dst, 0, (size_t)n * sizeof(CT)); break;                               \
  }

void k_load_row(void *dst, k_ctype ct, int32_t through, const void *src, int32_t dt, int64_t off,
                int64_t stride, int64_t n) {
  switch (ct) {
    case K_F32:
#define F32_F(v) through_float((float)(v), through)
#define F32_I(v) through_float((float)through_int((v), through), through)
      if (dt == PTE_FLOAT32 && through == PTE_FLOAT32) {
        LOAD_LOOP(float, float, x);
      } else {
        LOAD_ANY(float, F32_F, F32_I);
      }
      break;
    case K_F64:
#define F64_F(v) (double)(v)
#define F64_I(v) (double)through_int((v), through)
      LOAD_ANY(double, F64_F, F64_I);
      break;
    case K_I64:
#define I64_F(v) through_int(f2i(v), through)
#define I64_I(v) through_int((v), through)
      LOAD_ANY(int64_t, I64_F, I64_I);
      break;
    case K_BOOL:
#define B_F(v) ((v) != 0)
#define B_I(v) ((v) != 0)
      LOAD_ANY(uint8_t, B_F, B_I);
      break;
  }
}

#define STORE_LOOP(DT, CT, EXPR)      \
  do {                                \
    DT *d_ = (DT *)dst + off;         \
    const CT *s_ = (const CT *)src;   \
    for (int64_t j = 0; j < n; j++) { \
      CT x = s_[j];                   \
      d_[j * stride] = (DT)(EXPR);    \
    }                                 \
  } while (0)

#define STORE_FROM_FLOAT(CT)                                                       \
  switch (dt) {                                                                    \
    case PTE_FLOAT32: STORE_LOOP(float, CT, x); break;                             \
    case PTE_FLOAT64: STORE_LOOP(double, CT, x); break;                            \
    case PTE_FLOAT16: STORE_LOOP(uint16_t, CT, k_float_to_half((float)x)); break;  \
    case PTE_BFLOAT16: STORE_LOOP(uint16_t, CT, k_float_to_bf16((float)x)); break; \
    case PTE_BOOL: STORE_LOOP(uint8_t, CT, x != 0); break;                         \
    case PTE_UINT8: STORE_LOOP(uint8_t, CT, f2i((double)x)); break;                \
    case PTE_INT8: STORE_LOOP(int8_t, CT, f2i((double)x)); break;                  \
    case PTE_INT16: STORE_LOOP(int16_t, CT, f2i((double)x)); break;                \
    case PTE_INT32: STORE_LOOP(int32_t, CT, f2i((double)x)); break;                \
    case PTE_INT64: STORE_LOOP(int64_t, CT, f2i((double)x)); break;                \
    default: break;                                                                \
  }

#define STORE_FROM_INT(CT)                                                         \
  switch (dt) {                                                                    \
    case PTE_FLOAT32: STORE_LOOP(float, CT, (float)x); break;                      \
    case PTE_FLOAT64: STORE_LOOP(double, CT, (double)x); break;                    \
    case PTE_FLOAT16: STORE_LOOP(uint16_t, CT, k_float_to_half((float)x)); break;  \
    case PTE_BFLOAT16: STORE_LOOP(uint16_t, CT, k_float_to_bf16((float)x)); break; \
    case PTE_BOOL: STORE_LOOP(uint8_t, CT, x != 0); break;                         \
    case PTE_UINT8: STORE_LOOP(uint8_t, CT, (uint8_t)x); break;                    \
    case PTE_INT8: STORE_LOOP(int8_t, CT, (int8_t)x); break;                       \
    case PTE_INT16: STORE_LOOP(int16_t, CT, (int16_t)x); break;                    \
    case PTE_INT32: STORE_LOOP(int32_t, CT, (int32_t)x); break;                    \
    case PTE_INT64: STORE_LOOP(int64_t, CT, (int64_t)x); break;                    \
    default: break;                                                                \
  }

void k_store_row(void *dst, int32_t dt, int64_t off, int64_t stride, const void *src, k_ctype ct, int64_t n) {
  switch (ct) {
    case K_F32: STORE_FROM_FLOAT(float); break;
    case K_F64: STORE_FROM_FLOAT(double); break;
    case K_I64: STORE_FROM_INT(int64_t); break;
    case K_BOOL: STORE_FROM_INT(uint8_t); break;
  }
}

/* ---- shapes and iteration ---- */

pte_status k_broadcast_shape(pte_kernel_ctx *ctx, const pte_tensor *const *ts, int32_t n, int32_t *dim,
                             int64_t *sizes) {
  int32_t d = 0;
  for (int32_t i = 0; i < n; i++)
    if (ts[i] && ts[i]->dim > d) d = ts[i]->dim;
  for (int32_t k = 0; k < d; k++) sizes[k] = 1;
  for (int32_t i = 0; i < n; i++) {
    const pte_tensor *t = ts[i];
    if (!t) continue;
    for (int32_t k = 0; k < t->dim; k++) {
      int32_t o = d - t->dim + k;
      int64_t s = t->sizes[k];
      if (s == sizes[o] || s == 1) continue;
      if (sizes[o] == 1) {
        sizes[o] = s;
        continue;
      }
      char a[160], b[160];
      return K_FAIL("shapes %s and %s cannot be broadcast together",
                    pte_shape_str(t->dim, t->sizes, a, sizeof a), pte_shape_str(d, sizes, b, sizeof b));
    }
  }
  *dim = d;
  return PTE_OK;
}

void k_broadcast_strides(const pte_tensor *t, int32_t dim, const int64_t *sizes, int64_t *strides) {
  for (int32_t k = 0; k < dim; k++) {
    int32_t src = k - (dim - t->dim);
    strides[k] = (src < 0 || (t->sizes[src] == 1 && sizes[k] != 1)) ? 0 : t->strides[src];
  }
}

void k_iter_init(k_iter *it, int32_t dim, const int64_t *sizes, int32_t nops,
                 int64_t (*strides)[PTE_MAX_DIM]) {
  memset(it, 0, sizeof *it);
  it->nops = nops;
  int64_t numel = k_numel(dim, sizes);
  /* Drop size-1 dims, then merge neighbours whose strides chain. */
  int32_t d = 0;
  for (int32_t k = 0; k < dim; k++) {
    if (sizes[k] == 1) continue;
    if (d > 0) {
      bool merge = true;
      for (int32_t o = 0; o < nops && merge; o++)
        merge = strides[o][k - 0] * sizes[k] == it->strides[o][d - 1] ||
                (strides[o][k] == 0 && it->strides[o][d - 1] == 0);
      /* strides[o][prev] == strides[o][k] * sizes[k] means prev and k are contiguous */
      if (merge) {
        for (int32_t o = 0; o < nops; o++) it->strides[o][d - 1] = strides[o][k];
        it->sizes[d - 1] *= sizes[k];
        continue;
      }
    }
    it->sizes[d] = sizes[k];
    for (int32_t o = 0; o < nops; o++) it->strides[o][d] = strides[o][k];
    d++;
  }
  if (d == 0) { /* a single element */
    it->sizes[0] = 1;
    d = 1;
  }
  it->dim = d;
  it->rows_left = numel == 0 ? 0 : numel / it->sizes[d - 1];
}

int64_t k_iter_row(k_iter *it, int64_t *off) {
  if (it->rows_left <= 0) return 0;
  for (int32_t o = 0; o < it->nops; o++) off[o] = it->offset[o];
  it->rows_left--;
  /* advance the odometer over the outer dims */
  for (int32_t k = it->dim - 2; k >= 0; k--) {
    for (int32_t o = 0; o < it->nops; o++) it->offset[o] += it->strides[o][k];
    if (++it->index[k] < it->sizes[k]) break;
    for (int32_t o = 0; o < it->nops; o++) it->offset[o] -= it->strides[o][k] * it->sizes[k];
    it->index[k] = 0;
  }
  return it->sizes[it->dim - 1];
}

/* ---- reductions ---- */

pte_status k_reduce_init(pte_kernel_ctx *ctx, k_reduce *r, const pte_tensor *in, const int64_t *dims,
                         int32_t ndims, bool keepdim) {
  memset(r, 0, sizeof *r);
  bool reduced[PTE_MAX_DIM] = {false};
  if (ndims <= 0) {
    for (int32_t k = 0; k < in->dim; k++) reduced[k] = true;
  } else {
    for (int32_t j = 0; j < ndims; j++) {
      int32_t d = 0;
      K_CHECK(k_dim(ctx, dims[j], in->dim, &d));
      if (in->dim == 0) continue;
      if (reduced[d]) return K_FAIL("dim %d appears more than once in the reduction", (int)d);
      reduced[d] = true;
    }
  }
  r->outer_numel = 1;
  r->inner_numel = 1;
  for (int32_t k = 0; k < in->dim; k++) {
    if (reduced[k]) {
      r->inner_sizes[r->inner_dim] = in->sizes[k];
      r->inner_strides[r->inner_dim++] = in->strides[k];
      r->inner_numel *= in->sizes[k];
      if (keepdim) r->out_sizes[r->out_dim++] = 1;
    } else {
      r->outer_sizes[r->outer_dim] = in->sizes[k];
      r->outer_strides[r->outer_dim++] = in->strides[k];
      r->outer_numel *= in->sizes[k];
      r->out_sizes[r->out_dim++] = in->sizes[k];
    }
  }
  return PTE_OK;
}
