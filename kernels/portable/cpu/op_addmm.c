/* aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1,
 *                 Scalar alpha=1, Tensor(a!) out): out = beta*self + alpha*(mat1 @ mat2) */
#include "util/kernel_util.h"

#include "util/matmul.h"

static pte_status addmm_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *m1, *m2, *out;
  double beta, alpha;
  K_CHECK(k_nargs(ctx, nargs, 7));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_tensor(ctx, args, 1, &m1));
  K_CHECK(k_tensor(ctx, args, 2, &m2));
  K_CHECK(k_double(ctx, args, 3, &beta));
  K_CHECK(k_double(ctx, args, 4, &alpha));
  K_CHECK(k_tensor(ctx, args, 5, &out));
  if (m1->dim != 2 || m2->dim != 2) return K_FAIL("mat1 and mat2 must be matrices");
  if (m1->sizes[1] != m2->sizes[0])
    return K_FAIL("mat1 [%lld, %lld] and mat2 [%lld, %lld] cannot be multiplied", (long long)m1->sizes[0],
                  (long long)m1->sizes[1], (long long)m2->sizes[0], (long long)m2->sizes[1]);
  if (m1->dtype != m2->dtype || self->dtype != m1->dtype || out->dtype != m1->dtype)
    return K_FAIL("dtypes must match (self %s, mat1 %s, mat2 %s, out %s)", pte_dtype_name(self->dtype),
                  pte_dtype_name(m1->dtype), pte_dtype_name(m2->dtype), pte_dtype_name(out->dtype));
  int64_t sizes[2] = {m1->sizes[0], m2->sizes[1]};
  /* self broadcasts to the result shape */
  const pte_tensor *ts[1] = {self};
  int32_t bd;
  int64_t bs[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ts, 1, &bd, bs));
  if (self->dim > 2) return K_FAIL("self must have at most 2 dims");
  pte_tensor shape;
  pte_tensor_init(&shape, out->dtype, 2, sizes, NULL);
  const pte_tensor *both[2] = {self, &shape};
  K_CHECK(k_broadcast_shape(ctx, both, 2, &bd, bs));
  if (bd != 2 || bs[0] != sizes[0] || bs[1] != sizes[1])
    return K_FAIL("self does not broadcast to the result");
  K_CHECK(k_out(ctx, out, 2, sizes));
  K_CHECK(k_has_data(ctx, self, "self"));
  K_CHECK(k_has_data(ctx, m1, "mat1"));
  K_CHECK(k_has_data(ctx, m2, "mat2"));
  int64_t st[PTE_MAX_DIM];
  k_broadcast_strides(self, 2, sizes, st);
  return k_matmul(ctx, m1, m2, out, self, st, alpha, beta);
}

PTE_PORTABLE_KERNEL(addmm_out, "aten::addmm.out")
