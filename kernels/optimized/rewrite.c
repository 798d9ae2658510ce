/* Load-time rewrites this library registers with the runtime (see
 * pte_rewrite_rule): a batch norm folded into the convolution before it, a
 * zero pad into the convolution after it, and the constant weight of a
 * product (addmm, linear, mm) packed once for its GEMM (util/packed.h; the
 * rules live in the op files). They pay with these kernels (one pass over
 * the activation instead of two, no packing per call), so they run only
 * while the library is enabled. Indices of instructions are 0-based
 * throughout. */
#include <math.h>
#include <pterun/kernels_optimized.h>
#include <string.h>

#include "util/packed.h"

/* Whether v is referred to by instruction j alone and is no method input or
 * output (an intermediate the pair owns). */
static bool private_to(const pte_rewrite *rw, const pte_value *v, int32_t j) {
  const pte_rewrite_use u = pte_rewrite_value_use(rw, v);
  return !u.io && !u.opaque && u.first == j && u.last == j;
}

/* A float32 contiguous [c] constant, or None when `opt`. */
static bool const_vec(const pte_rewrite *rw, const pte_value *v, int64_t c, bool opt) {
  if (v->tag == PTE_TAG_NONE) return opt;
  if (v->tag != PTE_TAG_TENSOR || !pte_rewrite_constant(rw, v)) return false;
  const pte_tensor *t = v->u.tensor;
  return t->dtype == PTE_FLOAT32 && t->dim == 1 && t->sizes[0] == c && t->data && pte_tensor_is_contiguous(t);
}

/* In addresses: a capacity may be SIZE_MAX (unknown), which reaches the end
 * of memory. */
static bool bytes_overlap(const pte_tensor *a, const pte_tensor *b) {
  const uintptr_t al = (uintptr_t)a->data, bl = (uintptr_t)b->data;
  if (!al || !bl) return false;
  const uintptr_t ah = a->capacity > UINTPTR_MAX - al ? UINTPTR_MAX : al + a->capacity;
  const uintptr_t bh = b->capacity > UINTPTR_MAX - bl ? UINTPTR_MAX : bl + b->capacity;
  return al < bh && bl < ah;
}

/* Elementwise operators whose output may be the very bytes of an input of
 * the same shape: element k is read before it is written. */
static const char *const inplace_ok[] = {"aten::relu.out",      "aten::hardtanh.out", "aten::clamp.out",
                                         "aten::add.out",       "aten::sub.out",      "aten::mul.out",
                                         "aten::hardswish.out", "aten::sigmoid.out",  "aten::silu.out"};

static bool same_shape(const pte_tensor *a, const pte_tensor *b) {
  if (a->dim != b->dim) return false;
  for (int32_t d = 0; d < a->dim; d++)
    if (a->sizes[d] != b->sizes[d]) return false;
  return true;
}

/* Whether a value (not `skip`) that no instruction writes, read after
 * instruction i, shares bytes with t: a view the planner made. */
static bool viewed_after(pte_rewrite *rw, int32_t i, const pte_value *skip, const pte_tensor *t) {
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t v = 0; v < nv; v++) {
    const pte_value *val = pte_rewrite_value(rw, v);
    if (val == skip || val->tag != PTE_TAG_TENSOR) continue;
    const pte_rewrite_use u = pte_rewrite_value_use(rw, val);
    if (u.writer < 0 && u.last > i && bytes_overlap(val->u.tensor, t)) return true;
  }
  return false;
}

/* The convolution (i) writes the batch norm's output z instead of y: z's
 * bytes must not be those of its input x (the planner may give them, free
 * once the convolution is done), and nothing read later views y's bytes,
 * which stay unwritten. */
static bool into_out(pte_rewrite *rw, int32_t i, const pte_value *y, const pte_value *z, const pte_value *x) {
  return !bytes_overlap(z->u.tensor, x->u.tensor) && !viewed_after(rw, i, y, y->u.tensor);
}

/* Else the convolution keeps writing y and z's readers read y: y's bytes
 * must outlive z, which the planner did not promise. Nothing may write them
 * before z's last reader, which may (exactly them, an elementwise operator of
 * z's shape: the relu that follows the batch norm, in place); z is no method
 * output and no view of it is read. */
