/* aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *,
 * Tensor(a!) out): out[..., N] = input[..., K] @ weight[N, K]^T + bias. The
 * weight is read transposed by the packing (no copy), the bias added in the
 * GEMM epilogue. */
#include "util/gemm.h"

static bool linear_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 5) return false; /* the out tensor comes back as a last argument */
  if (!o_f32_arg(args, nargs, 0) || !o_f32_arg(args, nargs, 1) || !o_f32_arg(args, nargs, 3)) return false;
  if (!o_is_none(args, nargs, 2) && !(o_f32_arg(args, nargs, 2) && args[2]->u.tensor->dim == 1)) return false;
  return args[0]->u.tensor->dim >= 1 && args[1]->u.tensor->dim == 2;
}

static void dims(const pte_tensor *x, const pte_tensor *w, int64_t *M, int64_t *N, int64_t *K) {
  *K = x->sizes[x->dim - 1];
  *M = *K ? pte_tensor_numel(x) / *K : 0;
  if (!*K) {
    *M = 1;
    for (int32_t i = 0; i + 1 < x->dim; i++) *M *= x->sizes[i];
  }
  *N = w->sizes[0];
}

static size_t linear_scratch(pte_value *const *args, int32_t nargs) {
  int64_t M, N, K;
  (void)nargs;
  dims(args[0]->u.tensor, args[1]->u.tensor, &M, &N, &K);
  return o_scratch_round(o_gemm_scratch(M, N, K));
}

static pte_status linear_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor, *w = args[1]->u.tensor;
  const pte_tensor *bias = args[2]->tag == PTE_TAG_TENSOR ? args[2]->u.tensor : NULL;
  pte_tensor *out = args[3]->u.tensor;
  int64_t M, N, K;
  dims(x, w, &M, &N, &K);
  if (w->sizes[1] != K) return O_FAIL("input's last dim %lld does not match weight [%lld, %lld]", (long long)K,
                                      (long long)w->sizes[0], (long long)w->sizes[1]);
  if (bias && bias->sizes[0] != N) return O_FAIL("bias has %lld entries, expected %lld", (long long)bias->sizes[0], (long long)N);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t i = 0; i < x->dim; i++) sizes[i] = x->sizes[i];
  sizes[x->dim - 1] = N;
  O_CHECK(o_out(ctx, out, x->dim, sizes));
  size_t bytes;
  float *scratch = o_scratch(ctx, &bytes);
  if (bytes < o_gemm_scratch_min(M, N, K)) return O_FAIL("scratch memory too small");
  o_gemm g = {M, N, K, x->data, K, 1, w->data, 1, K, NULL, NULL, out->data, N,
              1.0f, 1.0f, NULL, bias ? (const float *)bias->data : NULL, false};
  o_gemm_run(&g, scratch, bytes, true);
  return PTE_OK;
}

PTE_OPT_KERNEL(linear_out, "aten::linear.out", linear_accepts, linear_scratch)
