/* quantized_decomposed::mixed_linear.out(Tensor input, Tensor weight,
 *     Tensor weight_scales, Tensor? weight_zero_points,
 *     ScalarType? dtype=None, *, Tensor(a!) out)
 *
 * out[M, N] = input[M, K] @ weight[N, K]^T with an int8 weight scaled per
 * output row (weight_scales [N]) or per group of a row ([N, G]: groups of
 * ceil(K / G) elements, the last one possibly shorter): each group's
 * products are summed in float32, then scaled and added. Input and scales
 * float32 or float16 (the same), out float32 or float16 (dtype, when given,
 * must be it); zero points are refused, as ExecuTorch does. */
#include "util/qutil.h"

static pte_status mixed_linear_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *x, *w, *s, *zp, *out;
  int32_t dtype;
  bool has_dtype;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &x));
  K_CHECK(k_tensor(ctx, args, 1, &w));
  K_CHECK(k_tensor(ctx, args, 2, &s));
  K_CHECK(k_opt_tensor(ctx, args, 3, &zp));
  K_CHECK(k_opt_dtype(ctx, args, 4, &dtype, &has_dtype));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  if (x->dim != 2 || w->dim != 2 || (s->dim != 1 && s->dim != 2))
    return K_FAIL("input and weight must be 2-D, weight_scales 1-D or 2-D");
  const int64_t M = x->sizes[0], K = x->sizes[1], N = w->sizes[0];
  if (w->sizes[1] != K || s->sizes[0] != N)
    return K_FAIL("input [%lld, %lld], weight [%lld, %lld] and %lld rows of scales do not fit", (long long)M,
                  (long long)K, (long long)N, (long long)w->sizes[1], (long long)s->sizes[0]);
  const int64_t G = s->dim == 2 ? s->sizes[1] : 1;
  if (G < 1 || (K > 0 && G > K))
    return K_FAIL("%lld scale groups for rows of %lld", (long long)G, (long long)K);
  const int64_t gsize = K > 0 ? (K + G - 1) / G : 1;
  /* the groups the scales describe must be the groups of that size */
  if (K > 0 && (K + gsize - 1) / gsize != G)
    return K_FAIL("%lld scale groups do not split rows of %lld into equal groups", (long long)G,
                  (long long)K);
  if (w->dtype != PTE_INT8) return K_FAIL("weight is %s, expected int8", pte_dtype_name(w->dtype));
  if ((x->dtype != PTE_FLOAT32 && x->dtype != PTE_FLOAT16) || s->dtype != x->dtype)
    return K_FAIL("input and weight_scales must both be float32 or float16 (are %s, %s)",
                  pte_dtype_name(x->dtype), pte_dtype_name(s->dtype));
  if (out->dtype != PTE_FLOAT32 && out->dtype != PTE_FLOAT16)
    return K_FAIL("out is %s, expected float32 or float16", pte_dtype_name(out->dtype));
  if (has_dtype && dtype != out->dtype)
    return K_FAIL("out is %s but dtype says %s", pte_dtype_name(out->dtype), pte_dtype_name(dtype));
  if (zp) return K_FAIL("weight zero points are not supported");
  K_CHECK(k_contiguous(ctx, x, "input"));
  K_CHECK(k_contiguous(ctx, w, "weight"));
  K_CHECK(k_contiguous(ctx, s, "weight_scales"));
  K_CHECK(k_args_have_data(ctx, args, 4));
  const int64_t sizes[2] = {M, N};
  K_CHECK(k_out(ctx, out, 2, sizes));
  K_CHECK(k_contiguous(ctx, out, "out"));
  if (k_overlap(out, x) || k_overlap(out, w) || k_overlap(out, s))
    return K_FAIL("out must not share memory with the inputs");
  const int8_t *wq = (const int8_t *)w->data;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float acc = 0;
      for (int64_t k0 = 0; k0 < K; k0 += gsize) {
        float part = 0;
        const int64_t k1 = k0 + gsize < K ? k0 + gsize : K;
        for (int64_t k = k0; k < k1; k++)
          part += q_load_f(x->data, x->dtype, i * K + k) * (float)wq[j * K + k];
        acc += part * q_load_f(s->data, s->dtype, j * G + k0 / gsize);
      }
      q_store_f(out->data, out->dtype, i * N + j, acc);
    }
  return PTE_OK;
}

PTE_QUANT_KERNEL(mixed_linear_out, "quantized_decomposed::mixed_linear.out")