static bool keep_out(pte_rewrite *rw, int32_t i, const pte_value *y, const pte_value *z) {
  const pte_rewrite_use uz = pte_rewrite_value_use(rw, z);
  const pte_tensor *yt = y->u.tensor;
  if (uz.io || uz.opaque || uz.first != i + 1 || uz.writer != i + 1 || uz.last <= i + 1 ||
      viewed_after(rw, i + 1, z, z->u.tensor))
    return false;
  for (int32_t j = i + 2; j <= uz.last; j++) { /* moves, frees, delegates, lists: not followed */
    int32_t n;
    pte_value **args = pte_rewrite_args(rw, j, &n);
    if (!args) return false;
    for (int32_t k = 0; k < n; k++) {
      const pte_value *v = args[k];
      if (v->tag == PTE_TAG_TENSOR_LIST || v->tag == PTE_TAG_OPTIONAL_TENSOR_LIST)
        for (int32_t t = 0; t < v->len; t++)
          if (v->u.items[t] == z) return false;
    }
  }
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t v = 0; v < nv; v++) {
    const pte_value *val = pte_rewrite_value(rw, v);
    if (val->tag != PTE_TAG_TENSOR) continue;
    const int32_t wr = pte_rewrite_value_use(rw, val).writer;
    if (wr <= i + 1 || wr > uz.last || !bytes_overlap(val->u.tensor, yt)) continue;
    if (wr != uz.last || val->u.tensor->data != yt->data || !same_shape(val->u.tensor, z->u.tensor))
      return false;
    const char *op = pte_rewrite_op(rw, wr);
    bool ok = false;
    for (size_t k = 0; op && k < sizeof inplace_ok / sizeof *inplace_ok && !ok; k++)
      ok = !strcmp(op, inplace_ok[k]);
    if (!ok) return false;
  }
  return true;
}

/* convolution (not transposed, constant float weight and bias) followed by
 * inference batch norm with constant parameters, on an intermediate only
 * the batch norm reads: the convolution gets weight * a and bias
 * (bias - mean) * a + beta per output channel (a = gamma / sqrt(var + eps),
 * in double like the kernels), writes the batch norm's output, and the batch
 * norm is skipped like a folded instruction. The scaled weight is the
 * method's (or, for Winograd, only its transform); the original's pages are
 * given back as it is read, so the weights are resident once, not twice. */
