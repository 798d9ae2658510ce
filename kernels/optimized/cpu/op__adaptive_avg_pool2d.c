/* aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
 * float32 NCHW: output cell (oh, ow) averages rows [floor(oh*H/OH),
 * ceil((oh+1)*H/OH)) and the same for columns, like ATen. A 1x1 output (the
 * global pool before a classifier) is a vectorized plane sum. */
#include "util/kern.h"

static bool aap_accepts(pte_value *const *args, int32_t nargs) {
  int64_t os[2];
  if (nargs != 4 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 2)) return false;
  const pte_tensor *x = args[0]->u.tensor;
  return (x->dim == 3 || x->dim == 4) && k_arg_ints(args, nargs, 1, os, 2) == 2 && os[0] > 0 && os[1] > 0;
}

typedef struct aap_job {
  const float *x;
  float *y;
  int64_t H, W, OH, OW;
} aap_job;

static void aap_planes(void *ctx, size_t p0, size_t p1) {
  const aap_job *j = ctx;
  const o_kern_table *kt = o_kern();
  for (size_t p = p0; p < p1; p++) {
    const float *x = j->x + (int64_t)p * j->H * j->W;
    float *y = j->y + (int64_t)p * j->OH * j->OW;
    if (j->OH == 1 && j->OW == 1) {
      y[0] = kt->sum(x, j->H * j->W) / (float)(j->H * j->W);
      continue;
    }
    for (int64_t oh = 0; oh < j->OH; oh++) {
      int64_t h0 = oh * j->H / j->OH, h1 = ((oh + 1) * j->H + j->OH - 1) / j->OH;
      for (int64_t ow = 0; ow < j->OW; ow++) {
        int64_t w0 = ow * j->W / j->OW, w1 = ((ow + 1) * j->W + j->OW - 1) / j->OW;
        float s = 0.0f;
        for (int64_t ih = h0; ih < h1; ih++)
          for (int64_t iw = w0; iw < w1; iw++) s += x[ih * j->W + iw];
        y[oh * j->OW + ow] = s / (float)((h1 - h0) * (w1 - w0));
      }
    }
  }
}

static pte_status aap_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  int64_t os[2];
  k_arg_ints(args, nargs, 1, os, 2);
  int64_t sizes[4];
  for (int32_t i = 0; i < x->dim; i++) sizes[i] = x->sizes[i];
  sizes[x->dim - 2] = os[0];
  sizes[x->dim - 1] = os[1];
  K_CHECK(k_out(ctx, args[2]->u.tensor, x->dim, sizes));
  aap_job j = {x->data, args[2]->u.tensor->data, x->sizes[x->dim - 2], x->sizes[x->dim - 1], os[0], os[1]};
  int64_t planes = 1;
  for (int32_t i = 0; i + 2 < x->dim; i++) planes *= x->sizes[i];
  if (j.H == 0 || j.W == 0) return K_FAIL("input has an empty spatial dim");
  k_parallel_for((size_t)planes, (double)(planes * j.H * j.W), aap_planes, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(aap_out, "aten::_adaptive_avg_pool2d.out", aap_accepts, NULL)
