/* aten::native_layer_norm_backward.out(Tensor grad_out, Tensor input, SymInt[] normalized_shape,
 *     Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask, *,
 *     Tensor(a!) out0, Tensor(b!) out1, Tensor(c!) out2) -> (Tensor(a!), Tensor(b!), Tensor(c!))
 * Over each of the M rows of N normalized elements, with xhat = (x - mean)
 * rstd and dy = grad_out * weight:
 *   grad_input  = rstd / N (N dy - sum(dy) - xhat sum(dy xhat)),
 *   grad_weight = sum over rows of grad_out xhat, grad_bias = sum of grad_out.
 * Outputs only as output_mask asks. Float dtypes, contiguous, in double. */
#include "util/backward_util.h"

static pte_status native_layer_norm_backward_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *go, *x, *mean, *rstd, *w, *b, *gx, *gw, *gb;
  bool mask[3];
  int64_t ns[PTE_MAX_DIM];
  int32_t nd = 0;
  K_CHECK(k_nargs(ctx, nargs, 12));
  K_CHECK(k_tensor(ctx, args, 0, &go));
  K_CHECK(k_tensor(ctx, args, 1, &x));
  K_CHECK(k_int_list(ctx, args, 2, ns, PTE_MAX_DIM, &nd));
  K_CHECK(k_tensor(ctx, args, 3, &mean));
  K_CHECK(k_tensor(ctx, args, 4, &rstd));
  K_CHECK(k_opt_tensor(ctx, args, 5, &w));
  K_CHECK(k_opt_tensor(ctx, args, 6, &b));
  K_CHECK(kb_mask3(ctx, args, 7, mask));
  K_CHECK(kb_masked_out(ctx, args, 8, mask[0], &gx));
  K_CHECK(kb_masked_out(ctx, args, 9, mask[1], &gw));
  K_CHECK(kb_masked_out(ctx, args, 10, mask[2], &gb));
  int32_t dt = x->dtype;
  K_CHECK(kb_float_input(ctx, x, dt, "input"));
  K_CHECK(kb_float_input(ctx, go, dt, "grad_out"));
  K_CHECK(kb_same_shape(ctx, go, x->dim, x->sizes, "grad_out"));
  if (nd < 1 || nd > x->dim)
    return K_FAIL("normalized_shape of %d dims does not fit rank %d", (int)nd, (int)x->dim);
  int64_t N = 1, M = 1;
  for (int32_t i = 0; i < nd; i++) {
    if (ns[i] != x->sizes[x->dim - nd + i])
      return K_FAIL("normalized_shape does not match the input's last dims");
    N *= ns[i];
  }
  for (int32_t i = 0; i < x->dim - nd; i++) M *= x->sizes[i];
  K_CHECK(kb_float_input(ctx, mean, dt, "mean"));
  K_CHECK(kb_float_input(ctx, rstd, dt, "rstd"));
  if (pte_tensor_numel(mean) != M || pte_tensor_numel(rstd) != M)
    return K_FAIL("mean and rstd must have %lld elements", (long long)M);
  if (w) {
    K_CHECK(kb_float_input(ctx, w, dt, "weight"));
    if (pte_tensor_numel(w) != N) return K_FAIL("weight must have %lld elements", (long long)N);
  }
  pte_tensor *outs[3] = {gx, gw, gb};
  const pte_tensor *ins[5] = {go, x, mean, rstd, w};
  for (int32_t i = 0; i < 3; i++)
    for (int32_t k = 0; k < 5 && outs[i]; k++)
      if (ins[k]) K_CHECK(k_disjoint(ctx, outs[i], ins[k], "an input"));
  int64_t wsz[PTE_MAX_DIM];
  for (int32_t i = 0; i < nd; i++) wsz[i] = ns[i];
  if (gx) {
    if (gx->dtype != dt) return K_FAIL("out0 must have the input's dtype");
    K_CHECK(k_out_like(ctx, gx, x));
    K_CHECK(k_contiguous(ctx, gx, "out0"));
    for (int64_t r = 0; r < M; r++) {
      double mu = k_get_d(mean->data, dt, r), rs = k_get_d(rstd->data, dt, r), s1 = 0, s2 = 0;
      for (int64_t j = 0; j < N; j++) {
        double dy = k_get_d(go->data, dt, r * N + j) * (w ? k_get_d(w->data, dt, j) : 1.0);
        s1 += dy;
        s2 += dy * (k_get_d(x->data, dt, r * N + j) - mu) * rs;
      }
      for (int64_t j = 0; j < N; j++) {
        double dy = k_get_d(go->data, dt, r * N + j) * (w ? k_get_d(w->data, dt, j) : 1.0);
        double xh = (k_get_d(x->data, dt, r * N + j) - mu) * rs;
        k_set_d(gx->data, dt, r * N + j, rs / (double)N * ((double)N * dy - s1 - xh * s2));
      }
    }
  }
  pte_tensor *wb[2] = {gw, gb};
  for (int32_t o = 0; o < 2; o++) {
    pte_tensor *t = wb[o];
    if (!t) continue;
    if (t->dtype != dt) return K_FAIL("out%d must have the input's dtype", (int)o + 1);
    K_CHECK(k_out(ctx, t, nd, wsz));
    K_CHECK(k_contiguous(ctx, t, o ? "out2" : "out1"));
    for (int64_t j = 0; j < N; j++) {
      double s = 0;
      for (int64_t r = 0; r < M; r++) {
        double g = k_get_d(go->data, dt, r * N + j);
        s += o ? g
               : g * (k_get_d(x->data, dt, r * N + j) - k_get_d(mean->data, dt, r)) *
                     k_get_d(rstd->data, dt, r);
      }
      k_set_d(t->data, dt, j, s);
    }
  }
  (void)b;
  return PTE_OK;
}

PTE_PORTABLE_KERNEL(native_layer_norm_backward_out, "aten::native_layer_norm_backward.out")