static bool conv_bn(pte_rewrite *rw, int32_t i) {
  int32_t cn, bnn;
  pte_value **ca = pte_rewrite_args(rw, i, &cn), **ba = pte_rewrite_args(rw, i + 1, &bnn);
  if (!ca || !ba || cn != 11 || bnn != 11) return false;
  const pte_value *y = ca[9];
  if (ca[10] != y || y->tag != PTE_TAG_TENSOR || ba[0] != y || ca[6]->tag != PTE_TAG_BOOL || ca[6]->u.b ||
      ba[6]->tag != PTE_TAG_DOUBLE || ca[1]->tag != PTE_TAG_TENSOR)
    return false;
  const pte_rewrite_use uy = pte_rewrite_value_use(rw, y);
  if (uy.io || uy.opaque || uy.first != i || uy.writer != i || uy.last != i + 1) return false;
  const pte_tensor *w = ca[1]->u.tensor, *yt = y->u.tensor;
  if (!pte_rewrite_constant(rw, ca[1]) || w->dtype != PTE_FLOAT32 || w->dim < 2 || !w->data ||
      !pte_tensor_is_contiguous(w) || w->sizes[0] < 1)
    return false;
  const int64_t C = w->sizes[0];
  if (!const_vec(rw, ca[2], C, true) || !const_vec(rw, ba[1], C, true) || !const_vec(rw, ba[2], C, true) ||
      !const_vec(rw, ba[3], C, false) || !const_vec(rw, ba[4], C, false))
    return false;
  const pte_value *z = ba[7];
  if (z->tag != PTE_TAG_TENSOR || ca[0]->tag != PTE_TAG_TENSOR) return false;
  const pte_tensor *zt = z->u.tensor;
  if (zt->dtype != yt->dtype || zt->dim != yt->dim || zt->capacity < yt->capacity ||
      (zt->flags & PTE_TENSOR_READONLY))
    return false;
  for (int32_t d = 0; d < yt->dim; d++)
    if (zt->sizes[d] != yt->sizes[d] || zt->dim_order[d] != yt->dim_order[d]) return false;
  /* the statistics outputs and the returned list are nobody else's */
  for (int32_t k = 8; k < 11; k++)
    if (ba[k] != z && !private_to(rw, ba[k], i + 1)) return false;
  const bool into_z = into_out(rw, i, y, z, ca[0]);
  if (!into_z && !keep_out(rw, i, y, z)) return false;
  const int64_t per = pte_tensor_numel(w) / C;
  const size_t wbytes = pte_tensor_nbytes(w);
  float *nb = (float *)pte_rewrite_alloc(rw, (size_t)C * sizeof(float));
  float *sc = (float *)pte_rewrite_alloc(rw, (size_t)C * sizeof(float));
  pte_tensor bt = *ba[3]->u.tensor; /* a [C] float constant to shape the bias like */
  pte_value *bv = nb && sc ? pte_rewrite_new_constant(rw, &bt, nb) : NULL;
  if (!bv) return false;
  const float *ow = (const float *)w->data;
  const float *cb = ca[2]->tag == PTE_TAG_TENSOR ? (const float *)ca[2]->u.tensor->data : NULL;
  const float *g = ba[1]->tag == PTE_TAG_TENSOR ? (const float *)ba[1]->u.tensor->data : NULL;
  const float *be = ba[2]->tag == PTE_TAG_TENSOR ? (const float *)ba[2]->u.tensor->data : NULL;
  const float *mean = (const float *)ba[3]->u.tensor->data, *var = (const float *)ba[4]->u.tensor->data;
  const double eps = ba[6]->u.d;
  for (int64_t c = 0; c < C; c++) {
    double a = 1.0 / sqrt((double)var[c] + eps);
    if (g) a *= g[c];
    sc[c] = (float)a;
    nb[c] = (float)(((cb ? cb[c] : 0.0) - mean[c]) * a + (be ? be[c] : 0.0));
  }
  pte_value *const old_b = ca[2];
  ca[2] = bv;
  /* the single-instruction rules do not run on a rewritten instruction: a
   * filter Winograd takes is transformed here, the scale applied on the
   * way, so the method holds the transformed filter alone (a scaled copy
   * beside it was 9.4 MB of ResNet-18's peak) */
  if (!o_conv_pack || !o_conv_pack(rw, i, sc)) {
    float *nw = (float *)pte_rewrite_alloc(rw, wbytes);
    pte_value *wv = nw ? pte_rewrite_new_constant(rw, w, nw) : NULL;
    if (!wv) {
      ca[2] = old_b;
      return false;
    }
    for (int64_t c = 0; c < C; c++) {
      /* a float product over disjoint rows vectorizes: a ResNet-18 has 11M
       * weights to scale at load */
      const float af = sc[c], *restrict src = ow + c * per;
      float *restrict dst = nw + c * per;
      for (int64_t k = 0; k < per; k++) dst[k] = src[k] * af;
    }
    ca[1] = wv;
  }
  pte_rewrite_release(rw, ow, wbytes);
  if (into_z) {
    ca[9] = ca[10] = ba[7];
  } else { /* the readers of the batch norm's output read the convolution's */
    const int32_t last = pte_rewrite_value_use(rw, z).last;
    for (int32_t j = i + 2; j <= last; j++) {
      int32_t n;
      pte_value **args = pte_rewrite_args(rw, j, &n);
      for (int32_t k = 0; k < n; k++)
        if (args[k] == z) args[k] = (pte_value *)y;
    }
  }
  pte_rewrite_skip(rw, i + 1);
  return true;
}

/* constant_pad_nd with zeros, the same amount on both sides of H and of W,
 * read only by a convolution without padding: the convolution pads instead
 * (MobileNetV2's TensorFlow-style padding), its kernel chosen again for the
 * new arguments (and the scratch it asks for), the pad skipped. */
