/* aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
 *                 Scalar alpha=1, Tensor(a!) out): out = beta*self + alpha*(mat1 @ mat2).
 * What every exported nn.Linear runs (self = the bias row). A bias that is
 * a row ([N] or [1, N]) or a column ([M, 1]) is added in the GEMM's
 * epilogue; any other broadcast of self is written to out first and the
 * product accumulated onto it. */
#include "util/gemm.h"

static bool addmm_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  if (nargs != 7) return false; /* the out tensor comes back as a last argument */
  if (!o_f32_arg(args, nargs, 0) || !o_f32_arg(args, nargs, 1) || !o_f32_arg(args, nargs, 2) ||
      !o_f32_arg(args, nargs, 5))
    return false;
  if (!o_num(args, nargs, 3, &d) || !o_num(args, nargs, 4, &d)) return false;
  return args[0]->u.tensor->dim <= 2 && args[1]->u.tensor->dim == 2 && args[2]->u.tensor->dim == 2;
}

static size_t addmm_scratch(pte_value *const *args, int32_t nargs) {
  const pte_tensor *a = args[1]->u.tensor, *b = args[2]->u.tensor;
  (void)nargs;
  return o_scratch_round(o_gemm_scratch(a->sizes[0], b->sizes[1], a->sizes[1]));
}

static pte_status addmm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  const pte_tensor *self = args[0]->u.tensor, *a = args[1]->u.tensor, *b = args[2]->u.tensor;
  pte_tensor *out = args[5]->u.tensor;
  double beta = 1.0, alpha = 1.0;
  o_num(args, nargs, 3, &beta);
  o_num(args, nargs, 4, &alpha);
  const int64_t M = a->sizes[0], N = b->sizes[1], K = a->sizes[1];
  if (a->sizes[1] != b->sizes[0])
    return O_FAIL("mat1 [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)M, (long long)K,
                  (long long)b->sizes[0], (long long)N);
  /* self broadcasts to [M, N]: sizes right-aligned, each 1 or equal */
  int64_t ss[2] = {1, 1}, st[2] = {0, 0};
  for (int32_t i = 0; i < self->dim; i++) {
    int32_t d = 2 - self->dim + i;
    ss[d] = self->sizes[i];
    st[d] = self->sizes[i] == 1 ? 0 : self->strides[i];
  }
  if ((ss[0] != 1 && ss[0] != M) || (ss[1] != 1 && ss[1] != N)) return O_FAIL("self does not broadcast to the result");
  int64_t sizes[2] = {M, N};
  O_CHECK(o_out(ctx, out, 2, sizes));
  size_t bytes;
  float *scratch = o_scratch(ctx, &bytes);
  if (bytes < o_gemm_scratch_min(M, N, K)) return O_FAIL("scratch memory too small");
  o_gemm g = {M, N, K, a->data, a->strides[0], a->strides[1], b->data, b->strides[0], b->strides[1], NULL, NULL,
              out->data, out->strides[0], (float)alpha, (float)beta, NULL, NULL, false};
  const float *s = self->data;
  if (beta != 0.0) {
    if (st[0] == 0 && (st[1] == 1 || N == 1)) {
      g.col_bias = s; /* a bias row: every nn.Linear */
    } else if (st[1] == 0 && (st[0] == 1 || M == 1)) {
      g.row_bias = s;
    } else {
      float *c = out->data;
      for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) c[i * N + j] = (float)beta * s[i * st[0] + j * st[1]];
      g.accumulate = true;
    }
  }
  o_gemm_run(&g, scratch, bytes, true);
  return PTE_OK;
}

PTE_OPT_KERNEL(addmm_out, "aten::addmm.out", addmm_accepts, addmm_scratch)
