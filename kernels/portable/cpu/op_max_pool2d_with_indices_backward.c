/* aten::max_pool2d_with_indices_backward.grad_input(Tensor grad_output, Tensor self,
 *     int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode,
 *     Tensor indices, *, Tensor(a!) grad_input) -> Tensor(a!)
 * Each output's gradient goes to the input position its index names (flat
 * within the plane, as the forward writes them); overlapping windows add
 * up. Float dtypes, contiguous tensors; planes run in parallel. */
#include "util/backward_util.h"
#include "util/nn_util.h"

typedef struct mpb_job {
  const pte_tensor *go, *ind;
  pte_tensor *gi;
  int64_t in_plane, out_plane;
} mpb_job;

static void mpb_range(void *user, size_t begin, size_t end) {
  mpb_job *j = (mpb_job *)user;
  const int64_t *I = (const int64_t *)j->ind->data;
  for (size_t pl = begin; pl < end; pl++) {
    int64_t ib = (int64_t)pl * j->in_plane, ob = (int64_t)pl * j->out_plane;
    for (int64_t o = 0; o < j->out_plane; o++) {
      int64_t at = I[ob + o];
      double v = k_get_d(j->gi->data, j->gi->dtype, ib + at) + k_get_d(j->go->data, j->go->dtype, ob + o);
      k_set_d(j->gi->data, j->gi->dtype, ib + at, v);
    }
  }
}

static pte_status max_pool2d_with_indices_backward_grad_input(pte_kernel_ctx *ctx, pte_value **args,
                                                              int32_t nargs) {
  pte_tensor *go, *self, *ind, *gi;
  bool ceil_mode = false;
  K_CHECK(k_nargs(ctx, nargs, 10));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &self));
  K_CHECK(k_bool(ctx, args, 6, &ceil_mode));
  K_CHECK(k_tensor(ctx, args, 7, &ind));
  K_CHECK(k_tensor(ctx, args, 8, &gi));
  K_CHECK(kb_float_input(ctx, self, self->dtype, "self"));
  K_CHECK(kb_float_input(ctx, go, self->dtype, "grad_output"));
  if (ind->dtype != PTE_INT64) return K_FAIL("indices must be int64, got %s", pte_dtype_name(ind->dtype));
  K_CHECK(k_has_data(ctx, ind, "indices"));
  K_CHECK(k_contiguous(ctx, ind, "indices"));
  kn_pool p;
  int64_t osz[5];
  K_CHECK(kn_pool_init(ctx, args, self, 2, 2, 3, 4, 5, ceil_mode, &p, osz));
  K_CHECK(kb_same_shape(ctx, go, self->dim, osz, "grad_output"));
  K_CHECK(kb_same_shape(ctx, ind, self->dim, osz, "indices"));
  K_CHECK(k_disjoint(ctx, gi, go, "grad_output"));
  K_CHECK(k_disjoint(ctx, gi, ind, "indices"));
  K_CHECK(kb_zero_out_like(ctx, gi, self, "grad_input"));
  mpb_job j = {go, ind, gi, p.in[1] * p.in[2], p.out[1] * p.out[2]};
  /* checked before any write: a hostile program's indices fail the kernel */
  const int64_t *I = (const int64_t *)ind->data;
  for (int64_t i = 0; i < p.planes * j.out_plane; i++)
    if (I[i] < 0 || I[i] >= j.in_plane)
      return K_FAIL("index %lld is out of range of the %lld-element input plane", (long long)I[i],
                    (long long)j.in_plane);
  k_parallel_for((size_t)p.planes, (double)(p.planes * j.out_plane) * 4.0, mpb_range, &j);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(max_pool2d_with_indices_backward_grad_input,
                    "aten::max_pool2d_with_indices_backward.grad_input")
