/* aten::_pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out)
 * The p-norm distance of every pair of rows i < j of a 2-D self, in the
 * order (0,1), (0,2), ..., (1,2), ...: N * (N - 1) / 2 values. Floating
 * point only, accumulated in double. */
#include "util/nn_util.h"

static pte_status pdist_forward_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self, *out;
  double p = 2;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(k_tensor(ctx, args, 0, &self));
  K_CHECK(k_double(ctx, args, 1, &p));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  K_CHECK(k_has_data(ctx, self, "self"));
  if (self->dim != 2) return K_FAIL("pdist only supports 2-D tensors, got rank %d", (int)self->dim);
  if (!k_is_float(self->dtype) || out->dtype != self->dtype)
    return K_FAIL("pdist only supports floating point dtypes of one kind (self %s, out %s)",
                  pte_dtype_name(self->dtype), pte_dtype_name(out->dtype));
  if (!(p >= 0)) return K_FAIL("pdist only supports non-negative p values");
  int64_t N = self->sizes[0], M = self->sizes[1];
  int64_t osz[1] = {N > 1 ? N * (N - 1) / 2 : 0};
  K_CHECK(k_out(ctx, out, 1, osz));
  const int64_t rs = self->strides[0], cs = self->strides[1];
  int64_t k = 0;
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = i + 1; j < N; j++, k++) {
      double acc = 0;
      for (int64_t m = 0; m < M; m++)
        acc = kn_dist_acc(acc,
                          fabs(k_get_d(self->data, self->dtype, i * rs + m * cs) -
                               k_get_d(self->data, self->dtype, j * rs + m * cs)),
                          p);
      k_set_d(out->data, out->dtype, k * out->strides[0], kn_dist_finish(acc, p));
    }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(pdist_forward_out, "aten::_pdist_forward.out")
