/* aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): out = self @ mat2 */
#include "util/kernel_util.h"

#include "util/matmul.h"

static pte_status mm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *a, *b, *out;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &a));
  K_CHECK(k_tensor(ctx, args, 1, &b));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (a->dim != 2 || b->dim != 2) return K_FAIL("self and mat2 must be matrices");
  if (a->sizes[1] != b->sizes[0])
    return K_FAIL("self [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)a->sizes[0],
                  (long long)a->sizes[1], (long long)b->sizes[0], (long long)b->sizes[1]);
  if (a->dtype != b->dtype || out->dtype != a->dtype)
    return K_FAIL("dtypes must match (self %s, mat2 %s, out %s)", pte_dtype_name(a->dtype),
                  pte_dtype_name(b->dtype), pte_dtype_name(out->dtype));
  int64_t sizes[2] = {a->sizes[0], b->sizes[1]};
  K_CHECK(k_has_data(ctx, a, "self"));
  K_CHECK(k_has_data(ctx, b, "mat2"));
  K_CHECK(k_out(ctx, out, 2, sizes));
  return k_matmul(ctx, a, b, out, NULL, NULL, 1.0, 0.0);
}

PTE_PORTABLE_KERNEL(mm_out, "aten::mm.out")
