/* Constant GEMM weights packed once at load (the load-time rules of
 * rewrite.c, one per product operator): the state an instruction's packed
 * kernel gets through pte_kernel_state. Internal to kernels_optimized. */
#ifndef PTERUN_OPT_PACKED_H
#define PTERUN_OPT_PACKED_H

#include "opt_util.h"

typedef struct o_packed_b {
  int64_t K, N;
  const float *panels; /* k_sgemm_pack_b's layout for this process's ISA */
  bool clamp;          /* an activation fused into the product: clamp to [lo, hi] */
  float lo, hi;
} o_packed_b;

/* The activation a rule of a pair (product, relu / hardtanh) fuses, or
 * NULL for none. */
typedef struct o_act {
  float lo, hi;
} o_act;

/* The GEMM descriptor's share of a packed state: panels and clamp. */
static inline void o_packed_desc(const o_packed_b *p, k_sgemm_desc *g) {
  if (!p) return;
  g->b_packed = p->panels;
  if (p->clamp) g->clamp = true, g->lo = p->lo, g->hi = p->hi;
}

/* B [K, N] with element strides sb0, sb1, a constant of `capacity` bytes
 * that instruction i alone reads: packed into method memory (NULL
 * declines: too big, out of memory). The original's file pages are
 * released. */
const o_packed_b *o_pack_b(pte_rewrite *rw, int32_t i, const pte_value *b, int64_t K, int64_t N, int64_t sb0,
                           int64_t sb1, const o_act *act);

/* Whether the packed B is the one of this call's shape (a constant's
 * shape is fixed at load; checked rather than trusted). */
static inline bool o_packed_fits(const o_packed_b *p, int64_t K, int64_t N) {
  return p && p->K == K && p->N == N;
}

/* Whether v is a float32 constant tensor of `dim` dims with data that only
 * instruction i refers to (nothing else would see the packed copy). */
bool o_packable(const pte_rewrite *rw, int32_t i, const pte_value *v, int32_t dim);

/* The rules' apply functions, one per op file; weak, since a selective
 * build may leave the op file out (rewrite.c registers the rules that are
 * there). */
__attribute__((weak)) bool o_addmm_prepare(pte_rewrite *rw, int32_t i);
__attribute__((weak)) bool o_linear_prepare(pte_rewrite *rw, int32_t i);
__attribute__((weak)) bool o_mm_prepare(pte_rewrite *rw, int32_t i);
/* a 3x3 convolution's filter transformed for Winograd (op_convolution.c) */
__attribute__((weak)) bool o_conv_prepare(pte_rewrite *rw, int32_t i);
/* the same for instruction i's filter as it stands, times scale[oc] when
 * not NULL (conv_bn's folded batch norm, applied as it is transformed: no
 * scaled copy of the filter kept beside the transformed one); the
 * filter's pages are left to the caller */
__attribute__((weak)) bool o_conv_pack(pte_rewrite *rw, int32_t i, const float *scale);
/* Instruction i (a mul whose out arguments the rule repointed) runs
 * gelu(args[0], approximate="tanh") into args[2] (op_gelu.c). */
__attribute__((weak)) bool o_gelu_tanh_set(pte_rewrite *rw, int32_t i);
/* The same with an activation fused (the pair rules of rewrite.c, which
 * repoint the output and skip the activation once this succeeded). */
__attribute__((weak)) bool o_addmm_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act);
__attribute__((weak)) bool o_linear_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act);
__attribute__((weak)) bool o_mm_prepare_act(pte_rewrite *rw, int32_t i, const o_act *act);
/* softmax (op__softmax.c) of its input times `scale` (a multiply folded in) */
__attribute__((weak)) bool o_softmax_prepare_scale(pte_rewrite *rw, int32_t i, float scale);

#endif