static bool pad_conv(pte_rewrite *rw, int32_t i) {
  int32_t pn, cn;
  pte_value **pa = pte_rewrite_args(rw, i, &pn), **ca = pte_rewrite_args(rw, i + 1, &cn);
  if (!pa || !ca || pn != 5 || cn != 11) return false;
  const pte_value *p = pa[3];
  int64_t pad[4], cpad[2];
  double zero = 1.0;
  if (pa[0]->tag != PTE_TAG_TENSOR || p->tag != PTE_TAG_TENSOR || pa[4] != p || ca[0] != p ||
      pte_value_int_list(pa[1], pad, 4) != 4 || !pte_value_to_double(pa[2], &zero) || zero != 0.0 ||
      ca[6]->tag != PTE_TAG_BOOL || ca[6]->u.b || ca[9]->tag != PTE_TAG_TENSOR)
    return false;
  int32_t nc = pte_value_int_list(ca[4], cpad, 2);
  if (nc < 1 || cpad[0] != 0 || cpad[nc - 1] != 0) return false;
  if (pad[0] != pad[1] || pad[2] != pad[3] || pad[0] < 0 || pad[2] < 0 || pad[0] > 65536 || pad[2] > 65536)
    return false;
  const pte_tensor *x = pa[0]->u.tensor;
  const pte_rewrite_use up = pte_rewrite_value_use(rw, p);
  /* the padded tensor is the pair's own; the convolution's output may not
   * take x's bytes (the planner may give them, free once the pad ran) */
  if (x->dim != 4 || up.io || up.opaque || up.first != i || up.writer != i || up.last != i + 1 ||
      viewed_after(rw, i, p, p->u.tensor) || bytes_overlap(ca[9]->u.tensor, x))
    return false;
  pte_value *iv = (pte_value *)pte_rewrite_alloc(rw, 2 * sizeof(pte_value));
  pte_value **items = (pte_value **)pte_rewrite_alloc(rw, 2 * sizeof(pte_value *));
  pte_value *lv = (pte_value *)pte_rewrite_alloc(rw, sizeof(pte_value));
  if (!iv || !items || !lv) return false;
  memset(iv, 0, 2 * sizeof *iv);
  memset(lv, 0, sizeof *lv);
  iv[0].tag = iv[1].tag = PTE_TAG_INT;
  iv[0].u.i = pad[2];
  iv[1].u.i = pad[0];
  items[0] = &iv[0], items[1] = &iv[1];
  lv->tag = PTE_TAG_INT_LIST;
  lv->len = 2;
  lv->u.items = items;
  pte_value *old0 = ca[0], *old4 = ca[4];
  ca[0] = pa[0];
  ca[4] = lv;
  if (!pte_rewrite_resolve(rw, i + 1)) {
    ca[0] = old0, ca[4] = old4;
    return false;
  }
  pte_rewrite_skip(rw, i);
  return true;
}

/* A product (addmm, linear, mm; instruction i) whose weight gets packed,
 * followed by relu or hardtanh of its output, which nothing else reads: the
 * clamp runs in the GEMM's epilogue, the product writes the activation's
 * output (its bytes none of the product's inputs', nothing later viewing
 * the product's own), and the activation is skipped. */
