/* aten::convolution_backward.out(Tensor grad_output, Tensor input, Tensor weight,
 *     SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation,
 *     bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask, *,
 *     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 * Gradients of a 1-D, 2-D or 3-D convolution (stride, padding, dilation,
 * groups) with respect to its input (out0), weight (out1) and bias (out2),
 * each only when output_mask asks for it. Float dtypes, contiguous tensors,
 * accumulation in double; transposed convolutions are refused (the joint
 * export of a Conv*d emits the plain one).
 *
 * The input gradient gathers, for every input position, the output
 * positions that saw it (no write conflicts: input planes run in parallel);
 * the weight gradient correlates grad_output with the input, one output
 * channel per task. Every spatial case maps onto 3 dims (D, H, W). */
#include "util/backward_util.h"

typedef struct cb_geom {
  int64_t N, C, OC, G, icg, ocg;
  int64_t in[3], k[3], out[3], s[3], p[3], d[3];
} cb_geom;

typedef struct cb_job {
  const cb_geom *g;
  const pte_tensor *go, *x, *w;
  pte_tensor *gx, *gw;
} cb_job;

static pte_status cb_spatial(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t S, int64_t dflt,
                             const char *what, int64_t *v) {
  int64_t tmp[3] = {0, 0, 0};
  int32_t n = 0;
  K_CHECK(k_int_list(ctx, args, i, tmp, 3, &n));
  if (n != 1 && n != S) return K_FAIL("%s must have 1 or %d values, got %d", what, (int)S, (int)n);
  for (int32_t j = 0; j < 3; j++) v[j] = dflt;
  for (int32_t j = 0; j < S; j++) v[3 - S + j] = n == 1 ? tmp[0] : tmp[j];
  return PTE_OK;
}

/* The output position along dim j that tap k of input position i lands on,
 * or -1 when it lands between strides or outside the output. */
static inline int64_t cb_out_pos(const cb_geom *g, int32_t j, int64_t i, int64_t k) {
  int64_t num = i + g->p[j] - k * g->d[j];
  if (num < 0 || num % g->s[j]) return -1;
  int64_t o = num / g->s[j];
  return o < g->out[j] ? o : -1;
}

/* grad_input[n, c] for the planes n * C + c in [begin, end). */
static void cb_input_range(void *user, size_t begin, size_t end) {
  const cb_job *jb = (const cb_job *)user;
  const cb_geom *g = jb->g;
  const int64_t ip = g->in[0] * g->in[1] * g->in[2], op = g->out[0] * g->out[1] * g->out[2];
  const int64_t kp = g->k[0] * g->k[1] * g->k[2];
  for (size_t plane = begin; plane < end; plane++) {
    int64_t n = (int64_t)plane / g->C, c = (int64_t)plane % g->C, gr = c / g->icg, ci = c % g->icg;
    for (int64_t id = 0; id < g->in[0]; id++)
      for (int64_t ih = 0; ih < g->in[1]; ih++)
        for (int64_t iw = 0; iw < g->in[2]; iw++) {
          double acc = 0;
          for (int64_t kd = 0; kd < g->k[0]; kd++) {
            int64_t od = cb_out_pos(g, 0, id, kd);
            if (od < 0) continue;
            for (int64_t kh = 0; kh < g->k[1]; kh++) {
              int64_t oh = cb_out_pos(g, 1, ih, kh);
              if (oh < 0) continue;
              for (int64_t kw = 0; kw < g->k[2]; kw++) {
                int64_t ow = cb_out_pos(g, 2, iw, kw);
                if (ow < 0) continue;
                int64_t o_at = (od * g->out[1] + oh) * g->out[2] + ow,
                        tap = (kd * g->k[1] + kh) * g->k[2] + kw;
                for (int64_t oc = gr * g->ocg; oc < (gr + 1) * g->ocg; oc++)
                  acc += k_get_d(jb->go->data, jb->go->dtype, (n * g->OC + oc) * op + o_at) *
                         k_get_d(jb->w->data, jb->w->dtype, (oc * g->icg + ci) * kp + tap);
              }
            }
          }
          k_set_d(jb->gx->data, jb->gx->dtype, (int64_t)plane * ip + (id * g->in[1] + ih) * g->in[2] + iw,
                  acc);
        }
  }
}

