/* aten::native_batch_norm_backward.out(Tensor grad_out, Tensor input, Tensor? weight,
 *     Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd,
 *     bool train, float eps, bool[3] output_mask, *, Tensor(a!) out0, Tensor(b!) out1,
 *     Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 * Per channel c over the M = N * spatial values: with the batch statistics
 * (train: save_mean, save_invstd) or the running ones (invstd =
 * 1 / sqrt(running_var + eps)), sum_g = sum(g), dot = sum(g (x - mean)):
 *   grad_input  = w invstd (g - sum_g / M - (x - mean) invstd^2 dot / M)  (train)
 *               = w invstd g                                              (eval)
 *   grad_weight = dot invstd, grad_bias = sum_g.
 * Input [N, C, ...]; outputs only as output_mask asks. Float dtypes,
 * contiguous, in double. */
#include "util/backward_util.h"

static pte_status native_batch_norm_backward_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *x, *w, *rm, *rv, *sm, *si, *gx, *gw, *gb;
  bool train = false, mask[3];
  double eps = 0;
  K_CHECK(k_nargs(ctx, nargs, 14));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &x));
  K_CHECK(k_opt_tensor(ctx, args, 2, &w));
  K_CHECK(k_opt_tensor(ctx, args, 3, &rm));
  K_CHECK(k_opt_tensor(ctx, args, 4, &rv));
  K_CHECK(k_opt_tensor(ctx, args, 5, &sm));
  K_CHECK(k_opt_tensor(ctx, args, 6, &si));
  K_CHECK(k_bool(ctx, args, 7, &train));
  K_CHECK(k_double(ctx, args, 8, &eps));
  K_CHECK(kb_mask3(ctx, args, 9, mask));
  K_CHECK(kb_masked_out(ctx, args, 10, mask[0], &gx));
  K_CHECK(kb_masked_out(ctx, args, 11, mask[1], &gw));
  K_CHECK(kb_masked_out(ctx, args, 12, mask[2], &gb));
  int32_t dt = x->dtype;
  K_CHECK(kb_float_input(ctx, x, dt, "input"));
  K_CHECK(kb_float_input(ctx, go, dt, "grad_out"));
  K_CHECK(kb_same_shape(ctx, go, x->dim, x->sizes, "grad_out"));
  if (x->dim < 2) return K_FAIL("input must have a batch and a channel dim, got rank %d", (int)x->dim);
  const pte_tensor *mean_t = train ? sm : rm, *var_t = train ? si : rv;
  if (!mean_t || !var_t)
    return K_FAIL(train ? "training needs save_mean and save_invstd"
                        : "eval needs running_mean and running_var");
  int64_t C = x->sizes[1], S = 1;
  for (int32_t i = 2; i < x->dim; i++) S *= x->sizes[i];
  const int64_t N = x->sizes[0], M = N * S;
  const pte_tensor *per_c[3] = {mean_t, var_t, w};
  static const char *names[3] = {"mean", "variance", "weight"};
  for (int32_t k = 0; k < 3; k++) {
    if (!per_c[k]) continue;
    K_CHECK(kb_float_input(ctx, per_c[k], dt, names[k]));
    if (pte_tensor_numel(per_c[k]) != C) return K_FAIL("%s must have %lld elements", names[k], (long long)C);
  }
  pte_tensor *outs[3] = {gx, gw, gb};
  const pte_tensor *ins[5] = {go, x, mean_t, var_t, w};
  for (int32_t i = 0; i < 3; i++)
    for (int32_t k = 0; k < 5 && outs[i]; k++)
      if (ins[k]) K_CHECK(k_disjoint(ctx, outs[i], ins[k], "an input"));
  int64_t csz[1] = {C};
  if (gx) {
    if (gx->dtype != dt) return K_FAIL("out0 must have the input's dtype");
    K_CHECK(k_out_like(ctx, gx, x));
    K_CHECK(k_contiguous(ctx, gx, "out0"));
  }
  for (int32_t o = 1; o < 3; o++)
    if (outs[o]) {
      if (outs[o]->dtype != dt) return K_FAIL("out%d must have the input's dtype", (int)o);
      K_CHECK(k_out(ctx, outs[o], 1, csz));
    }
  for (int64_t c = 0; c < C; c++) {
    double mu = k_get_d(mean_t->data, dt, c), v = k_get_d(var_t->data, dt, c);
    double invstd = train ? v : 1.0 / sqrt(v + eps), wc = w ? k_get_d(w->data, dt, c) : 1.0;
    double sum_g = 0, dot = 0;
    for (int64_t n = 0; n < N; n++)
      for (int64_t s = 0; s < S; s++) {
        int64_t at = (n * C + c) * S + s;
        double g = k_get_d(go->data, dt, at);
        sum_g += g;
        dot += g * (k_get_d(x->data, dt, at) - mu);
      }
    if (gx)
      for (int64_t n = 0; n < N; n++)
        for (int64_t s = 0; s < S; s++) {
          int64_t at = (n * C + c) * S + s;
          double g = k_get_d(go->data, dt, at), d;
          if (train)
            d = (g - sum_g / (double)M -
                 (k_get_d(x->data, dt, at) - mu) * invstd * invstd * dot / (double)M) *
                invstd * wc;
          else d = g * invstd * wc;
          k_set_d(gx->data, dt, at, d);
        }
    if (gw) k_set_d(gw->data, dt, c, dot * invstd);
    if (gb) k_set_d(gb->data, dt, c, sum_g);
  }
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(native_batch_norm_backward_out, "aten::native_batch_norm_backward.out")