static bool prod_act(pte_rewrite *rw, int32_t i, bool (*prepare)(pte_rewrite *, int32_t, const o_act *)) {
  int32_t pn, an;
  pte_value **pa = pte_rewrite_args(rw, i, &pn), **aa = pte_rewrite_args(rw, i + 1, &an);
  if (!prepare || !pa || !aa || pn < 2 || (an != 3 && an != 5)) return false;
  const pte_value *y = pa[pn - 1], *z = aa[an - 1];
  if (y->tag != PTE_TAG_TENSOR || z->tag != PTE_TAG_TENSOR || aa[0] != y || aa[an - 2] != z) return false;
  o_act act = {0.0f, INFINITY};
  if (an == 5) { /* hardtanh(x, min, max, out) */
    double lo, hi;
    if (!pte_value_to_double(aa[1], &lo) || !pte_value_to_double(aa[2], &hi) || !(lo <= hi)) return false;
    act.lo = (float)lo, act.hi = (float)hi;
  }
  const pte_rewrite_use uy = pte_rewrite_value_use(rw, y);
  if (uy.io || uy.opaque || uy.first != i || uy.writer != i || uy.last != i + 1) return false;
  const pte_tensor *yt = y->u.tensor, *zt = z->u.tensor;
  if (zt->dtype != yt->dtype || zt->dim != yt->dim || zt->capacity < yt->capacity ||
      (zt->flags & PTE_TENSOR_READONLY))
    return false;
  for (int32_t d = 0; d < yt->dim; d++)
    if (zt->sizes[d] != yt->sizes[d] || zt->dim_order[d] != yt->dim_order[d]) return false;
  for (int32_t k = 0; k < pn; k++)
    if (pa[k] != y && pa[k]->tag == PTE_TAG_TENSOR && bytes_overlap(zt, pa[k]->u.tensor)) return false;
  if (viewed_after(rw, i, y, yt) || !prepare(rw, i, &act)) return false;
  for (int32_t k = 0; k < pn; k++)
    if (pa[k] == y) pa[k] = (pte_value *)z;
  pte_rewrite_skip(rw, i + 1);
  return true;
}

static bool addmm_act(pte_rewrite *rw, int32_t i) { return prod_act(rw, i, o_addmm_prepare_act); }
static bool linear_act(pte_rewrite *rw, int32_t i) { return prod_act(rw, i, o_linear_prepare_act); }
static bool mm_act(pte_rewrite *rw, int32_t i) { return prod_act(rw, i, o_mm_prepare_act); }

static const pte_rewrite_rule g_rules[] = {
    PTE_REWRITE_RULE_INIT("aten::constant_pad_nd.out", "aten::convolution.out", "kernels_optimized",
                          pad_conv),
    PTE_REWRITE_RULE_INIT("aten::convolution.out", "aten::_native_batch_norm_legit_no_training.out",
                          "kernels_optimized", conv_bn),
    PTE_REWRITE_RULE_INIT("aten::addmm.out", "aten::relu.out", "kernels_optimized", addmm_act),
    PTE_REWRITE_RULE_INIT("aten::addmm.out", "aten::hardtanh.out", "kernels_optimized", addmm_act),
    PTE_REWRITE_RULE_INIT("aten::linear.out", "aten::relu.out", "kernels_optimized", linear_act),
    PTE_REWRITE_RULE_INIT("aten::linear.out", "aten::hardtanh.out", "kernels_optimized", linear_act),
    PTE_REWRITE_RULE_INIT("aten::mm.out", "aten::relu.out", "kernels_optimized", mm_act),
    PTE_REWRITE_RULE_INIT("aten::mm.out", "aten::hardtanh.out", "kernels_optimized", mm_act),
    /* single instructions after the pairs: a pair may change the weight */
    PTE_REWRITE_RULE_INIT("aten::addmm.out", NULL, "kernels_optimized", o_addmm_prepare),
    PTE_REWRITE_RULE_INIT("aten::linear.out", NULL, "kernels_optimized", o_linear_prepare),
    PTE_REWRITE_RULE_INIT("aten::mm.out", NULL, "kernels_optimized", o_mm_prepare),
    PTE_REWRITE_RULE_INIT("aten::convolution.out", NULL, "kernels_optimized", o_conv_prepare),
};

pte_status pte_opt_register_rewrites(void); /* register.c registers the library with it */
pte_status pte_opt_register_rewrites(void) {
  for (size_t r = 0; r < sizeof g_rules / sizeof *g_rules; r++) {
    /* its op file is not in this (selective) build */
    if (!g_rules[r].apply || (g_rules[r].apply == addmm_act && !o_addmm_prepare_act) ||
        (g_rules[r].apply == linear_act && !o_linear_prepare_act) ||
        (g_rules[r].apply == mm_act && !o_mm_prepare_act))
      continue;
    pte_status st = pte_register_rewrite(&g_rules[r]);
    if (st) return st;
  }
  return PTE_OK;
}
