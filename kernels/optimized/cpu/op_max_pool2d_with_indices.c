/* aten::max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *,
 *     Tensor(a!) out, Tensor(b!) indices)
 * float32 NCHW, floor mode (ceil_mode stays portable): one plane at a time
 * (util/kern_impl.h, a straight-line 2x2/2 case), planes over the pool.
 * ATen's rule: the first maximum wins, NaN wins. */
#include "util/pool.h"

static bool maxpool_accepts(pte_value *const *args, int32_t nargs) {
  o_win2d w;
  if (nargs != 9 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 6)) return false;
  const pte_tensor *idx = k_arg_tensor(args, nargs, 7);
  if (!idx || idx->dtype != PTE_INT64 || !k_default_order(idx)) return false;
  if (!k_arg_tag(args, nargs, 5, PTE_TAG_BOOL) || args[5]->u.b) return false;
  return o_pool_window(args, nargs, args[0]->u.tensor, 1, 2, 3, 4, &w);
}

typedef struct mp_job {
  o_win2d w;
  const float *x;
  float *y;
  int64_t *idx;
} mp_job;

static void mp_planes(void *ctx, size_t p0, size_t p1) {
  const mp_job *j = ctx;
  const o_kern_table *kt = o_kern();
  const int64_t in = j->w.IH * j->w.IW, on = j->w.OH * j->w.OW;
  for (size_t p = p0; p < p1; p++)
    kt->maxpool_plane(&j->w, j->x + (int64_t)p * in, j->y + (int64_t)p * on, j->idx + (int64_t)p * on);
}

static pte_status maxpool_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  mp_job j;
  if (!o_pool_window(args, nargs, x, 1, 2, 3, 4, &j.w))
    return K_FAIL("pooling window does not fit the input");
  int64_t sizes[4];
  o_pool_out_sizes(x, &j.w, sizes);
  K_CHECK(k_out(ctx, args[6]->u.tensor, x->dim, sizes));
  K_CHECK(k_out(ctx, args[7]->u.tensor, x->dim, sizes));
  int64_t planes = 1;
  for (int32_t i = 0; i + 2 < x->dim; i++) planes *= x->sizes[i];
  j.x = x->data;
  j.y = args[6]->u.tensor->data;
  j.idx = args[7]->u.tensor->data;
  k_parallel_for((size_t)planes, (double)(planes * j.w.OH * j.w.OW * j.w.KH * j.w.KW), mp_planes, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(maxpool_out, "aten::max_pool2d_with_indices.out", maxpool_accepts, NULL)
