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

/* ---- identity copies: the producer writes the copy's output instead ---- */

#define ELIDE_MAX 8 /* copies in one chain */

static bool in_set(const pte_value *v, const pte_value *const *set, int32_t n) {
  for (int32_t k = 0; k < n; k++)
    if (v == set[k]) return true;
  return false;
}

/* Whether a tensor value not in `skip` that shares bytes with t is referred
 * to anywhere in [lo, hi] (a method input from the start, an output to the
 * end; anything opaque counts as busy). */
static bool bytes_busy(pte_rewrite *rw, const pte_tensor *t, int32_t lo, int32_t hi,
                       const pte_value *const *skip, int32_t nskip) {
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t k = 0; k < nv; k++) {
    const pte_value *v = pte_rewrite_value(rw, k);
    if (v->tag != PTE_TAG_TENSOR || !bytes_overlap(v->u.tensor, t) || in_set(v, skip, nskip)) continue;
    const pte_rewrite_use u = pte_rewrite_value_use(rw, v);
    if (u.opaque) return true;
    int32_t a = u.first, b = u.last;
    if (u.io) { /* an output first referred to where it is written is nobody's before */
      if (u.writer < 0 || u.first != u.writer) a = 0;
      if (u.writer >= 0) b = INT32_MAX;
    }
    if (a < 0 && !u.io) continue;
    if (a <= hi && b >= lo) {
      return true;
    }
  }
  return false;
}

/* Whether an instruction surely writes v: it is its writer's last argument
 * (or in the list there), or an output of a delegate. The use table also names as writer the first
 * reader of a planner view that is among its trailing arguments (bmm's
 * operands): those are not. */
static bool surely_written(pte_rewrite *rw, const pte_value *v, int32_t *w) {
  const pte_rewrite_use u = pte_rewrite_value_use(rw, v);
  int32_t n = 0, nouts = 0;
  *w = u.writer;
  if (u.writer < 0) return false;
  pte_value **a = pte_rewrite_args(rw, u.writer, &n);
  if (!a) { /* a delegate writes each of its outputs */
    pte_value **d = pte_rewrite_delegate_args(rw, u.writer, &n, &nouts);
    for (int32_t k = n - nouts; d && k < n; k++)
      if (d[k] == v) return true;
    return false;
  }
  if (n < 1) return false;
  if (a[n - 1] == v) return true;
  if (a[n - 1]->tag == PTE_TAG_TENSOR_LIST)
    for (int32_t k = 0; k < a[n - 1]->len; k++)
      if (a[n - 1]->u.items[k] == v) return true;
  return false;
}

/* The value written last before instruction i over exactly v's bytes (v's
 * source, when v is a planner view), NULL if none. */
static const pte_value *written_before(pte_rewrite *rw, const pte_value *v, int32_t i, int32_t *w) {
  const pte_value *best = NULL;
  int32_t bw = -1;
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t k = 0; k < nv; k++) {
    const pte_value *s = pte_rewrite_value(rw, k);
    if (s == v || s->tag != PTE_TAG_TENSOR || s->u.tensor->data != v->u.tensor->data ||
        pte_tensor_nbytes(s->u.tensor) < pte_tensor_nbytes(v->u.tensor))
      continue;
    int32_t sw;
    if (surely_written(rw, s, &sw) && sw < i && sw > bw) best = s, bw = sw;
  }
  *w = bw;
  return best;
}

/* Whether a planner view (a value no instruction surely writes) not in
 * `skip`, of t's bytes, read after instruction `after`, may read a value of
 * `skip` (whose writes a rule removes): its source (the value written last
 * at its address before it is read) is one, or unknown, or one of them was
 * written over it after its source. Views of z, the chain's output, are
 * fine. */
static bool view_reads(pte_rewrite *rw, const pte_tensor *t, int32_t after, const pte_value *z,
                       const pte_value *const *skip, int32_t nskip) {
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t k = 0; k < nv; k++) {
    const pte_value *v = pte_rewrite_value(rw, k);
    if (v->tag != PTE_TAG_TENSOR || !bytes_overlap(v->u.tensor, t) || in_set(v, skip, nskip)) continue;
    const pte_rewrite_use u = pte_rewrite_value_use(rw, v);
    int32_t sw;
    if (u.last <= after || surely_written(rw, v, &sw)) continue; /* a value of its own: bytes_busy's */
    const pte_value *s = u.opaque || u.io ? NULL : written_before(rw, v, u.first, &sw);
    if (!s || (s != z && in_set(s, skip, nskip))) return true;
    if (s == z) continue;
    for (int32_t g = 0; g < nskip; g++) {
      int32_t gw;
      if (skip[g]->tag == PTE_TAG_TENSOR && surely_written(rw, skip[g], &gw) && gw > sw && gw < u.first &&
          bytes_overlap(skip[g]->u.tensor, v->u.tensor))
        return true;
    }
  }
  return false;
}

