/* Constant GEMM weights packed once at load (see packed.h). */
#include "packed.h"

bool o_packable(const pte_rewrite *rw, int32_t i, const pte_value *v, int32_t dim) {
  if (v->tag != PTE_TAG_TENSOR || !pte_rewrite_constant(rw, v)) return false;
  const pte_tensor *t = v->u.tensor;
  const pte_rewrite_use u = pte_rewrite_value_use(rw, v);
  /* a folded constant is referred to by the instruction that wrote it too */
  return !u.io && !u.opaque && (u.first == i || u.first == u.writer) && u.last == i &&
         t->dtype == PTE_FLOAT32 && t->dim == dim && t->data;
}

const o_packed_b *o_pack_b(pte_rewrite *rw, int32_t i, const pte_value *b, int64_t K, int64_t N, int64_t sb0,
                           int64_t sb1, const o_act *act) {
  (void)i;
  const pte_tensor *t = b->u.tensor;
  /* far beyond any layer; keeps the sizes below from overflowing */
  if (K < 1 || N < 1 || K > ((int64_t)1 << 24) || N > ((int64_t)1 << 24) || (double)K * (double)N > 1e9 ||
      sb0 < 0 || sb1 < 0)
    return NULL;
  /* every element read lies in the constant's bytes */
  const double last = ((double)(K - 1) * (double)sb0 + (double)(N - 1) * (double)sb1 + 1.0) * sizeof(float);
  if (last > (double)t->capacity || last > (double)pte_tensor_nbytes(t) + 0.5) return NULL;
  const size_t floats = k_sgemm_packed_b_floats(N, K);
  o_packed_b *st = (o_packed_b *)pte_rewrite_alloc(rw, sizeof *st);
  float *panels = (float *)pte_rewrite_alloc(rw, floats * sizeof(float));
  if (!st || !panels) return NULL;
  k_sgemm_pack_b((const float *)t->data, sb0, sb1, N, K, panels);
  st->K = K, st->N = N, st->panels = panels;
  st->clamp = act != NULL;
  st->lo = act ? act->lo : 0.0f, st->hi = act ? act->hi : 0.0f;
  /* the instruction reads the packed copy from now on */
  pte_rewrite_release(rw, t->data, pte_tensor_nbytes(t));
  return st;
}