/* grad_weight[oc] for the output channels in [begin, end). */
static void cb_weight_range(void *user, size_t begin, size_t end) {
  const cb_job *jb = (const cb_job *)user;
  const cb_geom *g = jb->g;
  const int64_t ip = g->in[0] * g->in[1] * g->in[2], op = g->out[0] * g->out[1] * g->out[2];
  const int64_t kp = g->k[0] * g->k[1] * g->k[2];
  for (size_t ocz = begin; ocz < end; ocz++) {
    int64_t oc = (int64_t)ocz, gr = oc / g->ocg;
    for (int64_t ci = 0; ci < g->icg; ci++)
      for (int64_t tap = 0; tap < kp; tap++) {
        int64_t kd = tap / (g->k[1] * g->k[2]), kh = (tap / g->k[2]) % g->k[1], kw = tap % g->k[2];
        double acc = 0;
        for (int64_t n = 0; n < g->N; n++) {
          int64_t xb = (n * g->C + gr * g->icg + ci) * ip, ob = (n * g->OC + oc) * op;
          for (int64_t od = 0; od < g->out[0]; od++) {
            int64_t id = od * g->s[0] - g->p[0] + kd * g->d[0];
            if (id < 0 || id >= g->in[0]) continue;
            for (int64_t oh = 0; oh < g->out[1]; oh++) {
              int64_t ih = oh * g->s[1] - g->p[1] + kh * g->d[1];
              if (ih < 0 || ih >= g->in[1]) continue;
              for (int64_t ow = 0; ow < g->out[2]; ow++) {
                int64_t iw = ow * g->s[2] - g->p[2] + kw * g->d[2];
                if (iw < 0 || iw >= g->in[2]) continue;
                acc += k_get_d(jb->go->data, jb->go->dtype, ob + (od * g->out[1] + oh) * g->out[2] + ow) *
                       k_get_d(jb->x->data, jb->x->dtype, xb + (id * g->in[1] + ih) * g->in[2] + iw);
              }
            }
          }
        }
        k_set_d(jb->gw->data, jb->gw->dtype, (oc * g->icg + ci) * kp + tap, acc);
      }
  }
}