/* Whether an instruction strictly between lo and hi refers to v. */
static bool referred_between(pte_rewrite *rw, const pte_value *v, int32_t lo, int32_t hi) {
  for (int32_t j = lo + 1; j < hi; j++)
    if (pte_rewrite_refers(rw, j, v)) return true;
  return false;
}

/* Static, contiguous, the same dtype and element count, with bytes. */
static bool same_bytes_layout(const pte_tensor *a, const pte_tensor *b) {
  return a->dtype == b->dtype && a->dynamism == PTE_SHAPE_STATIC && b->dynamism == PTE_SHAPE_STATIC &&
         pte_tensor_is_contiguous(a) && pte_tensor_is_contiguous(b) &&
         pte_tensor_numel(a) == pte_tensor_numel(b) && a->data && b->data;
}

/* The value an earlier kernel instruction wrote (its writer in *w) whose
 * bytes x, read by instruction i, holds: x itself, referred to by its
 * writer and i alone, or the value a planner view x (read by i alone)
 * shares exactly, the last one written before i, referred to by its writer
 * alone. NULL if there is none. */
static pte_value *source_of(pte_rewrite *rw, pte_value *x, int32_t i, int32_t *w) {
  if (x->tag != PTE_TAG_TENSOR) return NULL;
  const pte_rewrite_use ux = pte_rewrite_value_use(rw, x);
  int32_t xw;
  if (ux.io || ux.opaque || ux.last != i) return NULL;
  if (surely_written(rw, x, &xw)) {
    if (xw >= i || ux.first != xw || referred_between(rw, x, xw, i)) return NULL;
    *w = xw;
    return x;
  }
  if (ux.first != i) return NULL; /* a view read by i alone */
  int32_t bw;
  pte_value *best = (pte_value *)written_before(rw, x, i, &bw);
  if (!best) return NULL;
  const pte_rewrite_use ub = pte_rewrite_value_use(rw, best);
  if (ub.io || ub.opaque || ub.first != bw || ub.last != bw ||
      !same_bytes_layout(best->u.tensor, x->u.tensor) ||
      pte_tensor_nbytes(best->u.tensor) != pte_tensor_nbytes(x->u.tensor))
    return NULL;
  *w = bw;
  return best;
}

/* Whether argument v (a tensor or a list of them) shares bytes with t. */
static bool args_overlap(const pte_value *v, const pte_tensor *t) {
  if (v->tag == PTE_TAG_TENSOR) return bytes_overlap(v->u.tensor, t);
  if (v->tag == PTE_TAG_TENSOR_LIST || v->tag == PTE_TAG_OPTIONAL_TENSOR_LIST)
    for (int32_t k = 0; k < v->len; k++)
      if (v->u.items[k] && v->u.items[k]->tag == PTE_TAG_TENSOR && bytes_overlap(v->u.items[k]->u.tensor, t))
        return true;
  return false;
}

/* A tensor value shaped like `like` over `over`'s bytes (method memory). */
static pte_value *retarget(pte_rewrite *rw, const pte_value *like, pte_value *over) {
  if (same_shape(like->u.tensor, over->u.tensor)) return over;
  pte_value *v = (pte_value *)pte_rewrite_alloc(rw, sizeof *v);
  pte_tensor *t = (pte_tensor *)pte_rewrite_alloc(rw, sizeof *t);
  if (!v || !t) return NULL;
  memset(v, 0, sizeof *v);
  *t = *like->u.tensor;
  t->data = over->u.tensor->data;
  t->capacity = over->u.tensor->capacity;
  t->flags = over->u.tensor->flags;
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
  return v;
}

/* Instruction i copies its input unchanged into an output of the same shape
 * and layout (a clone keeping the contiguous dim order, an expand to the
 * input's own sizes): input in *x, output in *z. */
