/* aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): float32 on the
 * kernel layer's packed GEMM (k_sgemm, kernels/layer). */
#include "util/opt_util.h"

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

static pte_status mm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
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
  k_sgemm(&g);
  return PTE_OK;
}

PTE_OPT_KERNEL(mm_out, "aten::mm.out", mm_accepts, mm_scratch)