static pte_status convolution_backward_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *x, *w, *gx, *gw, *gb;
  bool transposed = false;
  int64_t groups = 0;
  K_CHECK(k_nargs(ctx, nargs, 15));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &x));
  K_CHECK(k_tensor(ctx, args, 2, &w));
  K_CHECK(k_bool(ctx, args, 7, &transposed));
  K_CHECK(k_int(ctx, args, 9, &groups));
  bool mask[3];
  K_CHECK(kb_mask3(ctx, args, 10, mask));
  K_CHECK(kb_masked_out(ctx, args, 11, mask[0], &gx));
  K_CHECK(kb_masked_out(ctx, args, 12, mask[1], &gw));
  K_CHECK(kb_masked_out(ctx, args, 13, mask[2], &gb));
  if (transposed) return K_FAIL("transposed convolution backward is not implemented");
  int32_t S = w->dim - 2;
  if (S < 1 || S > 3)
    return K_FAIL("only 1-D, 2-D and 3-D convolutions are supported (weight rank %d)", (int)w->dim);
  bool batched = x->dim == w->dim;
  if (!batched && x->dim != w->dim - 1)
    return K_FAIL("input of rank %d does not fit a weight of rank %d", (int)x->dim, (int)w->dim);
  K_CHECK(kb_float_input(ctx, x, x->dtype, "input"));
  K_CHECK(kb_float_input(ctx, w, x->dtype, "weight"));
  K_CHECK(kb_float_input(ctx, go, x->dtype, "grad_output"));
  cb_geom g;
  memset(&g, 0, sizeof g);
  int64_t op_pad[3];
  K_CHECK(cb_spatial(ctx, args, 4, S, 1, "stride", g.s));
  K_CHECK(cb_spatial(ctx, args, 5, S, 0, "padding", g.p));
  K_CHECK(cb_spatial(ctx, args, 6, S, 1, "dilation", g.d));
  K_CHECK(cb_spatial(ctx, args, 8, S, 0, "output_padding", op_pad));
  int32_t b = batched ? 1 : 0;
  g.N = batched ? x->sizes[0] : 1;
  g.C = x->sizes[b];
  g.OC = w->sizes[0];
  g.G = groups;
  if (groups <= 0) return K_FAIL("groups must be positive, got %lld", (long long)groups);
  if (g.C % groups || w->sizes[1] * groups != g.C || g.OC % groups)
    return K_FAIL("weight of shape [%lld, %lld, ...] with %lld groups does not fit %lld input channels",
                  (long long)w->sizes[0], (long long)w->sizes[1], (long long)groups, (long long)g.C);
  g.icg = g.C / groups;
  g.ocg = g.OC / groups;
  int64_t osz[5];
  for (int32_t i = 0; i <= b; i++) osz[i] = x->sizes[i];
  osz[b] = g.OC;
  for (int32_t j = 0; j < 3; j++) {
    int32_t sj = j - (3 - S);
    g.in[j] = sj >= 0 ? x->sizes[b + 1 + sj] : 1;
    g.k[j] = sj >= 0 ? w->sizes[2 + sj] : 1;
    if (g.s[j] <= 0 || g.d[j] <= 0 || g.p[j] < 0 || g.k[j] <= 0)
      return K_FAIL("stride, dilation and kernel size must be positive, padding non-negative");
    if (g.s[j] > INT32_MAX || g.d[j] > INT32_MAX || g.p[j] > INT32_MAX || g.k[j] > INT32_MAX)
      return K_FAIL("convolution parameters are too large");
    if (op_pad[j] != 0) return K_FAIL("output_padding requires a transposed convolution");
    int64_t eff = g.d[j] * (g.k[j] - 1) + 1;
    if (g.in[j] + 2 * g.p[j] < eff) return K_FAIL("kernel size can't be greater than the padded input size");
    g.out[j] = (g.in[j] + 2 * g.p[j] - eff) / g.s[j] + 1;
    if (sj >= 0) osz[b + 1 + sj] = g.out[j];
  }
  K_CHECK(kb_same_shape(ctx, go, x->dim, osz, "grad_output"));
  pte_tensor *outs[3] = {gx, gw, gb};
  const pte_tensor *ins[3] = {go, x, w};
  for (int32_t i = 0; i < 3; i++)
    for (int32_t k = 0; k < 3 && outs[i]; k++) K_CHECK(k_disjoint(ctx, outs[i], ins[k], "an input"));
  cb_job jb = {&g, go, x, w, gx, gw};
  double taps =
      (double)(g.N * g.OC * g.out[0] * g.out[1] * g.out[2]) * (double)(g.icg * g.k[0] * g.k[1] * g.k[2]);
  if (gx) {
    if (gx->dtype != x->dtype) return K_FAIL("out0 must have the input's dtype");
    K_CHECK(k_out_like(ctx, gx, x));
    K_CHECK(k_contiguous(ctx, gx, "out0"));
    k_parallel_for((size_t)(g.N * g.C), taps * 4.0, cb_input_range, &jb);
  }
  if (gw) {
    if (gw->dtype != x->dtype) return K_FAIL("out1 must have the input's dtype");
    K_CHECK(k_out_like(ctx, gw, w));
    K_CHECK(k_contiguous(ctx, gw, "out1"));
    k_parallel_for((size_t)g.OC, taps * 4.0, cb_weight_range, &jb);
  }
  if (gb) {
    if (gb->dtype != x->dtype) return K_FAIL("out2 must have the input's dtype");
    int64_t bsz[1] = {g.OC};
    K_CHECK(k_out(ctx, gb, 1, bsz));
    const int64_t op = g.out[0] * g.out[1] * g.out[2];
    for (int64_t oc = 0; oc < g.OC; oc++) {
      double acc = 0;
      for (int64_t n = 0; n < g.N; n++)
        for (int64_t o = 0; o < op; o++) acc += k_get_d(go->data, go->dtype, (n * g.OC + oc) * op + o);
      k_set_d(gb->data, gb->dtype, oc, acc);
    }
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(convolution_backward_out, "aten::convolution_backward.out")
