/* aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
 * float32, pads (no crops) on the last one or two dims only, which is what
 * convolution models ask for (MobileNetV2 pads before its stride-2 depthwise
 * convolutions): a row copy between two fills per output row instead of
 * the portable kernel's per-element walk. Anything else stays portable. */
#include "util/opt_util.h"

#include <string.h>

static bool pad_accepts(pte_value *const *args, int32_t nargs) {
  int64_t pad[4];
  double v;
  if (nargs != 5 || !k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 3) ||
      !k_arg_num(args, nargs, 2, &v))
    return false;
  int32_t np = k_arg_ints(args, nargs, 1, pad, 4);
  if (np != 2 && np != 4) return false;
  for (int32_t i = 0; i < np; i++)
    if (pad[i] < 0 || pad[i] > O_WINDOW_MAX) return false;
  return args[0]->u.tensor->dim >= np / 2;
}

typedef struct pad_job {
  const float *x;
  float *y;
  int64_t H, W, OH, OW, top, left;
  float v;
} pad_job;

static void fill(float *y, int64_t n, float v) {
  for (int64_t i = 0; i < n; i++) y[i] = v;
}

static void pad_planes(void *ctx, size_t p0, size_t p1) {
  const pad_job *j = ctx;
  const int64_t right = j->OW - j->W - j->left;
  for (size_t p = p0; p < p1; p++) {
    const float *x = j->x + (int64_t)p * j->H * j->W;
    float *y = j->y + (int64_t)p * j->OH * j->OW;
    fill(y, j->top * j->OW, j->v);
    y += j->top * j->OW;
    for (int64_t h = 0; h < j->H; h++, x += j->W, y += j->OW) {
      fill(y, j->left, j->v);
      memcpy(y + j->left, x, (size_t)j->W * sizeof(float));
      fill(y + j->left + j->W, right, j->v);
    }
    fill(y, (j->OH - j->H - j->top) * j->OW, j->v);
  }
}

static pte_status pad_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[3]->u.tensor;
  int64_t pad[4] = {0, 0, 0, 0};
  double v = 0.0;
  const int32_t np = k_arg_ints(args, nargs, 1, pad, 4);
  if (np < 0 || x->dim < np / 2 || !k_arg_num(args, nargs, 2, &v)) return K_FAIL("bad pad arguments");
  const int32_t dim = x->dim;
  int64_t sizes[PTE_MAX_DIM];
  for (int32_t d = 0; d < dim; d++) sizes[d] = x->sizes[d];
  /* an Int value converts to float directly, as the portable kernel does */
  pad_job j = {.x = x->data, .v = args[2]->tag == PTE_TAG_INT ? (float)args[2]->u.i : (float)v};
  j.W = x->sizes[dim - 1];
  j.left = pad[0];
  j.OW = j.W + pad[0] + pad[1];
  sizes[dim - 1] = j.OW;
  j.H = 1, j.OH = 1, j.top = 0;
  if (np == 4) {
    j.H = x->sizes[dim - 2];
    j.top = pad[2];
    j.OH = j.H + pad[2] + pad[3];
    sizes[dim - 2] = j.OH;
  }
  K_CHECK(k_out(ctx, out, dim, sizes));
  K_CHECK(k_disjoint(ctx, out, x, "self"));
  j.y = out->data;
  const int64_t rows = np == 4 ? 2 : 1;
  int64_t planes = 1;
  for (int32_t d = 0; d + rows < dim; d++) planes *= x->sizes[d];
  if (planes == 0 || j.OH * j.OW == 0) return PTE_OK;
  k_parallel_for((size_t)planes, (double)(planes * j.OH * j.OW), pad_planes, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(pad_out, "aten::constant_pad_nd.out", pad_accepts, NULL)
