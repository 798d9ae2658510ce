/* The quantized embedding lookups: rows of an 8-, 4- or 2-bit table,
 * dequantized with per-row (or per-row-group) float scales and zero points.
 * Sub-byte tables pack 8/nbit values per byte: 4-bit with the even element
 * in the high nibble, 2-bit with element 0 in the low bits, both stored
 * unsigned with an offset (8 and 2) taken off when read. */
#include "qutil.h"

static inline int32_t packed_value(const uint8_t *row, int64_t j, int nbit) {
  if (nbit == 4) {
    uint8_t b = row[j >> 1];
    return (int32_t)((j & 1) ? (b & 0x0f) : (b >> 4)) - 8;
  }
  return (int32_t)((row[j >> 2] >> (2 * (j & 3))) & 3) - 2;
}

pte_status q_embedding(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int nbit, bool with_dtype) {
  pte_tensor *w, *scales, *zps, *idx, *out;
  int64_t qmin, qmax;
  int32_t dtype = -1;
  bool has_dtype = false;
  K_CHECK(k_nargs(ctx, nargs, with_dtype ? 9 : 8));
  K_CHECK(k_tensor(ctx, args, 0, &w));
  K_CHECK(k_tensor(ctx, args, 1, &scales));
  K_CHECK(k_opt_tensor(ctx, args, 2, &zps));
  K_CHECK(k_int(ctx, args, 3, &qmin));
  K_CHECK(k_int(ctx, args, 4, &qmax));
  K_CHECK(k_tensor(ctx, args, 5, &idx));
  if (with_dtype) K_CHECK(k_opt_dtype(ctx, args, 6, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, with_dtype ? 7 : 6, &out));

  if (w->dim != 2) return K_FAIL("weight must be 2-D, not %d-D", (int)w->dim);
  if (nbit == 8 ? (w->dtype != PTE_UINT8 && w->dtype != PTE_INT8) : w->dtype != PTE_UINT8)
    return K_FAIL("weight is %s, expected %s", pte_dtype_name(w->dtype),
                  nbit == 8 ? "uint8 or int8" : "uint8");
  const int64_t rows = w->sizes[0], packed = w->sizes[1];
  if (packed > INT64_MAX / 8) return K_FAIL("weight is too wide");
  const int64_t dim = packed * (8 / nbit);
  if (scales->dim != 1 && scales->dim != 2) return K_FAIL("weight_scales must be 1-D or 2-D");
  if (scales->sizes[0] != rows)
    return K_FAIL("%lld rows of scales for a weight of %lld rows", (long long)scales->sizes[0],
                  (long long)rows);
  const int64_t groups = scales->dim == 2 ? scales->sizes[1] : 1;
  if (groups < 1 || dim % groups)
    return K_FAIL("%lld groups do not divide the embedding dim %lld", (long long)groups, (long long)dim);
  const int64_t gsize = dim / groups;
  if (!q_is_float(out->dtype)) return K_FAIL("out is %s, expected a float dtype", pte_dtype_name(out->dtype));
  if (has_dtype && dtype != out->dtype)
    return K_FAIL("out is %s but dtype says %s", pte_dtype_name(out->dtype), pte_dtype_name(dtype));
  /* .out takes the scales in out's dtype; .dtype_out any float dtype */
  if (!q_is_float(scales->dtype) || (!with_dtype && scales->dtype != out->dtype))
    return K_FAIL("weight_scales are %s, expected %s", pte_dtype_name(scales->dtype),
                  with_dtype ? "a float dtype" : pte_dtype_name(out->dtype));
  if (zps) {
    if (zps->dim != scales->dim || zps->sizes[0] != scales->sizes[0] ||
        (zps->dim == 2 && zps->sizes[1] != groups))
      return K_FAIL("weight_zero_points must have the shape of weight_scales");
    if (!q_is_float(zps->dtype))
      return K_FAIL("weight_zero_points are %s, expected a float dtype", pte_dtype_name(zps->dtype));
  }
  if (qmin > qmax)
    return K_FAIL("weight quant_min %lld is greater than quant_max %lld", (long long)qmin, (long long)qmax);
  if (idx->dtype != PTE_INT64 && idx->dtype != PTE_INT32)
    return K_FAIL("indices are %s, expected int64 or int32", pte_dtype_name(idx->dtype));
  if (idx->dim + 1 > PTE_MAX_DIM) return K_FAIL("indices have too many dims");
  K_CHECK(k_contiguous(ctx, w, "weight"));
  K_CHECK(k_contiguous(ctx, scales, "weight_scales"));
  if (zps) K_CHECK(k_contiguous(ctx, zps, "weight_zero_points"));
  K_CHECK(k_contiguous(ctx, idx, "indices"));
  K_CHECK(k_args_have_data(ctx, args, nargs - 2));

  /* every index in range, and the parameters of the rows it reads finite
   * (any value, but not NaN or infinite; only those rows: a vocabulary can
   * be large) */
  const int64_t n = pte_tensor_numel(idx);
  for (int64_t i = 0; i < n; i++) {
    int64_t r = idx->dtype == PTE_INT64 ? ((const int64_t *)idx->data)[i] : ((const int32_t *)idx->data)[i];
    if (r < 0 || r >= rows)
      return K_FAIL("index %lld is out of range for %lld rows", (long long)r, (long long)rows);
    for (int64_t p = r * groups; p < (r + 1) * groups; p++) {
      double s = q_load_d(scales->data, scales->dtype, p);
      double z = zps ? q_load_d(zps->data, zps->dtype, p) : 0;
      if (!isfinite(s) || !isfinite(z))
        return K_FAIL("weight scale %g / zero point %g (row %lld) is not finite", s, z, (long long)r);
    }
  }
  int64_t sizes[PTE_MAX_DIM];
  memcpy(sizes, idx->sizes, sizeof(int64_t) * (size_t)idx->dim);
  sizes[idx->dim] = dim;
  K_CHECK(k_out(ctx, out, idx->dim + 1, sizes));
  K_CHECK(k_contiguous(ctx, out, "out"));
  if (k_overlap(out, w) || k_overlap(out, idx) || k_overlap(out, scales) || (zps && k_overlap(out, zps)))
    return K_FAIL("out must not share memory with the inputs");

  for (int64_t i = 0; i < n; i++) {
    int64_t r = idx->dtype == PTE_INT64 ? ((const int64_t *)idx->data)[i] : ((const int32_t *)idx->data)[i];
    const uint8_t *row = (const uint8_t *)w->data + r * packed;
    for (int64_t j = 0; j < dim; j++) {
      int64_t p = r * groups + j / gsize;
      float s = q_load_f(scales->data, scales->dtype, p);
      float z = zps ? q_load_f(zps->data, zps->dtype, p) : 0.0f;
      float q = nbit == 8 ? (w->dtype == PTE_INT8 ? (float)((const int8_t *)row)[j] : (float)row[j])
                          : (float)packed_value(row, j, nbit);
      q_store_f(out->data, out->dtype, i * dim + j, (q - z) * s);
    }
  }
  return PTE_OK;
}