static bool identity_copy(pte_rewrite *rw, int32_t i, pte_value **x, pte_value **z) {
  int32_t n;
  pte_value **a = pte_rewrite_args(rw, i, &n);
  const char *op = pte_rewrite_op(rw, i);
  if (!a || n != 5 || a[3] != a[4] || a[0]->tag != PTE_TAG_TENSOR || a[3]->tag != PTE_TAG_TENSOR)
    return false;
  const pte_tensor *xt = a[0]->u.tensor, *zt = a[3]->u.tensor;
  if (!same_shape(xt, zt) || !same_bytes_layout(xt, zt) || (zt->flags & PTE_TENSOR_READONLY) ||
      zt->capacity < pte_tensor_nbytes(xt))
    return false;
  if (!strcmp(op, "dim_order_ops::_clone_dim_order.out")) {
    int64_t order[PTE_MAX_DIM];
    if (a[2]->tag != PTE_TAG_NONE) { /* the dim order asked for: the contiguous one */
      if (pte_value_int_list(a[2], order, PTE_MAX_DIM) != xt->dim) return false;
      for (int32_t d = 0; d < xt->dim; d++)
        if (order[d] != d) return false;
    }
  } else if (!strcmp(op, "aten::expand_copy.out")) {
    int64_t sizes[PTE_MAX_DIM];
    if (pte_value_int_list(a[1], sizes, PTE_MAX_DIM) != xt->dim) return false;
    for (int32_t d = 0; d < xt->dim; d++)
      if (sizes[d] != xt->sizes[d] && sizes[d] != -1) return false;
  } else {
    return false;
  }
  *x = a[0], *z = a[3];
  return true;
}

static bool busy_until(pte_rewrite *rw, const pte_value *base, int32_t lo, int32_t hi, int32_t reader,
                       const pte_value **gone, int32_t ngone);

/* The slot of delegate instruction w's output y: y once among its
 * outputs and not among its inputs; NULL otherwise (or w no delegate). */
static pte_value **delegate_output(pte_rewrite *rw, int32_t w, const pte_value *y) {
  int32_t n, nouts;
  pte_value **a = pte_rewrite_delegate_args(rw, w, &n, &nouts), **slot = NULL;
  for (int32_t k = 0; a && k < n; k++) {
    if (a[k] != y) continue;
    if (slot || k < n - nouts) return NULL; /* twice, or an input too */
    slot = &a[k];
  }
  return slot;
}

/* An identity copy (i), and the identity copies right after it of each
 * one's output, of a value that a kernel instruction w wrote as its out
 * argument for the copy alone (or a planner view of one; ViT's dropout
 * clones and expands before bmm), or a delegate as an output (the
 * attention copies a partitioner leaves between XNNPACK delegates): w
 * writes the last copy's output and the copies are skipped. The output's
 * bytes must be nobody else's from w to the last copy (the planner gave
 * them for the copy only, not w's inputs'), and nothing reads the skipped
 * values' bytes later through a view. */
static bool copy_elide(pte_rewrite *rw, int32_t i) {
  pte_value *x, *z;
  int32_t w;
  if (!identity_copy(rw, i, &x, &z)) return false;
  /* where w names its output: a kernel twice (out argument, result) */
  pte_value **slot[2] = {NULL, NULL};
  pte_value *y = source_of(rw, x, i, &w);
  if (!y) return false;
  int32_t wn;
  pte_value **wa = pte_rewrite_args(rw, w, &wn);
  if (wa) {
    if (wn < 2 || wa[wn - 1] != y || wa[wn - 2] != y) return false;
    for (int32_t k = 0; k < wn - 2; k++)
      if (wa[k] == y) return false;
    slot[0] = &wa[wn - 1], slot[1] = &wa[wn - 2];
  } else if (y != x || !(slot[0] = slot[1] = delegate_output(rw, w, y))) {
    return false; /* a delegate's own output only, not a planner view of one */
  }
  const pte_value *gone[2 * ELIDE_MAX + 4] = {x, y};
  int32_t ngone = 2, last = i;
  for (int32_t j = i + 1; j < pte_rewrite_num_instructions(rw) && ngone < 2 * ELIDE_MAX; j++) {
    pte_value *x2, *z2;
    int32_t w2;
    if (!identity_copy(rw, j, &x2, &z2) || source_of(rw, x2, j, &w2) != z || w2 != last) break;
    gone[ngone++] = z, gone[ngone++] = x2;
    z = z2, last = j;
  }
  const pte_rewrite_use uz = pte_rewrite_value_use(rw, z);
  if (uz.io || uz.opaque || uz.writer != last) return false;
  gone[ngone] = z;
  /* by the use table, and by the arguments as earlier rules left them (the
   * producer's inputs included) */
  if (bytes_busy(rw, z->u.tensor, w, last, gone, ngone + 1) ||
      bytes_busy(rw, y->u.tensor, w, last, gone, ngone + 1) || busy_until(rw, z, w, last, -1, gone, ngone))
    return false;
  for (int32_t k = 0; k < ngone; k++)
    if (view_reads(rw, gone[k]->u.tensor, w, z, gone, ngone + 1)) return false;
  pte_value *nz = retarget(rw, y, z);
  if (!nz) return false;
  *slot[0] = *slot[1] = nz;
  for (int32_t j = i; j <= last; j++) pte_rewrite_skip(rw, j);
  return true;
}

