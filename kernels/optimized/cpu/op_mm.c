/* aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): float32 on the
 * packed GEMM (util/gemm.c). */
#include "util/gemm.h"

static bool mm_accepts(pte_value *const *args, int32_t nargs) {
  if (nargs != 4) return false; /* the out tensor comes back as a last argument */
  for (int32_t i = 0; i < 3; i++)
    if (!o_f32_arg(args, nargs, i)) return false;
  return args[0]->u.tensor->dim == 2 && args[1]->u.tensor->dim == 2;
}

static size_t mm_scratch(pte_value *const *args, int32_t nargs) {
  const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  (void)nargs;
  return o_scratch_round(o_gemm_scratch(a->sizes[0], b->sizes[1], a->sizes[1]));
}

static pte_status mm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  O_CHECK(o_have_data(ctx, args, nargs));
  const pte_tensor *a = args[0]->u.tensor, *b = args[1]->u.tensor;
  pte_tensor *out = args[2]->u.tensor;
  if (a->sizes[1] != b->sizes[0])
    return O_FAIL("self [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)a->sizes[0],
                  (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
  int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
  O_CHECK(o_out(ctx, out, 2, sizes));
  size_t bytes;
  float *scratch = o_scratch(ctx, &bytes);
  if (bytes < o_gemm_scratch_min(sizes[0], sizes[1], a->sizes[1])) return O_FAIL("scratch memory too small");
  o_gemm g = {sizes[0], sizes[1], a->sizes[1], a->data, a->strides[0], a->strides[1], b->data, b->strides[0],
              b->strides[1], NULL, NULL, out->data, out->strides[0], 1.0f, 0.0f, NULL, NULL, false};
  o_gemm_run(&g, scratch, bytes, true);
  return PTE_OK;
}

PTE_OPT_KERNEL(mm_out, "aten::mm.out", mm_accepts, mm_scratch)
