/* aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
 *                 Scalar alpha=1, Tensor(a!) out): out = beta*self + alpha*(mat1 @ mat2).
 * What every exported nn.Linear runs (self = the bias row). A bias that is
 * a row ([N] or [1, N]) or a column ([M, 1]) is added in the GEMM's
 * epilogue; any other broadcast of self is written to out first and the
 * product accumulated onto it. */
#include "util/opt_util.h"
#include "util/packed.h"

static bool addmm_accepts(pte_value *const *args, int32_t nargs) {
  double d;
  if (nargs != 7) return false; /* the out tensor comes back as a last argument */
  if (!k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 1) || !k_arg_f32(args, nargs, 2) ||
      !k_arg_f32(args, nargs, 5))
    return false;
  if (!k_arg_num(args, nargs, 3, &d) || !k_arg_num(args, nargs, 4, &d)) return false;
  return args[0]->u.tensor->dim <= 2 && args[1]->u.tensor->dim == 2 && args[2]->u.tensor->dim == 2;
}

static size_t addmm_scratch(pte_value *const *args, int32_t nargs) {
  (void)nargs;
  return o_mm_scratch(args[1]->u.tensor, args[2]->u.tensor);
}

/* pre: mat2 packed at load (o_addmm_prepare), or NULL */
static pte_status addmm_run(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const o_packed_b *pre) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *self = args[0]->u.tensor, *a = args[1]->u.tensor, *b = args[2]->u.tensor;
  pte_tensor *out = args[5]->u.tensor;
  double beta = 1.0, alpha = 1.0;
  k_arg_num(args, nargs, 3, &beta);
  k_arg_num(args, nargs, 4, &alpha);
  const int64_t M = a->sizes[0], N = b->sizes[1], K = a->sizes[1];
  if (a->sizes[1] != b->sizes[0])
    return K_FAIL("mat1 [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)M, (long long)K,
                  (long long)b->sizes[0], (long long)N);
  /* self broadcasts to [M, N]: sizes right-aligned, each 1 or equal */
  int64_t ss[2] = {1, 1}, st[2] = {0, 0};
  for (int32_t i = 0; i < self->dim; i++) {
    int32_t d = 2 - self->dim + i;
    ss[d] = self->sizes[i];
    st[d] = self->sizes[i] == 1 ? 0 : self->strides[i];
  }
  if ((ss[0] != 1 && ss[0] != M) || (ss[1] != 1 && ss[1] != N))
    return K_FAIL("self does not broadcast to the result");
  int64_t sizes[2] = {M, N};
  K_CHECK(k_out(ctx, out, 2, sizes));
  k_sgemm_desc g;
  K_CHECK(o_mm_desc(ctx, a, b, out, &g));
  if (pre && !o_packed_fits(pre, K, N)) return K_FAIL("mat2 is not the one packed at load");
  o_packed_desc(pre, &g);
  g.alpha = (float)alpha;
  g.beta = (float)beta;
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
  k_sgemm(&g);
  return PTE_OK;
}

static pte_status addmm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return addmm_run(ctx, args, nargs, NULL);
}

static pte_status addmm_packed(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return addmm_run(ctx, args, nargs, (const o_packed_b *)pte_kernel_state(ctx));
}

/* A constant mat2 (every exported nn.Linear's transposed weight, folded at
 * load) that only this instruction reads is packed once for the GEMM's
 * microkernel: the packing of B per call was 14% of a ViT. */
bool o_addmm_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act) {
  static const pte_kernel packed = {"aten::addmm.out", addmm_packed, addmm_accepts, addmm_scratch};
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  if (!args || !addmm_accepts(args, n) || !o_packable(rw, i, args[2], 2)) return false;
  const pte_tensor *b = args[2]->u.tensor;
  const o_packed_b *st =
      o_pack_b(rw, i, args[2], b->sizes[0], b->sizes[1], b->strides[0], b->strides[1], act);
  return st && pte_rewrite_set_kernel(rw, i, &packed, st);
}

bool o_addmm_prepare(pte_rewrite *rw, int32_t i) { return o_addmm_prepare_act(rw, i, NULL); }

PTE_OPT_KERNEL(addmm_out, "aten::addmm.out", addmm_accepts, addmm_scratch)