/* A multiply by a constant float of one element (i) whose output only the
 * softmax after it reads: the softmax scales its input rows itself (the
 * same products, in L1) and the multiply is skipped. The softmax's output
 * may be the very bytes of the multiply's input (in place, row by row), or
 * none of them. */
static bool mul_softmax(pte_rewrite *rw, int32_t i) {
  int32_t mn, sn;
  pte_value **ma = pte_rewrite_args(rw, i, &mn), **sa = pte_rewrite_args(rw, i + 1, &sn);
  if (!o_softmax_prepare_scale || !ma || !sa || mn != 4 || sn != 5 || ma[2] != ma[3] || sa[3] != sa[4])
    return false;
  pte_value *x = ma[0], *s = ma[1], *z = ma[2], *o = sa[3];
  if (x->tag != PTE_TAG_TENSOR || z->tag != PTE_TAG_TENSOR || o->tag != PTE_TAG_TENSOR || sa[0] != z ||
      s->tag != PTE_TAG_TENSOR || !pte_rewrite_constant(rw, s) || s->u.tensor->dtype != PTE_FLOAT32 ||
      pte_tensor_numel(s->u.tensor) != 1 || !s->u.tensor->data || !same_shape(x->u.tensor, z->u.tensor) ||
      !same_bytes_layout(x->u.tensor, z->u.tensor))
    return false;
  const pte_rewrite_use uz = pte_rewrite_value_use(rw, z);
  const pte_value *gone[] = {z};
  if (uz.io || uz.opaque || uz.first != i || uz.writer != i || uz.last != i + 1 ||
      view_reads(rw, z->u.tensor, i, NULL, gone, 1))
    return false;
  const pte_tensor *xt = x->u.tensor, *ot = o->u.tensor;
  if (bytes_overlap(xt, ot) && (xt->data != ot->data || !same_shape(xt, ot))) return false;
  if (!o_softmax_prepare_scale(rw, i + 1, *(const float *)s->u.tensor->data)) return false;
  sa[0] = x;
  pte_rewrite_skip(rw, i);
  return true;
}

/* ---- bmm reading its operands through the permutes and copies before it ---- */

#define FOLD_MAX 6 /* copies followed back from one operand */

/* A strided view over the bytes of `base` (strides in elements). */
typedef struct fold_view {
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
} fold_view;

/* Re-express view d, laid over the contiguous bytes of s (a permute's output,
 * with dims `perm` of its input x), over x's contiguous bytes: each dim of d
 * larger than 1 must be one of s's (its size and stride). */
static bool through_permute(fold_view *d, const pte_tensor *s, const pte_tensor *x, const int64_t *perm) {
  for (int32_t k = 0; k < d->dim; k++) {
    if (d->sizes[k] == 1) continue;
    int32_t m = -1;
    for (int32_t e = 0; e < s->dim && m < 0; e++)
      if (s->sizes[e] == d->sizes[k] && s->strides[e] == d->strides[k]) m = e;
    if (m < 0 || perm[m] < 0 || perm[m] >= x->dim) return false;
    d->strides[k] = x->strides[perm[m]];
  }
  return true;
}

/* Whether base's bytes are touched, from instruction lo + 1 to hi, by any
 * value not in `gone` (by the use table), or by an argument of a kernel
 * instruction from lo to hi as the rules left it (bmm's operands `reader`
 * excepted). */
