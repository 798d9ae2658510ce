/* aten::avg_pool2d_backward.grad_input(Tensor grad_output, Tensor self, int[2] kernel_size,
 *     int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad,
 *     int? divisor_override, *, Tensor(a!) grad_input) -> Tensor(a!)
 * Each output's gradient, divided by the forward's divisor for that window
 * (divisor_override, else the window clipped to the padded input or to the
 * input), is spread over the window's input positions. Float dtypes,
 * contiguous tensors; planes run in parallel. */
#include "util/backward_util.h"
#include "util/nn_util.h"

typedef struct apb_job {
  const kn_pool *p;
  const pte_tensor *go;
  pte_tensor *gi;
  bool include_pad, has_div;
  int64_t divisor;
} apb_job;

/* The forward's window along spatial dim j: [start, end) in the input and
 * its length clipped to the padded input. */
static void apb_window(const kn_pool *p, int32_t j, int64_t o, int64_t *start, int64_t *end,
                       int64_t *padded) {
  int64_t s = o * p->s[j] - p->p[j];
  int64_t e = s + p->k[j] < p->in[j] + p->p[j] ? s + p->k[j] : p->in[j] + p->p[j];
  *padded = e - s;
  *start = s < 0 ? 0 : s;
  *end = e > p->in[j] ? p->in[j] : e;
}

static void apb_range(void *user, size_t begin, size_t end) {
  const apb_job *j = (const apb_job *)user;
  const kn_pool *p = j->p;
  const int64_t H = p->in[1], W = p->in[2], OH = p->out[1], OW = p->out[2];
  for (size_t pl = begin; pl < end; pl++) {
    int64_t ib = (int64_t)pl * H * W, ob = (int64_t)pl * OH * OW;
    for (int64_t oh = 0; oh < OH; oh++) {
      int64_t hs, he, ph;
      apb_window(p, 1, oh, &hs, &he, &ph);
      for (int64_t ow = 0; ow < OW; ow++) {
        int64_t ws, we, pw;
        apb_window(p, 2, ow, &ws, &we, &pw);
        if (hs >= he || ws >= we) continue;
        int64_t div = j->has_div ? j->divisor : j->include_pad ? ph * pw : (he - hs) * (we - ws);
        double g = k_get_d(j->go->data, j->go->dtype, ob + oh * OW + ow) / (double)div;
        for (int64_t h = hs; h < he; h++)
          for (int64_t w = ws; w < we; w++) {
            int64_t at = ib + h * W + w;
            k_set_d(j->gi->data, j->gi->dtype, at, k_get_d(j->gi->data, j->gi->dtype, at) + g);
          }
      }
    }
  }
}

static pte_status avg_pool2d_backward_grad_input(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *self, *gi;
  bool ceil_mode = false, include_pad = true, has_div = false;
  int64_t divisor = 0;
  K_CHECK(k_nargs(ctx, nargs, 10));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &self));
  K_CHECK(k_bool(ctx, args, 5, &ceil_mode));
  K_CHECK(k_bool(ctx, args, 6, &include_pad));
  K_CHECK(k_opt_int(ctx, args, 7, &divisor, &has_div));
  K_CHECK(k_tensor(ctx, args, 8, &gi));
  if (has_div && divisor == 0) return K_FAIL("divisor must be not zero");
  K_CHECK(kb_float_input(ctx, self, self->dtype, "self"));
  K_CHECK(kb_float_input(ctx, go, self->dtype, "grad_output"));
  kn_pool p;
  int64_t osz[5];
  K_CHECK(kn_pool_init(ctx, args, self, 2, 2, 3, 4, -1, ceil_mode, &p, osz));
  K_CHECK(kb_same_shape(ctx, go, self->dim, osz, "grad_output"));
  K_CHECK(k_disjoint(ctx, gi, go, "grad_output"));
  K_CHECK(kb_zero_out_like(ctx, gi, self, "grad_input"));
  apb_job j = {&p, go, gi, include_pad, has_div, divisor};
  double cost = (double)(p.planes * p.out[1] * p.out[2] * p.k[1] * p.k[2]) * 4.0;
  k_parallel_for((size_t)p.planes, cost, apb_range, &j);
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(avg_pool2d_backward_grad_input, "aten::avg_pool2d_backward.grad_input")
