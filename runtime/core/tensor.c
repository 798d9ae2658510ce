/* Data types, tensors and values. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

size_t pte_dtype_size(int32_t dtype) {
  switch (dtype) {
    case PTE_UINT8:
    case PTE_INT8:
    case PTE_BOOL:
    case PTE_QINT8:
    case PTE_QUINT8:
    case PTE_QUINT4X2:
    case PTE_QUINT2X4:
    case PTE_FLOAT8_E5M2:
    case PTE_FLOAT8_E4M3FN:
    case PTE_FLOAT8_E5M2FNUZ:
    case PTE_FLOAT8_E4M3FNUZ: return 1;
    case PTE_INT16:
    case PTE_FLOAT16:
    case PTE_BFLOAT16:
    case PTE_BITS16:
    case PTE_UINT16: return 2;
    case PTE_INT32:
    case PTE_FLOAT32:
    case PTE_COMPLEX32:
    case PTE_QINT32:
    case PTE_UINT32: return 4;
    case PTE_INT64:
    case PTE_FLOAT64:
    case PTE_COMPLEX64:
    case PTE_UINT64: return 8;
    case PTE_COMPLEX128: return 16;
    default: return 0;
  }
}

const char *pte_dtype_name(int32_t dtype) {
  switch (dtype) {
    case PTE_UINT8: return "uint8";
    case PTE_INT8: return "int8";
    case PTE_INT16: return "int16";
    case PTE_INT32: return "int32";
    case PTE_INT64: return "int64";
    case PTE_FLOAT16: return "float16";
    case PTE_FLOAT32: return "float32";
    case PTE_FLOAT64: return "float64";
    case PTE_COMPLEX32: return "complex32";
    case PTE_COMPLEX64: return "complex64";
    case PTE_COMPLEX128: return "complex128";
    case PTE_BOOL: return "bool";
    case PTE_QINT8: return "qint8";
    case PTE_QUINT8: return "quint8";
    case PTE_QINT32: return "qint32";
    case PTE_BFLOAT16: return "bfloat16";
    case PTE_QUINT4X2: return "quint4x2";
    case PTE_QUINT2X4: return "quint2x4";
    case PTE_BITS16: return "bits16";
    case PTE_FLOAT8_E5M2: return "float8_e5m2";
    case PTE_FLOAT8_E4M3FN: return "float8_e4m3fn";
    case PTE_FLOAT8_E5M2FNUZ: return "float8_e5m2fnuz";
    case PTE_FLOAT8_E4M3FNUZ: return "float8_e4m3fnuz";
    case PTE_UINT16: return "uint16";
    case PTE_UINT32: return "uint32";
    case PTE_UINT64: return "uint64";
    default: return "invalid";
  }
}

const char *pte_tag_name(int32_t tag) {
  static const char *const names[] = {"unset",      "None",     "Int",        "Bool",
                                      "Double",     "Tensor",   "String",     "IntList",
                                      "DoubleList", "BoolList", "TensorList", "OptionalTensorList"};
  return (tag >= 0 && tag <= PTE_TAG_OPTIONAL_TENSOR_LIST) ? names[tag] : "invalid";
}

void pte_tensor_compute_strides(pte_tensor *t) {
  int64_t stride = 1;
  for (int32_t i = t->dim - 1; i >= 0; i--) {
    int32_t d = t->dim_order[i];
    t->strides[d] = stride;
    /* A zero-size dim keeps the stride, as ATen does, so strides stay nonzero.
     * Unsigned: only a tensor with a zero-size dim can have other dims whose
     * product passes 2^63 (callers bound the bytes), and it has no element a
     * wrapped stride could reach. */
    if (t->sizes[d] > 0) stride = (int64_t)((uint64_t)stride * (uint64_t)t->sizes[d]);
  }
}

pte_status pte_tensor_init(pte_tensor *t, int32_t dtype, int32_t dim, const int64_t *sizes, void *data) {
  if (!t) return pte_error(PTE_ERR_INVALID_ARGUMENT, "tensor is NULL");
  if (pte_dtype_size(dtype) == 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "unknown dtype code %d", (int)dtype);
  if (dim < 0 || dim > PTE_MAX_DIM)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "rank %d is outside 0..%d", (int)dim, PTE_MAX_DIM);
  memset(t, 0, sizeof *t);
  t->data = data;
  t->dtype = dtype;
  t->dim = dim;
  t->dynamism = PTE_SHAPE_STATIC;
  size_t n = pte_dtype_size(dtype);
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] < 0)
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "size %lld of dim %d is negative", (long long)sizes[i],
                       (int)i);
    if (!pte_mul_ok(n, (size_t)sizes[i], &n))
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "tensor size overflows");
    t->sizes[i] = sizes[i];
    t->dim_order[i] = (uint8_t)i;
  }
  t->capacity = n;
  pte_tensor_compute_strides(t);
  return PTE_OK;
}

const char *pte_shape_str(int32_t dim, const int64_t *sizes, char *buf, size_t n) {
  size_t used = 0;
  if (n == 0) return buf;
  buf[0] = 0;
  used += (size_t)snprintf(buf, n, "[");
  for (int32_t i = 0; i < dim && used < n; i++)
    used += (size_t)snprintf(buf + used, n - used, i ? ", %lld" : "%lld", (long long)sizes[i]);
  if (used < n) snprintf(buf + used, n - used, "]");
  return buf;
}