static bool busy_until(pte_rewrite *rw, const pte_value *base, int32_t lo, int32_t hi, int32_t reader,
                       const pte_value **gone, int32_t ngone) {
  const pte_tensor *bt = base->u.tensor;
  gone[ngone] = base;
  if (bytes_busy(rw, bt, lo + 1, hi, gone, ngone + 1)) return true;
  for (int32_t j = lo; j <= hi; j++) {
    int32_t an;
    pte_value **args = pte_rewrite_args(rw, j, &an);
    if (!args) {
      if (pte_rewrite_refers(rw, j, base)) return true;
      continue;
    }
    for (int32_t k = 0; k < an; k++)
      if (!(j == reader && k < 2) && !in_set(args[k], gone, ngone + 1) && args_overlap(args[k], bt))
        return true;
  }
  return false;
}

static bool in_list(pte_value *const *a, int32_t n, const pte_value *v) {
  for (int32_t k = 0; k < n; k++)
    if (a[k] == v) return true;
  return false;
}

extern const pte_kernel pte_opt_kernel_bmm_out __attribute__((weak));

/* Follow bmm operand `op` (instruction i) back through planner views,
 * identity copies and permutes whose outputs only the next step reads, to
 * the value they started from: bmm reads it in place, strided, and those
 * copies are skipped. Its bytes must be nobody else's from the first
 * skipped instruction to bmm (the planner freed them after the first
 * copy), by the use table and by every argument as the rules left it. */
static bool fold_operand(pte_rewrite *rw, int32_t i, int32_t op) {
  int32_t n;
  pte_value **ba = pte_rewrite_args(rw, i, &n);
  pte_value *cur = ba[op];
  const pte_tensor *ct = cur->u.tensor;
  if (!pte_tensor_is_contiguous(ct) || ct->dynamism != PTE_SHAPE_STATIC) return false;
  fold_view d[FOLD_MAX + 1];
  pte_value *base[FOLD_MAX + 1];
  d[0].dim = ct->dim;
  for (int32_t k = 0; k < ct->dim; k++) d[0].sizes[k] = ct->sizes[k], d[0].strides[k] = ct->strides[k];
  base[0] = cur;
  const pte_value *gone[2 * FOLD_MAX + 2];
  int32_t skip[FOLD_MAX], nskip = 0, reader = i;
  pte_value *src = NULL, **sa = NULL; /* where the chain starts: a kernel's output, its arguments */
  int32_t sn = 0, sw = -1;
  while (nskip < FOLD_MAX) {
    int32_t w, wn;
    pte_value *y = source_of(rw, cur, reader, &w);
    pte_value **wa = y ? pte_rewrite_args(rw, w, &wn) : NULL;
    const char *wop = wa ? pte_rewrite_op(rw, w) : NULL;
    const bool perm_op = wop && !strcmp(wop, "aten::permute_copy.out");
    if (wa && wn >= 2 && wa[wn - 1] == y && wa[wn - 2] == y) src = y, sa = wa, sn = wn, sw = w;
    if (!wop || wn != (perm_op ? 4 : 5) || wa[wn - 1] != y || wa[wn - 2] != y || wa[0]->tag != PTE_TAG_TENSOR)
      break;
    src = NULL;
    pte_value *x = wa[0];
    const pte_tensor *xt = x->u.tensor, *yt = y->u.tensor;
    if (!pte_tensor_is_contiguous(xt) || !pte_tensor_is_contiguous(yt) || xt->dtype != yt->dtype ||
        xt->dynamism != PTE_SHAPE_STATIC || !xt->data)
      break;
    fold_view nd = d[nskip];
    if (perm_op) {
      int64_t perm[PTE_MAX_DIM];
      if (xt->dim != yt->dim || pte_value_int_list(wa[1], perm, PTE_MAX_DIM) != yt->dim) break;
      bool ok = true, seen[PTE_MAX_DIM] = {false};
      for (int32_t k = 0; k < yt->dim && ok; k++) { /* a permutation (else strides could reach past x) */
        if (perm[k] < 0) perm[k] += yt->dim;
        ok = perm[k] >= 0 && perm[k] < xt->dim && !seen[perm[k]] && yt->sizes[k] == xt->sizes[perm[k]];
        if (ok) seen[perm[k]] = true;
      }
      if (!ok || !through_permute(&nd, yt, xt, perm)) break;
    } else {
      pte_value *ix, *iz;
      if (!identity_copy(rw, w, &ix, &iz) || iz != y) break;
    }
    gone[2 * nskip] = cur, gone[2 * nskip + 1] = y;
    skip[nskip++] = w;
    d[nskip] = nd, base[nskip] = cur = x, reader = w;
  }
  if (!nskip) return false;
  /* The whole chain with its source's producer writing bytes of its own
   * (method memory: the planner reused its bytes before bmm), nothing else
   * reading the source's old bytes; else the longest chain whose start's
   * bytes nobody else touches from its first skipped copy to bmm. */
  int32_t level = nskip;
  void *own = NULL;
  if (busy_until(rw, base[level], skip[level - 1], i, i, gone, 2 * level)) {
    const pte_value *keep[2 * FOLD_MAX + 2];
    memcpy(keep, gone, sizeof(gone[0]) * (size_t)(2 * level));
    keep[2 * level] = src, keep[2 * level + 1] = base[level];
    if (src && !in_list(sa, sn - 2, src) && same_bytes_layout(src->u.tensor, src->u.tensor) &&
        !view_reads(rw, src->u.tensor, sw, NULL, keep, 2 * level + 2))
      own = pte_rewrite_alloc(rw, pte_tensor_nbytes(src->u.tensor));
    if (!own) {
      for (level = nskip - 1; level > 0; level--)
        if (!busy_until(rw, base[level], skip[level - 1], i, i, gone, 2 * level)) break;
      if (!level) return false;
    }
  }
  pte_value *v = (pte_value *)pte_rewrite_alloc(rw, sizeof *v);
  pte_tensor *t = (pte_tensor *)pte_rewrite_alloc(rw, sizeof *t);
  pte_value *nsrc = own ? (pte_value *)pte_rewrite_alloc(rw, sizeof *nsrc) : NULL;
  pte_tensor *ns = own ? (pte_tensor *)pte_rewrite_alloc(rw, sizeof *ns) : NULL;
  if (!v || !t || (own && (!nsrc || !ns))) return false;
  const pte_tensor *bt = base[level]->u.tensor;
  memset(v, 0, sizeof *v);
  *t = *ct;
  t->data = own ? own : bt->data;
  t->capacity = own ? pte_tensor_nbytes(src->u.tensor) : bt->capacity;
  t->flags = bt->flags;
  for (int32_t k = 0; k < d[level].dim; k++) t->strides[k] = d[level].strides[k];
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
  if (own) {
    memset(nsrc, 0, sizeof *nsrc);
    *ns = *src->u.tensor;
    ns->data = own;
    ns->capacity = pte_tensor_nbytes(src->u.tensor);
    ns->flags &= ~(uint32_t)PTE_TENSOR_PLANNED;
    nsrc->tag = PTE_TAG_TENSOR;
    nsrc->u.tensor = ns;
    sa[sn - 1] = sa[sn - 2] = nsrc;
  }
  ba[op] = v;
  for (int32_t k = 0; k < level; k++) pte_rewrite_skip(rw, skip[k]);
  return true;
}

