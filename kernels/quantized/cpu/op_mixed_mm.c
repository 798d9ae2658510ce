/* quantized_decomposed::mixed_mm.out(Tensor input, Tensor weight,
 *     Tensor weight_scales, Tensor? weight_zero_points, *, Tensor(a!) out)
 *
 * out[M, N] = input[M, K] @ (weight[K, N] (int8) * weight_scales[K]), the
 * scale per row of the weight, summed in float32 in k order (input, scales
 * and out float32 or float16, all the same). Zero points are refused, as
 * ExecuTorch does. */
#include "util/qutil.h"

static pte_status mixed_mm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *x, *w, *s, *zp, *out;
  K_CHECK(k_nargs(ctx, nargs, 6));
  K_CHECK(k_tensor(ctx, args, 0, &x));
  K_CHECK(k_tensor(ctx, args, 1, &w));
  K_CHECK(k_tensor(ctx, args, 2, &s));
  K_CHECK(k_opt_tensor(ctx, args, 3, &zp));
  K_CHECK(k_tensor(ctx, args, 4, &out));
  if (x->dim != 2 || w->dim != 2 || s->dim != 1)
    return K_FAIL("input and weight must be 2-D, weight_scales 1-D");
  if (x->sizes[1] != w->sizes[0] || s->sizes[0] != w->sizes[0])
    return K_FAIL("input [%lld, %lld], weight [%lld, %lld] and %lld scales do not fit",
                  (long long)x->sizes[0], (long long)x->sizes[1], (long long)w->sizes[0],
                  (long long)w->sizes[1], (long long)s->sizes[0]);
  if (w->dtype != PTE_INT8) return K_FAIL("weight is %s, expected int8", pte_dtype_name(w->dtype));
  if ((x->dtype != PTE_FLOAT32 && x->dtype != PTE_FLOAT16) || s->dtype != x->dtype || out->dtype != x->dtype)
    return K_FAIL("input, weight_scales and out must all be float32 or all float16 (are %s, %s, %s)",
                  pte_dtype_name(x->dtype), pte_dtype_name(s->dtype), pte_dtype_name(out->dtype));
  if (zp) return K_FAIL("weight zero points are not supported");
  K_CHECK(k_contiguous(ctx, x, "input"));
  K_CHECK(k_contiguous(ctx, w, "weight"));
  K_CHECK(k_contiguous(ctx, s, "weight_scales"));
  K_CHECK(k_args_have_data(ctx, args, 3));
  const int64_t M = x->sizes[0], K = x->sizes[1], N = w->sizes[1];
  const int64_t sizes[2] = {M, N};
  K_CHECK(k_out(ctx, out, 2, sizes));
  K_CHECK(k_contiguous(ctx, out, "out"));
  if (k_overlap(out, x) || k_overlap(out, w) || k_overlap(out, s))
    return K_FAIL("out must not share memory with the inputs");
  const int8_t *wq = (const int8_t *)w->data;
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < N; j++) {
      float acc = 0;
      for (int64_t k = 0; k < K; k++)
        acc += q_load_f(x->data, x->dtype, i * K + k) * (float)wq[k * N + j] * q_load_f(s->data, s->dtype, k);
      q_store_f(out->data, out->dtype, i * N + j, acc);
    }
  return PTE_OK;
}

PTE_QUANT_KERNEL(mixed_mm_out, "quantized_decomposed::mixed_mm.out")