pte_status pte_tensor_resize(pte_tensor *t, int32_t dim, const int64_t *sizes) {
  char a[160], b[160];
  if (dim < 0 || dim > PTE_MAX_DIM)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "rank %d is outside 0..%d", (int)dim, PTE_MAX_DIM);
  bool same = dim == t->dim;
  for (int32_t i = 0; same && i < dim; i++) same = sizes[i] == t->sizes[i];
  if (same) return PTE_OK;
  if (t->dynamism == PTE_SHAPE_STATIC)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "cannot resize a static tensor from %s to %s",
                     pte_shape_str(t->dim, t->sizes, a, sizeof a), pte_shape_str(dim, sizes, b, sizeof b));
  if (dim != t->dim && t->dynamism != PTE_SHAPE_DYNAMIC_UNBOUND)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "cannot change rank from %d to %d (shape %s)", (int)t->dim,
                     (int)dim, pte_shape_str(dim, sizes, b, sizeof b));
  size_t n = pte_dtype_size(t->dtype);
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] < 0 || !pte_mul_ok(n, (size_t)sizes[i], &n))
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "invalid shape %s", pte_shape_str(dim, sizes, b, sizeof b));
  }
  if (n > t->capacity)
    return pte_error(
        PTE_ERR_INVALID_ARGUMENT, "shape %s needs %zu bytes but the tensor has room for %zu (bound %s)",
        pte_shape_str(dim, sizes, b, sizeof b), n, t->capacity, pte_shape_str(t->dim, t->sizes, a, sizeof a));
  if (dim != t->dim)
    for (int32_t i = 0; i < dim; i++) t->dim_order[i] = (uint8_t)i;
  t->dim = dim;
  for (int32_t i = 0; i < dim; i++) t->sizes[i] = sizes[i];
  pte_tensor_compute_strides(t);
  return PTE_OK;
}

size_t pte_tensor_nbytes(const pte_tensor *t) {
  return (size_t)pte_tensor_numel(t) * pte_dtype_size(t->dtype);
}

bool pte_tensor_is_contiguous(const pte_tensor *t) {
  if (pte_tensor_numel(t) == 0) return true;
  int64_t expect = 1;
  for (int32_t i = t->dim - 1; i >= 0; i--) {
    if (t->sizes[i] != 1 && t->strides[i] != expect) return false;
    expect *= t->sizes[i];
  }
  return true;
}

bool pte_value_to_int(const pte_value *v, int64_t *out) {
  if (!v) return false;
  if (v->tag == PTE_TAG_INT) {
    *out = v->u.i;
    return true;
  }
  if (v->tag == PTE_TAG_BOOL) {
    *out = v->u.b;
    return true;
  }
  return false;
}

bool pte_value_to_double(const pte_value *v, double *out) {
  if (!v) return false;
  if (v->tag == PTE_TAG_DOUBLE) {
    *out = v->u.d;
    return true;
  }
  if (v->tag == PTE_TAG_INT) {
    *out = (double)v->u.i;
    return true;
  }
  if (v->tag == PTE_TAG_BOOL) {
    *out = v->u.b;
    return true;
  }
  return false;
}

int32_t pte_value_int_list(const pte_value *v, int64_t *out, int32_t max) {
  if (!v || v->tag != PTE_TAG_INT_LIST || v->len > max) return -1;
  for (int32_t i = 0; i < v->len; i++) {
    const pte_value *item = v->u.items[i];
    if (!item || item->tag != PTE_TAG_INT) return -1;
    out[i] = item->u.i;
  }
  return v->len;
}

pte_status pte_tensor_copy(pte_tensor *dst, const pte_tensor *src) {
  char a[160], b[160];
  if (dst->dtype != src->dtype || dst->dim != src->dim)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "copy from %s%s to %s%s: dtype or rank differs",
                     pte_dtype_name(src->dtype), pte_shape_str(src->dim, src->sizes, a, sizeof a),
                     pte_dtype_name(dst->dtype), pte_shape_str(dst->dim, dst->sizes, b, sizeof b));
  for (int32_t i = 0; i < src->dim; i++)
    if (dst->sizes[i] != src->sizes[i])
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "copy from %s to %s: shapes differ",
                       pte_shape_str(src->dim, src->sizes, a, sizeof a),
                       pte_shape_str(dst->dim, dst->sizes, b, sizeof b));
  int64_t n = pte_tensor_numel(src);
  size_t es = pte_dtype_size(src->dtype);
  if (n == 0) return PTE_OK;
  if (!dst->data || !src->data) return pte_error(PTE_ERR_INVALID_ARGUMENT, "copy of a tensor without data");
  if (pte_tensor_is_contiguous(dst) && pte_tensor_is_contiguous(src)) {
    memmove(dst->data, src->data, (size_t)n * es);
    return PTE_OK;
  }
  /* Walk the logical (row-major) index space with an odometer. */
  int64_t idx[PTE_MAX_DIM] = {0};
  int64_t so = 0, d_o = 0;
  for (int64_t k = 0; k < n; k++) {
    memcpy((uint8_t *)dst->data + (size_t)d_o * es, (const uint8_t *)src->data + (size_t)so * es, es);
    for (int32_t d = src->dim - 1; d >= 0; d--) {
      so += src->strides[d];
      d_o += dst->strides[d];
      if (++idx[d] < src->sizes[d]) break;
      so -= src->strides[d] * src->sizes[d];
      d_o -= dst->strides[d] * dst->sizes[d];
      idx[d] = 0;
    }
  }
  return PTE_OK;
}