/* bmm's two operands folded (either may decline); the optimized bmm reads
 * strided operands (the kernel chosen at load may not). */
static bool bmm_fold(pte_rewrite *rw, int32_t i) {
  int32_t n;
  pte_value **ba = pte_rewrite_args(rw, i, &n);
  if (!&pte_opt_kernel_bmm_out || !ba || n != 4 || ba[2] != ba[3]) return false;
  for (int32_t k = 0; k < 3; k++)
    if (ba[k]->tag != PTE_TAG_TENSOR || ba[k]->u.tensor->dtype != PTE_FLOAT32 || ba[k]->u.tensor->dim != 3)
      return false;
  if (!pte_opt_kernel_bmm_out.accepts(ba, n) || !pte_rewrite_set_kernel(rw, i, &pte_opt_kernel_bmm_out, NULL))
    return false;
  bool a = fold_operand(rw, i, 0);
  bool b = fold_operand(rw, i, 1);
  return a || b;
}

/* The number a mul's or add's other operand holds at load: a Scalar, or a
 * constant 0-dim float tensor. */
static bool const_num(const pte_rewrite *rw, const pte_value *v, double *out) {
  if (pte_value_to_double(v, out)) return true;
  if (v->tag != PTE_TAG_TENSOR || !pte_rewrite_constant(rw, v)) return false;
  const pte_tensor *t = v->u.tensor;
  if (t->dim != 0 || !t->data || t->capacity < pte_tensor_nbytes(t)) return false;
  if (t->dtype == PTE_FLOAT32) *out = *(const float *)t->data;
  else if (t->dtype == PTE_FLOAT64) *out = *(const double *)t->data;
  else return false;
  return true;
}

