/* aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[],
 *     int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True,
 *     int? divisor_override=None, *, Tensor(a!) out)
 * float32 NCHW, floor mode: window sums divided by ATen's divisor (the
 * override, or the window clipped to the padded input, or to the input
 * when count_include_pad is false). The 2x2/2 unpadded window of small
 * CNNs gets a straight loop. Planes over the pool. */
#include "util/pool.h"

static bool avgpool_accepts(pte_value *const *args, int32_t nargs) {
  o_win2d w;
  if (nargs != 9 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 7)) return false;
  if (!k_arg_tag(args, nargs, 4, PTE_TAG_BOOL) || args[4]->u.b || !k_arg_tag(args, nargs, 5, PTE_TAG_BOOL))
    return false;
  if (!k_arg_none(args, nargs, 6) && !(k_arg_tag(args, nargs, 6, PTE_TAG_INT) && args[6]->u.i != 0))
    return false;
  return o_pool_window(args, nargs, args[0]->u.tensor, 1, 2, 3, -1, &w);
}

typedef struct ap_job {
  o_win2d w;
  const float *x;
  float *y;
  bool include_pad;
  int64_t divisor; /* 0: none */
} ap_job;

static void ap_planes(void *ctx, size_t p0, size_t p1) {
  const ap_job *j = ctx;
  const o_win2d *w = &j->w;
  for (size_t p = p0; p < p1; p++) {
    const float *x = j->x + (int64_t)p * w->IH * w->IW;
    float *y = j->y + (int64_t)p * w->OH * w->OW;
    if (w->KH == 2 && w->KW == 2 && w->sh == 2 && w->sw == 2 && w->ph == 0 && w->pw == 0 && !j->divisor) {
      for (int64_t oh = 0; oh < w->OH; oh++) {
        const float *r0 = x + 2 * oh * w->IW, *r1 = r0 + w->IW;
        for (int64_t ow = 0; ow < w->OW; ow++)
          y[oh * w->OW + ow] = (r0[2 * ow] + r0[2 * ow + 1] + r1[2 * ow] + r1[2 * ow + 1]) / 4.0f;
      }
      continue;
    }
    for (int64_t oh = 0; oh < w->OH; oh++)
      for (int64_t ow = 0; ow < w->OW; ow++) {
        int64_t h0 = oh * w->sh - w->ph, w0 = ow * w->sw - w->pw;
        int64_t h1 = h0 + w->KH < w->IH + w->ph ? h0 + w->KH : w->IH + w->ph;
        int64_t w1 = w0 + w->KW < w->IW + w->pw ? w0 + w->KW : w->IW + w->pw;
        int64_t pool = (h1 - h0) * (w1 - w0);
        if (h0 < 0) h0 = 0;
        if (w0 < 0) w0 = 0;
        if (h1 > w->IH) h1 = w->IH;
        if (w1 > w->IW) w1 = w->IW;
        float s = 0.0f;
        for (int64_t ih = h0; ih < h1; ih++)
          for (int64_t iw = w0; iw < w1; iw++) s += x[ih * w->IW + iw];
        int64_t div = j->divisor ? j->divisor : j->include_pad ? pool : (h1 - h0) * (w1 - w0);
        y[oh * w->OW + ow] = div ? s / (float)div : 0.0f;
      }
  }
}

static pte_status avgpool_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  ap_job j;
  if (!o_pool_window(args, nargs, x, 1, 2, 3, -1, &j.w))
    return K_FAIL("pooling window does not fit the input");
  j.include_pad = args[5]->u.b;
  j.divisor = args[6]->tag == PTE_TAG_INT ? args[6]->u.i : 0;
  int64_t sizes[4];
  o_pool_out_sizes(x, &j.w, sizes);
  K_CHECK(k_out(ctx, args[7]->u.tensor, x->dim, sizes));
  int64_t planes = 1;
  for (int32_t i = 0; i + 2 < x->dim; i++) planes *= x->sizes[i];
  j.x = x->data;
  j.y = args[7]->u.tensor->data;
  k_parallel_for((size_t)planes, (double)(planes * j.w.OH * j.w.OW * j.w.KH * j.w.KW), ap_planes, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(avgpool_out, "aten::avg_pool2d.out", avgpool_accepts, NULL)
