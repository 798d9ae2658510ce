/* aten::gelu.out(Tensor self, *, str approximate="none", Tensor(a!) out)
 * float32, both approximations, through the kernel layer's vectorized
 * forms (k_vgelu, k_vgelu_tanh: within a few ulp of the exact values, where
 * the portable kernel's 1 + erff loses the negative tail), split over the
 * pool. */
#include <string.h>

#include "util/ew.h"
#include "util/packed.h"

static bool gelu_accepts(pte_value *const *args, int32_t nargs) {
  if (!o_unary_accepts(args, nargs, 4, 2) || !k_arg_tag(args, nargs, 1, PTE_TAG_STRING)) return false;
  return !strcmp(args[1]->u.str, "none") || !strcmp(args[1]->u.str, "tanh");
}

static void gelu_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vgelu(x, y, n);
}

static void gelu_tanh_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vgelu_tanh(x, y, n);
}

static pte_status gelu_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  bool tanh_mode = !strcmp(args[1]->u.str, "tanh");
  return o_map(ctx, args, nargs, 2, 20.0, tanh_mode ? gelu_tanh_span : gelu_span, NULL);
}

/* GPT-2's tanh GELU spelled out in eight elementwise ops, recognized at
 * load (gelu_chain in rewrite.c): its first instruction, mul(x, 0.5, out,
 * out) with out the chain's result, runs this. */
static bool chain_accepts(pte_value *const *args, int32_t nargs) {
  return o_unary_accepts(args, nargs, 4, 2);
}

static void chain_span(const float *x, float *y, int64_t n, const void *user) {
  (void)user;
  k_vgelu_tanh_fast(x, y, n);
}

/* the fast form: the chain it replaces lost far more (1 + tanh u) */
static pte_status chain_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  return o_map(ctx, args, nargs, 2, 10.0, chain_span, NULL);
}

bool o_gelu_tanh_set(pte_rewrite *rw, int32_t i) {
  static const pte_kernel chain = {"aten::gelu.out", chain_out, chain_accepts, NULL};
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  return args && chain_accepts(args, n) && pte_rewrite_set_kernel(rw, i, &chain, NULL);
}

PTE_OPT_KERNEL(gelu_out, "aten::gelu.out", gelu_accepts, NULL)
