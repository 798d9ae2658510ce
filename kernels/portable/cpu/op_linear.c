/* aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
 * out[..., N] = input[..., K] @ weight[N, K]^T + bias[N], every dtype the
 * matrix products take: the leading dims of input are walked as the rows
 * (so they must be contiguous among themselves), the weight is read
 * transposed through its strides. */
#include "util/kernel_util.h"

#include "util/matmul.h"

/* The stride between consecutive rows when the leading dims (all but the
 * last) are one evenly strided run; false otherwise. */
static bool row_stride(const pte_tensor *t, int64_t *rs) {
  int64_t rows = 1;
  *rs = 0;
  for (int32_t i = t->dim - 2; i >= 0; i--) {
    if (t->sizes[i] == 1) continue;
    if (rows == 1) *rs = t->strides[i];
    else if (t->strides[i] != *rs * rows) return false;
    rows *= t->sizes[i];
  }
  return true;
}

static pte_status linear_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *x, *w, *bias, *out;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(k_tensor(ctx, args, 0, &x));
  K_CHECK(k_tensor(ctx, args, 1, &w));
  K_CHECK(k_opt_tensor(ctx, args, 2, &bias));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if (x->dim < 1 || w->dim != 2)
    return K_FAIL("input must have at least 1 dim and weight 2 (got %d and %d)", (int)x->dim, (int)w->dim);
  const int64_t K = x->sizes[x->dim - 1], N = w->sizes[0];
  if (w->sizes[1] != K)
    return K_FAIL("input [..., %lld] and weight [%lld, %lld] cannot be multiplied", (long long)K,
                  (long long)N, (long long)w->sizes[1]);
  if (w->dtype != x->dtype || out->dtype != x->dtype || (bias && bias->dtype != x->dtype))
    return K_FAIL("dtypes must match (input %s, weight %s, bias %s, out %s)", pte_dtype_name(x->dtype),
                  pte_dtype_name(w->dtype), bias ? pte_dtype_name(bias->dtype) : "none",
                  pte_dtype_name(out->dtype));
  if (bias && (bias->dim != 1 || bias->sizes[0] != N))
    return K_FAIL("bias must have shape [%lld]", (long long)N);
  int64_t sizes[PTE_MAX_DIM], M = 1;
  for (int32_t i = 0; i + 1 < x->dim; i++) {
    sizes[i] = x->sizes[i];
    M *= x->sizes[i];
  }
  sizes[x->dim - 1] = N;
  K_CHECK(k_out(ctx, out, x->dim, sizes));
  if (M == 0 || N == 0) return PTE_OK;
  K_CHECK(k_has_data(ctx, x, "input"));
  K_CHECK(k_has_data(ctx, w, "weight"));
  if (bias) K_CHECK(k_has_data(ctx, bias, "bias"));
  int64_t sx0, so0;
  if (!row_stride(x, &sx0) || !row_stride(out, &so0))
    return K_FAIL("input's and out's leading dims must be contiguous");
  if (!k_is_supported(x->dtype) || x->dtype == PTE_BOOL)
    return K_FAIL("matrix products are not supported for %s", pte_dtype_name(x->dtype));
  k_gemm(x->dtype, M, N, K, x->data, sx0, x->strides[x->dim - 1], w->data, w->strides[1], w->strides[0],
         out->data, so0, out->strides[out->dim - 1], bias ? bias->data : NULL, 0, bias ? bias->strides[0] : 0,
         1.0, bias ? 1.0 : 0.0);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(linear_out, "aten::linear.out")
