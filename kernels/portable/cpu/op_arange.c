/* aten::arange.out(Scalar end, *, Tensor(a!) out)
 * aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
 *
 * Follows ATen's CPU kernel: the bounds are converted to the accumulation
 * type of out's dtype (int64 for integers, double for float32/float64, float
 * for float16/bfloat16) and element i is start + step * i in that type. The
 * length is computed with integer arithmetic for int64 outputs and as
 * ceil((end - start) / step) in double otherwise. */
#include "util/copy_util.h"

static double scalar_d(const k_scalar *s) { return s->dtype == PTE_FLOAT64 ? s->d : (double)s->i; }

/* Scalar → int64 accumulation value (checked like Scalar::to<int64_t>). */
static pte_status scalar_i(pte_kernel_ctx *ctx, const k_scalar *s, int64_t *out) {
  if (s->dtype != PTE_FLOAT64) {
    *out = s->i;
    return PTE_OK;
  }
  double d = s->d;
  if (d != d || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
    return K_FAIL("value cannot be converted to type int64 without overflow");
  *out = (int64_t)d;
  return PTE_OK;
}

static pte_status arange_common(pte_kernel_ctx *ctx, const k_scalar *start, const k_scalar *end,
                                const k_scalar *step, pte_tensor *out) {
  int32_t dt = out->dtype;
  if (!k_is_supported(dt) || dt == PTE_BOOL)
    return K_FAIL("arange is not implemented for dtype %s", pte_dtype_name(dt));
  double size_d = 0;
  int64_t is = 0, ie = 0, ist = 0;
  double ds = scalar_d(start), de = scalar_d(end), dst = scalar_d(step);
  if (k_is_int(dt)) {
    K_CHECK(scalar_i(ctx, start, &is));
    K_CHECK(scalar_i(ctx, end, &ie));
    K_CHECK(scalar_i(ctx, step, &ist));
    if (ist == 0) return K_FAIL("step must be nonzero");
    if (!((ist > 0 && ie >= is) || (ist < 0 && ie <= is)))
      return K_FAIL("upper bound and larger bound inconsistent with step sign");
    if (dt == PTE_INT64) {
      /* (end - start + step - sign) / step without int64 overflow */
      int64_t sgn = ist > 0 ? 1 : -1;
      if ((is < 0 && ie > INT64_MAX + is) || (is > 0 && ie < INT64_MIN + is))
        return K_FAIL("invalid size, possible overflow?");
      int64_t diff = ie - is, extra = ist - sgn; /* diff and extra have step's sign (or are 0) */
      if ((extra > 0 && diff > INT64_MAX - extra) || (extra < 0 && diff < INT64_MIN - extra))
        return K_FAIL("invalid size, possible overflow?");
      if (diff + extra == INT64_MIN && ist == -1) return K_FAIL("invalid size, possible overflow?");
      size_d = (double)((diff + extra) / ist);
    } else {
      size_d = ceil((de - ds) / dst);
    }
  } else {
    if (dst == 0) return K_FAIL("step must be nonzero");
    if (!isfinite(ds) || !isfinite(de)) return K_FAIL("unsupported range: %g -> %g", ds, de);
    if (!((dst > 0 && de >= ds) || (dst < 0 && de <= ds)))
      return K_FAIL("upper bound and larger bound inconsistent with step sign");
    size_d = ceil((de - ds) / dst);
  }
  if (!(size_d >= 0 && size_d < 9223372036854775808.0)) /* 2^63 itself does not fit */
    return K_FAIL("invalid size, possible overflow?");
  int64_t size = (int64_t)size_d;
  K_CHECK(k_out(ctx, out, 1, &size));
  int64_t stride = out->strides[0];
  if (k_is_int(dt)) {
    int64_t buf[256];
    for (int64_t i = 0; i < size; i += 256) {
      int64_t m = size - i < 256 ? size - i : 256;
      for (int64_t j = 0; j < m; j++) /* wraps like ATen's int64 arithmetic */
        buf[j] = (int64_t)((uint64_t)is + (uint64_t)ist * (uint64_t)(i + j));
      k_store_row(out->data, dt, i * stride, stride, buf, K_I64, m);
    }
  } else if (dt == PTE_FLOAT16 || dt == PTE_BFLOAT16) {
    float buf[256], fs = (float)ds, fst = (float)dst;
    for (int64_t i = 0; i < size; i += 256) {
      int64_t m = size - i < 256 ? size - i : 256;
      for (int64_t j = 0; j < m; j++) buf[j] = fs + fst * (float)(i + j);
      k_store_row(out->data, dt, i * stride, stride, buf, K_F32, m);
    }
  } else {
    double buf[256];
    for (int64_t i = 0; i < size; i += 256) {
      int64_t m = size - i < 256 ? size - i : 256;
      for (int64_t j = 0; j < m; j++) buf[j] = ds + dst * (double)(i + j);
      k_store_row(out->data, dt, i * stride, stride, buf, K_F64, m);
    }
  }
  return PTE_OK;
}

static pte_status arange_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_scalar end;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(k_scalar_arg(ctx, args, 0, &end));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  k_scalar start = {PTE_INT64, 0, 0.0}, step = {PTE_INT64, 1, 1.0};
  return arange_common(ctx, &start, &end, &step, out);
}

static pte_status arange_start_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  k_scalar start, end, step;
  pte_tensor *out;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_scalar_arg(ctx, args, 0, &start));
  K_CHECK(k_scalar_arg(ctx, args, 1, &end));
  K_CHECK(k_scalar_arg(ctx, args, 2, &step));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  return arange_common(ctx, &start, &end, &step, out);
}

PTE_PORTABLE_KERNEL(arange_out, "aten::arange.out")
PTE_PORTABLE_KERNEL(arange_start_out, "aten::arange.start_out")