/* Whether v is c, as the float32 computation rounds it. */
static bool num_is(const pte_rewrite *rw, const pte_value *v, double c) {
  double d;
  return const_num(rw, v, &d) && (float)d == (float)c;
}

/* Instruction j is `op` with `nargs` arguments, its output (the last two,
 * out and the returned out) a float32 tensor shaped like x; returns it. */
static const pte_value *ew_step(pte_rewrite *rw, int32_t j, const char *op, int32_t nargs, pte_value ***args,
                                const pte_tensor *x) {
  int32_t n;
  const char *name = pte_rewrite_op(rw, j);
  pte_value **a = pte_rewrite_args(rw, j, &n);
  if (!name || strcmp(name, op) || !a || n != nargs) return NULL;
  const pte_value *y = a[n - 1];
  if (a[n - 2] != y || y->tag != PTE_TAG_TENSOR || y->u.tensor->dtype != PTE_FLOAT32 ||
      !same_shape(y->u.tensor, x) || !pte_tensor_is_contiguous(y->u.tensor))
    return NULL;
  *args = a;
  return y;
}

/* Whether the bytes of t lie within those of w. */
static bool bytes_within(const pte_tensor *t, const pte_tensor *w) {
  const uintptr_t tl = (uintptr_t)t->data, wl = (uintptr_t)w->data;
  const size_t tn = pte_tensor_nbytes(t), wn = pte_tensor_nbytes(w);
  return tl && wl && tl >= wl && tl - wl <= wn && tn <= wn - (tl - wl);
}

/* Whether a value that no instruction writes, read after instruction i,
 * shares bytes with t and has some that a chain ending at i no longer
 * writes: a view the planner made. Its bytes may be z's (which the chain
 * still writes: its result may lie in an intermediate's bytes) or those of
 * a value written after i, before the view is first read. */
static bool view_outside(pte_rewrite *rw, int32_t i, const pte_tensor *t, const pte_tensor *z) {
  const int32_t nv = pte_rewrite_num_values(rw);
  for (int32_t v = 0; v < nv; v++) {
    const pte_value *val = pte_rewrite_value(rw, v);
    if (val->tag != PTE_TAG_TENSOR) continue;
    const pte_rewrite_use u = pte_rewrite_value_use(rw, val);
    if (u.writer >= 0 || u.last <= i || !bytes_overlap(val->u.tensor, t) || bytes_within(val->u.tensor, z))
      continue;
    bool covered = false;
    for (int32_t w = 0; w < nv && !covered; w++) {
      const pte_value *wv = pte_rewrite_value(rw, w);
      if (wv->tag != PTE_TAG_TENSOR) continue;
      const pte_rewrite_use uw = pte_rewrite_value_use(rw, wv);
      covered =
          !uw.opaque && uw.writer > i && uw.writer < u.first && bytes_within(val->u.tensor, wv->u.tensor);
    }
    if (!covered) return true;
  }
  return false;
}

/* One of a and b is v, the other the number c. */
static bool pair_is(const pte_rewrite *rw, pte_value *const *a, const pte_value *v, double c) {
  return (a[0] == v && num_is(rw, a[1], c)) || (a[1] == v && num_is(rw, a[0], c));
}

/* GPT-2's tanh GELU as exported, eight instructions from i:
 *   h = x * 0.5; p = x ** 3; q = p * 0.044715; s = x + q;
 *   u = s * sqrt(2/pi); t = tanh(u); w = t + 1; z = h * w
 * becomes one gelu(x, approximate="tanh") into z at i (o_gelu_tanh_set: a
 * vectorized pass instead of eight, the tanh libm's), the other seven
 * skipped. Every intermediate is the chain's own (written and last read in
 * it, no method input or output, no view of it read later); z's bytes are
 * x's exactly or apart from them. */
