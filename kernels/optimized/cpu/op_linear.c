/* aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *,
 * Tensor(a!) out): out[..., N] = input[..., K] @ weight[N, K]^T + bias. The
 * weight is read transposed by the packing (no copy), the bias added in the
 * GEMM epilogue. */
#include "util/opt_util.h"
#include "util/packed.h"

static bool linear_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 5) return false; /* the out tensor comes back as a last argument */
  if (!k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 1) || !k_arg_f32(args, nargs, 3)) return false;
  if (!k_arg_none(args, nargs, 2) && !(k_arg_f32(args, nargs, 2) && args[2]->u.tensor->dim == 1))
    return false;
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
  return k_scratch_round(k_sgemm_scratch(M, N, K));
}

/* pre: the weight packed at load (o_linear_prepare), or NULL */
static pte_status linear_run(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const o_packed_b *pre) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor, *w = args[1]->u.tensor;
  const pte_tensor *bias = args[2]->tag == PTE_TAG_TENSOR ? args[2]->u.tensor : NULL;
  pte_tensor *out = args[3]->u.tensor;
  int64_t M, N, K;
  dims(x, w, &M, &N, &K);
  if (w->sizes[1] != K)
    return K_FAIL("input's last dim %lld does not match weight [%lld, %lld]", (long long)K,
                  (long long)w->sizes[0], (long long)w->sizes[1]);
  if (bias && bias->sizes[0] != N)
    return K_FAIL("bias has %lld entries, expected %lld", (long long)bias->sizes[0], (long long)N);
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t i = 0; i < x->dim; i++) sizes[i] = x->sizes[i];
  sizes[x->dim - 1] = N;
  K_CHECK(k_out(ctx, out, x->dim, sizes));
  size_t bytes;
  float *scratch = k_scratch(ctx, &bytes);
  if (bytes < k_sgemm_scratch_min(M, N, K)) return K_FAIL("scratch memory too small");
  if (pre && !o_packed_fits(pre, K, N)) return K_FAIL("weight is not the one packed at load");
  k_sgemm_desc g = {.M = M,
                    .N = N,
                    .K = K,
                    .a = x->data,
                    .sa0 = K,
                    .sa1 = 1,
                    .b = w->data,
                    .sb0 = 1,
                    .sb1 = K,
                    .c = out->data,
                    .sc0 = N,
                    .alpha = 1.0f,
                    .beta = 1.0f,
                    .col_bias = bias ? (const float *)bias->data : NULL,
                    .scratch = scratch,
                    .scratch_bytes = bytes,
                    .parallel = true};
  o_packed_desc(pre, &g);
  k_sgemm(&g);
  return PTE_OK;
}

static pte_status linear_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return linear_run(ctx, args, nargs, NULL);
}

static pte_status linear_packed(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return linear_run(ctx, args, nargs, (const o_packed_b *)pte_kernel_state(ctx));
}

/* A constant weight [N, K] only this instruction reads is packed once, as
 * B = weight^T (see o_addmm_prepare); its file pages are given back. */
bool o_linear_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act) {
  static const pte_kernel packed = {"aten::linear.out", linear_packed, linear_accepts, linear_scratch};
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  if (!args || !linear_accepts(args, n) || !o_packable(rw, i, args[1], 2)) return false;
  const pte_tensor *w = args[1]->u.tensor;
  if (!pte_tensor_is_contiguous(w)) return false;
  const o_packed_b *st = o_pack_b(rw, i, args[1], w->sizes[1], w->sizes[0], 1, w->sizes[1], act);
  return st && pte_rewrite_set_kernel(rw, i, &packed, st);
}

bool o_linear_prepare(pte_rewrite *rw, int32_t i) { return o_linear_prepare_act(rw, i, NULL); }

PTE_OPT_KERNEL(linear_out, "aten::linear.out", linear_accepts, linear_scratch)
