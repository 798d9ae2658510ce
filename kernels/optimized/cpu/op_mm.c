/* aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): float32 on the
 * kernel layer's packed GEMM (k_sgemm, kernels/layer). */
#include "util/opt_util.h"
#include "util/packed.h"

static bool mm_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 4) return false; /* the out tensor comes back as a last argument */
  for (int32_t i = 0; i < 3; i++)
    if (!k_arg_f32(args, nargs, i)) return false;
  return args[0]->u.tensor->dim == 2 && args[1]->u.tensor->dim == 2;
}

static size_t mm_scratch(pte_value *const *args, int32_t nargs) {
  (void)nargs;
  return o_mm_scratch(args[0]->u.tensor, args[1]->u.tensor);
}

/* pre: mat2 packed at load (o_mm_prepare), or NULL */
static pte_status mm_run(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const o_packed_b *pre) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  pte_tensor *out = args[2]->u.tensor;
  if (a->sizes[1] != b->sizes[0])
    return K_FAIL("self [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)a->sizes[0],
                  (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
  int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
  K_CHECK(k_out(ctx, out, 2, sizes));
  k_sgemm_desc g;
  K_CHECK(o_mm_desc(ctx, a, b, out, &g));
  if (pre && !o_packed_fits(pre, b->sizes[0], b->sizes[1]))
    return K_FAIL("mat2 is not the one packed at load");
  o_packed_desc(pre, &g);
  k_sgemm(&g);
  return PTE_OK;
}

static pte_status mm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return mm_run(ctx, args, nargs, NULL);
}

static pte_status mm_packed(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return mm_run(ctx, args, nargs, (const o_packed_b *)pte_kernel_state(ctx));
}

/* A constant mat2 only this instruction reads is packed once (see
 * o_addmm_prepare). */
bool o_mm_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act) {
  static const pte_kernel packed = {"aten::mm.out", mm_packed, mm_accepts, mm_scratch};
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  if (!args || !mm_accepts(args, n) || !o_packable(rw, i, args[1], 2)) return false;
  const pte_tensor *b = args[1]->u.tensor;
  const o_packed_b *st =
      o_pack_b(rw, i, args[1], b->sizes[0], b->sizes[1], b->strides[0], b->strides[1], act);
  return st && pte_rewrite_set_kernel(rw, i, &packed, st);
}

bool o_mm_prepare(pte_rewrite *rw, int32_t i) { return o_mm_prepare_act(rw, i, NULL); }

PTE_OPT_KERNEL(mm_out, "aten::mm.out", mm_accepts, mm_scratch)