static bool gelu_chain(pte_rewrite *rw, int32_t i) {
  if (!o_gelu_tanh_set) return false;
  int32_t n0;
  pte_value **a0 = pte_rewrite_args(rw, i, &n0);
  if (!a0 || n0 != 4 || a0[0]->tag != PTE_TAG_TENSOR) return false;
  const pte_value *x = a0[0];
  const pte_tensor *xt = x->u.tensor;
  if (xt->dtype != PTE_FLOAT32 || !pte_tensor_is_contiguous(xt)) return false;
  pte_value **a[8];
  const pte_value *v[8];
  static const char *const ops[8] = {"aten::mul.out", "aten::pow.Tensor_Scalar_out",
                                     "aten::mul.out", "aten::add.out",
                                     "aten::mul.out", "aten::tanh.out",
                                     "aten::add.out", "aten::mul.out"};
  static const int32_t nargs[8] = {4, 4, 4, 5, 4, 3, 5, 4};
  for (int32_t k = 0; k < 8; k++)
    if (!(v[k] = ew_step(rw, i + k, ops[k], nargs[k], &a[k], xt))) return false;
  double one;
  const double c = 0.7978845608028654; /* sqrt(2 / pi) */
  if (!pair_is(rw, a[0], x, 0.5) || a[1][0] != x || !num_is(rw, a[1][1], 3.0) ||
      !pair_is(rw, a[2], v[1], 0.044715) ||
      !((a[3][0] == x && a[3][1] == v[2]) || (a[3][0] == v[2] && a[3][1] == x)) ||
      !pte_value_to_double(a[3][2], &one) || one != 1.0 || !pair_is(rw, a[4], v[3], c) || a[5][0] != v[4] ||
      !(a[6][0] == v[5] && num_is(rw, a[6][1], 1.0)) || !pte_value_to_double(a[6][2], &one) || one != 1.0 ||
      !((a[7][0] == v[0] && a[7][1] == v[6]) || (a[7][0] == v[6] && a[7][1] == v[0])))
    return false;
  for (int32_t k = 0; k < 7; k++) {
    const pte_rewrite_use u = pte_rewrite_value_use(rw, v[k]);
    if (v[k] == x || u.io || u.opaque || u.writer != i + k || u.first != i + k || u.last > i + 7 ||
        view_outside(rw, i + 7, v[k]->u.tensor, v[7]->u.tensor))
      return false;
  }
  const pte_tensor *zt = v[7]->u.tensor;
  if ((zt->flags & PTE_TENSOR_READONLY) || (bytes_overlap(zt, xt) && zt->data != xt->data)) return false;
  pte_value *old2 = a0[2], *old3 = a0[3];
  a0[2] = a0[3] = (pte_value *)v[7];
  if (!o_gelu_tanh_set(rw, i)) {
    a0[2] = old2, a0[3] = old3;
    return false;
  }
  for (int32_t k = 1; k < 8; k++) pte_rewrite_skip(rw, i + k);
  return true;
}

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
    PTE_REWRITE_RULE_INIT("aten::mul.out", "aten::_softmax.out", "kernels_optimized", mul_softmax),
    PTE_REWRITE_RULE_INIT("aten::mul.out", "aten::pow.Tensor_Scalar_out", "kernels_optimized", gelu_chain),
    /* single instructions after the pairs: a pair may change the weight */
    PTE_REWRITE_RULE_INIT("aten::addmm.out", NULL, "kernels_optimized", o_addmm_prepare),
    PTE_REWRITE_RULE_INIT("aten::linear.out", NULL, "kernels_optimized", o_linear_prepare),
    PTE_REWRITE_RULE_INIT("aten::mm.out", NULL, "kernels_optimized", o_mm_prepare),
    PTE_REWRITE_RULE_INIT("aten::convolution.out", NULL, "kernels_optimized", o_conv_prepare),
    PTE_REWRITE_RULE_INIT("dim_order_ops::_clone_dim_order.out", NULL, "kernels_optimized", copy_elide),
    PTE_REWRITE_RULE_INIT("aten::expand_copy.out", NULL, "kernels_optimized", copy_elide),
    PTE_REWRITE_RULE_INIT("aten::bmm.out", NULL, "kernels_optimized", bmm_fold),
};

pte_status pte_opt_register_rewrites(void); /* register.c registers the library with it */
pte_status pte_opt_register_rewrites(void) {
  for (size_t r = 0; r < sizeof g_rules / sizeof *g_rules; r++) {
    /* its op file is not in this (selective) build */
    if (!g_rules[r].apply || (g_rules[r].apply == addmm_act && !o_addmm_prepare_act) ||
        (g_rules[r].apply == linear_act && !o_linear_prepare_act) ||
        (g_rules[r].apply == mm_act && !o_mm_prepare_act) ||
        (g_rules[r].apply == mul_softmax && !o_softmax_prepare_scale) ||
        (g_rules[r].apply == gelu_chain && !o_gelu_tanh_set))
      continue;
    pte_status st = pte_register_rewrite(&g_rules[r]);
    if (st) return st;
  }
  return PTE_OK;
}
