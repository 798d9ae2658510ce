/* aten::convolution.out(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride,
 *     SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding,
 *     SymInt groups, *, Tensor(a!) out)
 * Forward 1-D and 2-D float32 convolution on NCHW (as the exporter emits),
 * any stride, padding, dilation and groups. Transposed convolution, 3-D and
 * channels-last tensors are declined (the portable kernel runs them).
 *
 *  - one input channel per output channel (depthwise, channel multiplier
 *    included): direct loops per output plane (util/kern_impl.h), planes
 *    spread over the pool;
 *  - 3x3 stride-1 kernels of one group: the kernel layer's Winograd, with
 *    a constant filter transformed once at load (o_conv_prepare, and
 *    conv_bn in rewrite.c for a folded one; F(2x2) on 14x14 too), else
 *    per call on the maps with enough tiles to repay it (util/conv_wino.h);
 *  - non-overlapping patches (kernel == stride, no padding, one group: ViT's
 *    embedding) with a constant filter packed once at load: the patches are
 *    the product's rows, each a few runs of the input (conv_patches);
 *  - everything else is a matrix product per sample and group,
 *      out[oc, pixel] = W[oc, (ic, kh, kw)] @ col[(ic, kh, kw), pixel] + bias[oc]:
 *    - 1x1 stride-1 unpadded kernels: the input plane is the right-hand
 *      matrix (dense GEMM);
 *    - the others: the input is copied once into a zero-padded buffer split
 *      into stride phases (direct_plan); then row (ic, kh, kw) of col is a
 *      contiguous run of that buffer from a fixed offset on, so the
 *      indirect GEMM reads it in place (o_igemm_run), computing the padded
 *      width and dropping the pad columns when storing. Building im2col
 *      cost more than the products for the narrow layers of small CNNs;
 *    - only if that copy would be huge, the im2col columns are packed
 *      straight into the GEMM's panels (pack_im2col). */
#include "util/conv_wino.h"
#include "util/igemm.h"
#include "util/kern.h"
#include "util/packed.h"

typedef struct conv_geom {
  int64_t N, C, H, W, OC, G, icg, ocg, KH, KW, OH, OW;
  int64_t sh, sw, ph, pw, dh, dw;
} conv_geom;

/* Read a spatial list of 1 or S (S = 1 or 2) values into v[2] (H, W). */
static bool spatial(pte_value *const *args, int32_t nargs, int32_t i, int32_t S, int64_t dflt, int64_t *v) {
  int64_t t[2];
  int32_t n = k_arg_ints(args, nargs, i, t, 2);
  if (n != 1 && n != S) return false;
  v[0] = S == 1 ? dflt : t[0];
  v[1] = n == 1 ? t[0] : t[S - 1];
  if (S == 2 && n == 1) v[0] = t[0];
  return true;
}

/* elements of one sample's padded input, the largest scratch any path here
 * would be sized from */
#define PADDED_MAX ((int64_t)1 << 40)

static bool geom(pte_value *const *args, int32_t nargs, conv_geom *g) {
  const pte_tensor *x = args[0]->u.tensor, *w = args[1]->u.tensor;
  int32_t S = x->dim - 2;
  int64_t st[2], pd[2], dl[2], groups;
  if (S < 1 || S > 2 || w->dim != x->dim) return false;
  if (!spatial(args, nargs, 3, S, 1, st) || !spatial(args, nargs, 4, S, 0, pd) ||
      !spatial(args, nargs, 5, S, 1, dl))
    return false;
  if (!k_arg_tag(args, nargs, 8, PTE_TAG_INT)) return false;
  groups = args[8]->u.i;
  g->N = x->sizes[0];
  g->C = x->sizes[1];
  g->H = S == 2 ? x->sizes[2] : 1;
  g->W = x->sizes[x->dim - 1];
  g->OC = w->sizes[0];
  g->KH = S == 2 ? w->sizes[2] : 1;
  g->KW = w->sizes[w->dim - 1];
  g->sh = st[0], g->sw = st[1], g->ph = pd[0], g->pw = pd[1], g->dh = dl[0], g->dw = dl[1];
  if (S == 1) g->sh = 1, g->ph = 0, g->dh = 1;
  if (groups < 1 || g->C % groups || g->OC % groups || w->sizes[1] != g->C / groups) return false;
  if (g->sh < 1 || g->sw < 1 || g->dh < 1 || g->dw < 1 || g->ph < 0 || g->pw < 0) return false;
  /* with these bounds and the padded input capped, no size or scratch
   * computation here can overflow */
  const int64_t lim = O_WINDOW_MAX;
  if (g->sh > lim || g->sw > lim || g->dh > lim || g->dw > lim || g->ph > lim || g->pw > lim || g->KH > lim ||
      g->KW > lim || g->H > lim || g->W > lim)
    return false;
  g->G = groups;
  g->icg = g->C / groups;
  g->ocg = g->OC / groups;
  int64_t padded;
  if (__builtin_mul_overflow(g->icg, (g->H + 2 * g->ph + g->sh) * (g->W + 2 * g->pw + g->sw), &padded) ||
      padded > PADDED_MAX)
    return false;
  /* the dilated kernel must fit the padded input (C division truncates
   * toward zero, so check before dividing) */
  int64_t eh = g->H + 2 * g->ph - g->dh * (g->KH - 1) - 1, ew = g->W + 2 * g->pw - g->dw * (g->KW - 1) - 1;
  if (eh < 0 || ew < 0) return false;
  g->OH = eh / g->sh + 1;
  g->OW = ew / g->sw + 1;
  return true;
}

static bool conv_accepts(pte_value *const *args, int32_t nargs) {
  conv_geom g;
  if (nargs != 11) return false; /* the out tensor comes back as a last argument */
  if (!k_arg_f32(args, nargs, 0) || !k_arg_f32(args, nargs, 1) || !k_arg_f32(args, nargs, 9)) return false;
  if (!k_arg_none(args, nargs, 2) && !(k_arg_f32(args, nargs, 2) && args[2]->u.tensor->dim == 1))
    return false;
  if (!k_arg_tag(args, nargs, 6, PTE_TAG_BOOL) || args[6]->u.b) return false; /* transposed */
  return geom(args, nargs, &g);
}

static bool is_pointwise(const conv_geom *g) {
  return g->KH == 1 && g->KW == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
}

/* ---- depthwise sizes (the loops are further down) ---- */

/* 3x3 kernels (MobileNet's) copy each plane into a zero-padded buffer (one
 * per chunk of planes, in scratch) and run the bounds-free nine-tap loop;
 * other shapes use the general plane loop with its clipped ranges. */
static bool dw_fast(const conv_geom *g) { return g->KH == 3 && g->KW == 3; }

static size_t dw_plane_bytes(const conv_geom *g) {
  return k_align64((size_t)((g->H + 2 * g->ph) * (g->W + 2 * g->pw)) * sizeof(float));
}

/* The indirect path takes every forward convolution but the 1x1 stride-1
 * unpadded ones (plain GEMM), unless its padded copy would be huge. */
#define DIRECT_MAX_BYTES ((size_t)64 << 20)

/* Layout of the indirect path's scratch: tap offsets, and the
 * zero-padded input split into stride phases: phase (a, b) holds the padded
 * rows a, a+sh, ... and columns b, b+sw, ..., so for any stride the input
 * a tap reads for consecutive output columns is a contiguous run of one
 * phase. With stride 1 there is one phase, the padded input itself. */
typedef struct direct_layout {
  int64_t Hp, Wp, Hph, Wph, phase;
  size_t off_bytes, x_floats;
} direct_layout;

static direct_layout direct_plan(const conv_geom *g) {
  direct_layout l;
  l.Hp = g->H + 2 * g->ph;
  l.Wp = g->W + 2 * g->pw;
  l.Hph = (l.Hp + g->sh - 1) / g->sh;
  l.Wph = (l.Wp + g->sw - 1) / g->sw;
  l.phase = g->icg * l.Hph * l.Wph;
  l.off_bytes = k_align64((size_t)(g->icg * g->KH * g->KW) * sizeof(int64_t));
  l.x_floats = (size_t)(g->sh * g->sw * l.phase) + K_SGEMM_NR_MAX;
  return l;
}

/* Read the phases in place (computing the pad columns) or pack exact
 * column panels from them: packing costs a copy per tap and panel, the pad
 * columns and the ragged last panel cost products. Maps whose padded
 * column space is mostly real pixels (wide maps) are read in place; narrow
 * ones (8x8: a third of the tiles would be padding) are packed. */
static bool direct_in_place(const conv_geom *g, const direct_layout *l) {
  const int64_t NR = K_SGEMM_NR_MAX, P = g->OH * g->OW, Q = (g->OH - 1) * l->Wph + g->OW;
  int64_t cols_in_place = (Q + NR - 1) / NR * NR, cols_packed = (P + NR - 1) / NR * NR;
  return cols_in_place * 85 <= cols_packed * 100;
}

static size_t direct_bytes(const conv_geom *g) {
  direct_layout l = direct_plan(g);
  size_t bytes = l.off_bytes + k_align64(l.x_floats * sizeof(float));
  if (!direct_in_place(g, &l)) bytes += l.off_bytes + o_igemm_panel_bytes(g->icg * g->KH * g->KW) * k_slots();
  return bytes;
}

static bool is_direct(const conv_geom *g) {
  return !is_pointwise(g) && g->sh * g->sw <= 64 && direct_bytes(g) <= DIRECT_MAX_BYTES;
}

/* 3x3 stride 1, one group: Winograd where it pays (util/conv_wino.h) */
static bool wino(const conv_geom *g, o_wino *w) {
  return g->KH == 3 && g->KW == 3 && g->sh == 1 && g->sw == 1 && g->dh == 1 && g->dw == 1 && g->G == 1 &&
         o_wino_plan(g->N, g->C, g->OC, g->H, g->W, g->OH, g->OW, g->ph, g->pw, w);
}

static size_t conv_scratch(pte_value *const *args, int32_t nargs) {
  conv_geom g;
  if (!geom(args, nargs, &g)) return 0;
  o_wino w;
  if (wino(&g, &w)) return k_scratch_round(w.bytes);
  if (g.icg == 1) return dw_fast(&g) ? k_scratch_round(dw_plane_bytes(&g) * k_slots()) : 0;
  if (is_direct(&g)) return k_scratch_round(direct_bytes(&g));
  return k_scratch_round(k_sgemm_scratch(g.ocg, g.OH * g.OW, g.icg * g.KH * g.KW));
}

/* Copy one input channel into its padded, phase-split form (only the
 * phases some tap reads: `used` bit a*sw+b). */
static void fill_phases(const conv_geom *g, const direct_layout *l, const float *src, float *xp, int64_t ic,
                        uint64_t used) {
  if (g->sh == 1 && g->sw == 1) {
    float *d = xp + ic * l->Hph * l->Wph;
    memset(d, 0, (size_t)(g->ph * l->Wp) * sizeof(float));
    for (int64_t h = 0; h < g->H; h++) {
      float *row = d + (g->ph + h) * l->Wp;
      for (int64_t q = 0; q < g->pw; q++) row[q] = 0.0f;
      memcpy(row + g->pw, src + h * g->W, (size_t)g->W * sizeof(float));
      for (int64_t q = g->pw + g->W; q < l->Wp; q++) row[q] = 0.0f;
    }
    memset(d + (g->ph + g->H) * l->Wp, 0, (size_t)((l->Hp - g->ph - g->H) * l->Wp) * sizeof(float));
    return;
  }
  const o_kern_table *kt = o_kern();
  for (int64_t b = 0; b < g->sw; b++) {
    /* phase columns j whose input column j*sw + b - pw lies in [0, W) */
    const int64_t shift = b - g->pw;
    int64_t lo = shift >= 0 ? 0 : (-shift + g->sw - 1) / g->sw;
    int64_t hi = g->W - 1 - shift < 0 ? 0 : (g->W - 1 - shift) / g->sw + 1;
    if (lo > l->Wph) lo = l->Wph;
    if (hi > l->Wph) hi = l->Wph;
    if (hi < lo) hi = lo;
    for (int64_t a = 0; a < g->sh; a++) {
      float *d = xp + (a * g->sw + b) * l->phase + ic * l->Hph * l->Wph;
      if (!(used >> (a * g->sw + b) & 1)) {
        /* never read for results, but the GEMM's pad columns run over it:
         * keep it zero rather than whatever the scratch held */
        memset(d, 0, (size_t)(l->Hph * l->Wph) * sizeof(float));
        continue;
      }
      for (int64_t i = 0; i < l->Hph; i++) {
        int64_t h = i * g->sh + a - g->ph; /* input row, or padding */
        float *row = d + i * l->Wph;
        if (h < 0 || h >= g->H) {
          memset(row, 0, (size_t)l->Wph * sizeof(float));
          continue;
        }
        for (int64_t j = 0; j < lo; j++) row[j] = 0.0f;
        kt->gather(row + lo, src + h * g->W + shift + lo * g->sw, hi - lo, g->sw);
        for (int64_t j = hi; j < l->Wph; j++) row[j] = 0.0f;
      }
    }
  }
}

typedef struct fill_job {
  const conv_geom *g;
  const direct_layout *l;
  const float *x;
  float *xp;
  uint64_t used;
} fill_job;

/* Channels filled on the pool: each thread then finds part of the GEMM's
 * input already in its own cache (on two cores, pulling all of it from the
 * other core's cache cost as much as the thread's share of the products). */
static void fill_channels(void *ctx, size_t c0, size_t c1) {
  const fill_job *j = ctx;
  for (size_t ic = c0; ic < c1; ic++)
    fill_phases(j->g, j->l, j->x + (int64_t)ic * j->g->H * j->g->W, j->xp, (int64_t)ic, j->used);
}

/* Packing exact column panels (pixels p = oh*OW + ow) from the phases:
 * row k of the panel is, per output row the panel touches, a run of the
 * phase buffer from off[k] + oh*Wph + ow. */
typedef struct phase_src {
  const float *xp;
  const int64_t *off;
  int64_t Wph, OW;
} phase_src;

static void pack_phases(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                        float *dst) {
  const phase_src *ps = user;
  int64_t so[K_SGEMM_NR_MAX + 2], dof[K_SGEMM_NR_MAX + 2], len[K_SGEMM_NR_MAX + 2];
  int nseg = 0;
  for (int64_t t = 0; t < nr;) {
    int64_t p = j0 + t, oh = p / ps->OW, ow = p % ps->OW, run = ps->OW - ow < nr - t ? ps->OW - ow : nr - t;
    so[nseg] = oh * ps->Wph + ow;
    dof[nseg] = t;
    len[nseg++] = run;
    t += run;
  }
  for (int64_t k = 0; k < kc; k++) {
    const float *base = ps->xp + ps->off[k0 + k];
    float *d = dst + k * NR;
    for (int s = 0; s < nseg; s++) {
      const float *src = base + so[s];
      float *o = d + dof[s];
      /* runs are output rows: fixed sizes become inline vector moves */
      switch (len[s]) {
        case 4: memcpy(o, src, 4 * sizeof(float)); break;
        case 8: memcpy(o, src, 8 * sizeof(float)); break;
        case 16: memcpy(o, src, 16 * sizeof(float)); break;
        default:
          for (int64_t v = 0; v < len[s]; v++) o[v] = src[v];
      }
    }
    for (int64_t q = nr; q < NR; q++) d[q] = 0.0f;
  }
}

/* One sample and group through the padded, phase-split copy. */
static void conv_direct(const conv_geom *g, const float *x, const float *w, const float *bias, float *y,
                        uint8_t *scratch, size_t bytes) {
  direct_layout l = direct_plan(g);
  int64_t *off = (int64_t *)scratch;
  float *xp = (float *)(scratch + l.off_bytes);
  uint64_t used = 0;
  for (int64_t kh = 0; kh < g->KH; kh++)
    for (int64_t kw = 0; kw < g->KW; kw++)
      used |= 1ull << ((kh * g->dh % g->sh) * g->sw + kw * g->dw % g->sw);
  fill_job fj = {g, &l, x, xp, used};
  k_parallel_for((size_t)g->icg, (double)(g->icg * l.Hp * l.Wp) * 2.0, fill_channels, &fj);
  memset(xp + g->sh * g->sw * l.phase, 0, K_SGEMM_NR_MAX * sizeof(float));
  int64_t r = 0;
  for (int64_t ic = 0; ic < g->icg; ic++)
    for (int64_t kh = 0; kh < g->KH; kh++)
      for (int64_t kw = 0; kw < g->KW; kw++) {
        int64_t th = kh * g->dh, tw = kw * g->dw; /* tap position in the padded input */
        int64_t phase = (th % g->sh) * g->sw + tw % g->sw;
        off[r++] = phase * l.phase + ic * l.Hph * l.Wph + (th / g->sh) * l.Wph + tw / g->sw;
      }
  if (direct_in_place(g, &l)) {
    o_igemm ig = {g->ocg, r,    w,    xp,   off, (g->OH - 1) * l.Wph + g->OW, l.Wph, g->OW, y, g->OH * g->OW,
                  bias,   NULL, NULL, NULL, NULL};
    o_igemm_run(&ig, 1);
    return;
  }
  /* packed panels: offsets table, then one panel per slot */
  const int64_t P = g->OH * g->OW;
  size_t head = l.off_bytes + k_align64(l.x_floats * sizeof(float));
  int64_t *lin = (int64_t *)(scratch + head);
  head += l.off_bytes;
  size_t slots = bytes > head ? (bytes - head) / o_igemm_panel_bytes(r) : 0;
  phase_src ps = {xp, off, l.Wph, g->OW};
  o_igemm ig = {g->ocg, r, w, NULL, NULL,        P,   g->OW,
                g->OW,  y, P, bias, pack_phases, &ps, (float *)(scratch + head),
                lin};
  o_igemm_run(&ig, slots);
}

/* ---- im2col packed straight into GEMM panels ---- */

typedef struct im2col_src {
  const conv_geom *g;
  const float *x; /* first input channel of this sample and group */
} im2col_src;

/* The panel's columns as runs of pixels on one output row (found once per
 * panel, not per row: divisions), then per row (ic, kh, kw) stepped as an
 * odometer, each run a zero-padded copy or, strided, a gather between the
 * columns that fall outside the input. ViT's 16x16 stride-16 patches: the
 * divisions and per-pixel bounds tests cost two thirds of the packing. */
static void pack_im2col(const void *user, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t NR,
                        float *dst) {
  const im2col_src *s = user;
  const conv_geom *g = s->g;
  const int64_t khw = g->KH * g->KW, plane = g->H * g->W;
  int64_t seg_oh[K_SGEMM_NR_MAX + 2], seg_ow[K_SGEMM_NR_MAX + 2], seg_t[K_SGEMM_NR_MAX + 2],
      seg_n[K_SGEMM_NR_MAX + 2];
  int nseg = 0;
  for (int64_t t = 0, p = j0; t < nr && nseg < K_SGEMM_NR_MAX + 2; nseg++) {
    int64_t oh = p / g->OW, ow = p % g->OW, seg = g->OW - ow < nr - t ? g->OW - ow : nr - t;
    seg_oh[nseg] = oh, seg_ow[nseg] = ow, seg_t[nseg] = t, seg_n[nseg] = seg;
    t += seg;
    p += seg;
  }
  int64_t ic = k0 / khw, kh = (k0 % khw) / g->KW, kw = k0 % g->KW;
  for (int64_t k = 0; k < kc; k++) {
    const float *xc = s->x + ic * plane;
    float *d = dst + k * NR;
    for (int sg = 0; sg < nseg; sg++) {
      const int64_t t = seg_t[sg], seg = seg_n[sg];
      int64_t ih = seg_oh[sg] * g->sh - g->ph + kh * g->dh;
      if (ih < 0 || ih >= g->H) {
        for (int64_t q = 0; q < seg; q++) d[t + q] = 0.0f;
        continue;
      }
      const float *row = xc + ih * g->W;
      int64_t iw0 = seg_ow[sg] * g->sw - g->pw + kw * g->dw;
      /* q in [lo, hi) reads inside the row: iw0 + q*sw in [0, W) */
      int64_t lo = iw0 < 0 ? (-iw0 + g->sw - 1) / g->sw : 0,
              hi = iw0 < g->W ? (g->W - iw0 + g->sw - 1) / g->sw : 0;
      if (lo > seg) lo = seg;
      if (hi > seg) hi = seg;
      if (hi < lo) hi = lo;
      for (int64_t q = 0; q < lo; q++) d[t + q] = 0.0f;
      if (g->sw == 1) {
        if (hi > lo) memcpy(d + t + lo, row + iw0 + lo, (size_t)(hi - lo) * sizeof(float));
      } else {
        const float *r = row + iw0 + lo * g->sw;
        for (int64_t q = lo; q < hi; q++) d[t + q] = r[(q - lo) * g->sw];
      }
      for (int64_t q = hi; q < seg; q++) d[t + q] = 0.0f;
    }
    for (int64_t q = nr; q < NR; q++) d[q] = 0.0f;
    if (++kw == g->KW) {
      kw = 0;
      if (++kh == g->KH) kh = 0, ic++;
    }
  }
}

/* ---- depthwise ---- */

typedef struct dw_job {
  const conv_geom *g;
  const float *x, *w, *bias;
  float *y;
  uint8_t *scratch;
  size_t plane_bytes;
  int64_t planes, chunks;
} dw_job;

static void dw_chunk(void *ctx, size_t c0, size_t c1) {
  const dw_job *j = ctx;
  const conv_geom *g = j->g;
  const o_kern_table *kt = o_kern();
  o_win2d win = {g->H, g->W, g->OH, g->OW, g->KH, g->KW, g->sh, g->sw, g->ph, g->pw, g->dh, g->dw};
  const int64_t Hp = g->H + 2 * g->ph, Wp = g->W + 2 * g->pw;
  for (size_t c = c0; c < c1; c++) {
    float *xp = j->scratch ? (float *)(j->scratch + c * j->plane_bytes) : NULL;
    int64_t p0 = (int64_t)c * j->planes / j->chunks, p1 = ((int64_t)c + 1) * j->planes / j->chunks;
    for (int64_t i = p0; i < p1; i++) {
      int64_t n = i / g->OC, oc = i % g->OC, ic = oc / g->ocg;
      const float *x = j->x + (n * g->C + ic) * g->H * g->W, *w = j->w + oc * g->KH * g->KW;
      float bias = j->bias ? j->bias[oc] : 0.0f, *y = j->y + (n * g->OC + oc) * g->OH * g->OW;
      if (!xp || g->sh != g->sw || g->dh != g->dw) {
        kt->dw_plane(&win, x, w, bias, y);
        continue;
      }
      memset(xp, 0, (size_t)(g->ph * Wp) * sizeof(float));
      for (int64_t h = 0; h < g->H; h++) {
        float *row = xp + (g->ph + h) * Wp;
        for (int64_t q = 0; q < g->pw; q++) row[q] = 0.0f;
        memcpy(row + g->pw, x + h * g->W, (size_t)g->W * sizeof(float));
        for (int64_t q = g->pw + g->W; q < Wp; q++) row[q] = 0.0f;
      }
      memset(xp + (g->ph + g->H) * Wp, 0, (size_t)((Hp - g->ph - g->H) * Wp) * sizeof(float));
      kt->dw3x3_padded(xp, Wp, g->OH, g->OW, g->sh, g->dh, w, bias, y);
    }
  }
}

/* Every path's output: the bias checked against the channels (*bias: it, or
 * NULL), out resized to [N, OC, OH, OW] ([N, OC, OW] in 1-D). */
static pte_status conv_output(pte_kernel_ctx *ctx, pte_value **args, const conv_geom *g,
                              const pte_tensor **bias) {
  const pte_tensor *x = args[0]->u.tensor;
  const pte_tensor *b = args[2]->tag == PTE_TAG_TENSOR ? args[2]->u.tensor : NULL;
  if (b && b->sizes[0] != g->OC)
    return K_FAIL("bias has %lld entries, expected %lld", (long long)b->sizes[0], (long long)g->OC);
  int64_t sizes[4] = {g->N, g->OC, g->OH, g->OW};
  if (x->dim == 3) sizes[2] = g->OW;
  *bias = b;
  return k_out(ctx, args[9]->u.tensor, x->dim, sizes);
}

static pte_status conv_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  conv_geom g;
  if (!geom(args, nargs, &g)) return K_FAIL("input and weight shapes do not fit the convolution arguments");
  const pte_tensor *x = args[0]->u.tensor, *w = args[1]->u.tensor, *b;
  pte_tensor *out = args[9]->u.tensor;
  K_CHECK(conv_output(ctx, args, &g, &b));
  const float *xd = x->data, *wd = w->data, *bd = b ? (const float *)b->data : NULL;
  float *yd = out->data;
  const int64_t P = g.OH * g.OW, R = g.icg * g.KH * g.KW;
  size_t bytes;
  float *scratch = k_scratch(ctx, &bytes);
  if (g.icg == 1) {
    dw_job j = {&g, xd, wd, bd, yd, NULL, dw_plane_bytes(&g), g.N * g.OC, 1};
    double cost = (double)(j.planes * P * R);
    int64_t slots = dw_fast(&g) ? (int64_t)(bytes / j.plane_bytes) : INT64_MAX;
    const bool split = cost >= K_PAR_MIN_OPS * 2.0; /* 9-tap loops: between a product and a plain loop */
    if (split && slots > (int64_t)k_slots())
      slots = (int64_t)k_slots(); /* k_slots locks: ask only if worth it */
    if (dw_fast(&g) && slots >= 1) j.scratch = (uint8_t *)scratch;
    if (split && slots > 1) j.chunks = slots < j.planes ? slots : j.planes;
    k_parallel_chunks((size_t)j.chunks, dw_chunk, &j);
    return PTE_OK;
  }
  o_wino wn;
  if (wino(&g, &wn)) {
    if (!o_wino_run(&wn, xd, wd, bd, yd, scratch, bytes)) return K_FAIL("scratch memory too small");
    return PTE_OK;
  }
  if (is_direct(&g)) {
    if (bytes < direct_bytes(&g)) return K_FAIL("scratch memory too small");
    for (int64_t n = 0; n < g.N; n++)
      for (int64_t gr = 0; gr < g.G; gr++)
        conv_direct(&g, xd + (n * g.C + gr * g.icg) * g.H * g.W, wd + gr * g.ocg * R,
                    bd ? bd + gr * g.ocg : NULL, yd + (n * g.OC + gr * g.ocg) * P, (uint8_t *)scratch, bytes);
    return PTE_OK;
  }
  if (bytes < k_sgemm_scratch_min(g.ocg, P, R)) return K_FAIL("scratch memory too small");
  const bool pw = is_pointwise(&g);
  for (int64_t n = 0; n < g.N; n++)
    for (int64_t gr = 0; gr < g.G; gr++) {
      const float *xg = xd + (n * g.C + gr * g.icg) * g.H * g.W;
      im2col_src src = {&g, xg};
      k_sgemm_desc gm = {.M = g.ocg,
                         .N = P,
                         .K = R,
                         .a = wd + gr * g.ocg * R,
                         .sa0 = R,
                         .sa1 = 1,
                         .b = xg,
                         .sb0 = P,
                         .sb1 = 1,
                         .pack_b = pw ? NULL : pack_im2col,
                         .pack_user = &src,
                         .c = yd + (n * g.OC + gr * g.ocg) * P,
                         .sc0 = P,
                         .alpha = 1.0f,
                         .beta = 1.0f,
                         .row_bias = bd ? bd + gr * g.ocg : NULL,
                         .scratch = scratch,
                         .scratch_bytes = bytes,
                         .parallel = true};
      k_sgemm(&gm);
    }
  return PTE_OK;
}

/* ---- non-overlapping patches, the filter packed at load ---- */

/* Kernel == stride, no padding or dilation, one group, not 1x1: every input
 * pixel is read by one tap at most (ViT's 16x16 stride-16 embedding); the
 * product's operands far below what would overflow their sizes. */
static bool is_patches(const conv_geom *g) {
  const double P = (double)(g->OH * g->OW), K = (double)(g->C * g->KH * g->KW);
  return g->KH == g->sh && g->KW == g->sw && !g->ph && !g->pw && g->dh == 1 && g->dw == 1 && g->G == 1 &&
         g->KH * g->KW > 1 && P * (K + (double)g->OC) < 0x1p36;
}

/* Scratch: the patch rows [P, K], the product [P, OC], the GEMM's own. */
static size_t patches_bytes(const conv_geom *g) {
  const int64_t P = g->OH * g->OW, K = g->C * g->KH * g->KW;
  return k_align64((size_t)(P * K) * sizeof(float)) + k_align64((size_t)(P * g->OC) * sizeof(float)) +
         k_sgemm_scratch(P, g->OC, K);
}

static size_t conv_patches_scratch(pte_value *const *args, int32_t nargs) {
  conv_geom g;
  if (!geom(args, nargs, &g) || !is_patches(&g)) return 0;
  return k_scratch_round(patches_bytes(&g));
}

typedef struct patch_job {
  const conv_geom *g;
  const float *x; /* one sample */
  float *rows;
} patch_job;

/* Row oh*OW + ow of A holds patch (oh, ow) in the filter's (c, kh, kw)
 * order: per (c, kh) a run of KW input floats. */
static void patch_rows(void *ctx, size_t oh0, size_t oh1) {
  const patch_job *j = ctx;
  const conv_geom *g = j->g;
  const int64_t K = g->C * g->KH * g->KW, run = g->KW * (int64_t)sizeof(float);
  for (int64_t oh = (int64_t)oh0; oh < (int64_t)oh1; oh++)
    for (int64_t ow = 0; ow < g->OW; ow++) {
      float *row = j->rows + (oh * g->OW + ow) * K;
      const float *x = j->x + oh * g->KH * g->W + ow * g->KW;
      for (int64_t c = 0; c < g->C; c++, x += g->H * g->W)
        for (int64_t kh = 0; kh < g->KH; kh++, row += g->KW) memcpy(row, x + kh * g->W, (size_t)run);
    }
}

/* out[oc, p] = patches[p, :] @ filter[oc, :]^T + bias[oc]: the product
 * [P, OC] with the filter packed as B, then one transpose to NCHW. Through
 * the im2col panels the filter was packed as A on every call and each
 * column gathered with a stride of KW: ViT-4's embedding (196 x 768 x 192)
 * took 695 us at 1 thread on a Zen 4, 83 GFLOP/s. */
static pte_status conv_patches(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  const o_packed_b *st = pte_kernel_state(ctx);
  K_CHECK(k_args_have_data(ctx, args, nargs));
  conv_geom g;
  if (!st || !geom(args, nargs, &g) || !is_patches(&g))
    return K_FAIL("input and weight shapes do not fit the convolution arguments");
  const int64_t P = g.OH * g.OW, K = g.C * g.KH * g.KW;
  if (!o_packed_fits(st, K, g.OC)) return K_FAIL("the filter is not the one packed at load");
  const pte_tensor *x = args[0]->u.tensor, *b;
  pte_tensor *out = args[9]->u.tensor;
  K_CHECK(conv_output(ctx, args, &g, &b));
  size_t bytes;
  uint8_t *scratch = k_scratch(ctx, &bytes);
  if (bytes < patches_bytes(&g)) return K_FAIL("scratch memory too small");
  float *rows = (float *)scratch;
  float *prod = (float *)(scratch + k_align64((size_t)(P * K) * sizeof(float)));
  float *gs = (float *)((uint8_t *)prod + k_align64((size_t)(P * g.OC) * sizeof(float)));
  for (int64_t n = 0; n < g.N; n++) {
    patch_job j = {&g, (const float *)x->data + n * g.C * g.H * g.W, rows};
    k_parallel_for((size_t)g.OH, (double)(P * K), patch_rows, &j);
    k_sgemm_desc gm = {.M = P,
                       .N = g.OC,
                       .K = K,
                       .a = rows,
                       .sa0 = K,
                       .sa1 = 1,
                       .b = args[1]->u.tensor->data,
                       .sb0 = 1,
                       .sb1 = K,
                       .c = prod,
                       .sc0 = g.OC,
                       .alpha = 1.0f,
                       .beta = b ? 1.0f : 0.0f,
                       .col_bias = b ? (const float *)b->data : NULL,
                       .scratch = gs,
                       .scratch_bytes = bytes - (size_t)((uint8_t *)gs - scratch),
                       .parallel = true};
    o_packed_desc(st, &gm);
    k_sgemm(&gm);
    const int64_t tsizes[2] = {P, g.OC}, ds[2] = {1, P}, ss[2] = {g.OC, 1};
    k_copy((float *)out->data + n * g.OC * P, ds, prod, ss, 2, tsizes, sizeof(float), true);
  }
  return PTE_OK;
}

/* The filter [OC][C][KH][KW] of a patch convolution, packed as B [K, OC]. */
static bool patches_prepare(pte_rewrite *rw, int32_t i, pte_value **args, int32_t n) {
  static const pte_kernel patches = {"aten::convolution.out", conv_patches, conv_accepts,
                                     conv_patches_scratch};
  conv_geom g;
  if (!conv_accepts(args, n) || !geom(args, n, &g) || !is_patches(&g)) return false;
  const pte_tensor *w = args[1]->u.tensor;
  const int64_t K = g.C * g.KH * g.KW;
  if (w->dim != args[0]->u.tensor->dim || !pte_tensor_is_contiguous(w) || pte_tensor_numel(w) != g.OC * K)
    return false;
  const o_packed_b *st = o_pack_b(rw, i, args[1], K, g.OC, 1, K, NULL);
  return st && pte_rewrite_set_kernel(rw, i, &patches, st);
}

/* ---- Winograd with the filter transformed at load ---- */

/* The state of a convolution whose constant filter o_conv_prepare packed:
 * the plan and k_wino_pack's u. */
typedef struct wino_state {
  k_wino_plan p;
  const float *u;
} wino_state;

/* The plan of a packed filter: with no per-call transform to repay, the
 * kernel layer's choice alone decides (F(2x2) on 14x14 too, as the XNNPACK
 * delegate does). */
static bool wino_packed_plan(const conv_geom *g, k_wino_plan *p) {
  if (g->KH != 3 || g->KW != 3 || g->sh != 1 || g->sw != 1 || g->dh != 1 || g->dw != 1 || g->G != 1 ||
      g->ph > 2 || g->pw > 2 || g->N < 1 || g->N > ((int64_t)1 << 20))
    return false;
  const int32_t m = k_wino_choose(g->C, g->OC, g->OH, g->OW);
  return m && k_wino_plan_init(p, g->C, g->OC, g->H, g->W, g->OH, g->OW, (int32_t)g->ph, (int32_t)g->pw, m);
}

static size_t conv_packed_scratch(pte_value *const *args, int32_t nargs) {
  conv_geom g;
  k_wino_plan p;
  if (!geom(args, nargs, &g) || !wino_packed_plan(&g, &p)) return 0;
  return k_scratch_round(k_wino_scratch(&p));
}

static pte_status conv_packed(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  const wino_state *st = pte_kernel_state(ctx);
  K_CHECK(k_args_have_data(ctx, args, nargs));
  conv_geom g;
  if (!st || !geom(args, nargs, &g))
    return K_FAIL("input and weight shapes do not fit the convolution arguments");
  const k_wino_plan *p = &st->p;
  const pte_tensor *x = args[0]->u.tensor, *b;
  pte_tensor *out = args[9]->u.tensor;
  /* a constant filter's shape is fixed, the input's checked: the plan is
   * this call's */
  if (x->dim != 4 || g.C != p->C || g.OC != p->OC || g.H != p->H || g.W != p->W || g.OH != p->OH ||
      g.OW != p->OW || g.ph != p->pt || g.pw != p->pl || g.N > ((int64_t)1 << 20))
    return K_FAIL("input is not of the shape the filter was transformed for at load");
  K_CHECK(conv_output(ctx, args, &g, &b));
  size_t bytes;
  void *scratch = k_scratch(ctx, &bytes);
  k_wino_desc d = {.p = p,
                   .N = g.N,
                   .x = x->data,
                   .sxn = p->C * p->H * p->W,
                   .sxc = p->H * p->W,
                   .sxh = p->W,
                   .sxw = 1,
                   .y = out->data,
                   .syn = p->OC * p->OH * p->OW,
                   .syc = p->OH * p->OW,
                   .syh = p->OW,
                   .syw = 1,
                   .u = st->u,
                   .bias = b ? (const float *)b->data : NULL,
                   .scratch = scratch,
                   .scratch_bytes = bytes,
                   .parallel = true};
  if (!k_wino_conv(&d)) return K_FAIL("scratch memory too small");
  return PTE_OK;
}

/* A 3x3 stride-1 convolution of one group whose filter is a constant only
 * it reads gets the filter transformed and packed once: per call that
 * transform limited Winograd to the maps with most tiles. */
bool o_conv_pack(pte_rewrite *rw, int32_t i, const float *scale) {
  static const pte_kernel packed = {"aten::convolution.out", conv_packed, conv_accepts, conv_packed_scratch};
  int32_t n;
  conv_geom g;
  k_wino_plan p;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  if (!args || !conv_accepts(args, n) || args[0]->u.tensor->dim != 4 || args[1]->tag != PTE_TAG_TENSOR ||
      !geom(args, n, &g) || !wino_packed_plan(&g, &p))
    return false;
  const pte_tensor *w = args[1]->u.tensor;
  /* contiguous [OC][C][3][3] (the exporter's), every element in its bytes */
  const int64_t need = g.OC * g.C * 9;
  if (!w->data || w->strides[3] != 1 || w->strides[2] != 3 || w->strides[1] != 9 ||
      w->strides[0] != 9 * g.C || (double)need * sizeof(float) > (double)w->capacity ||
      pte_tensor_numel(w) != need)
    return false;
  wino_state *st = (wino_state *)pte_rewrite_alloc(rw, sizeof *st);
  float *u = (float *)pte_rewrite_alloc(rw, p.u_floats * sizeof(float));
  if (!st || !u) return false;
  /* the copy is a temporary of the filter's size, given back at once */
  float *copy = (float *)pte_rewrite_alloc(rw, k_wino_pack_copy_floats(&p) * sizeof(float));
  if (!copy && scale) return false;
  (void)k_wino_pack_scaled(&p, (const float *)w->data, 9 * g.C, 9, 3, 1, scale, copy, u);
  pte_rewrite_free(rw, copy);
  st->p = p;
  st->u = u;
  return pte_rewrite_set_kernel(rw, i, &packed, st);
}

/* The rule on a convolution as written: its weight's file pages are given
 * back once packed. */
bool o_conv_prepare(pte_rewrite *rw, int32_t i) {
  int32_t n;
  pte_value **args = pte_rewrite_args(rw, i, &n);
  if (!args || n != 11) return false;
  if (args[1]->tag == PTE_TAG_TENSOR && o_packable(rw, i, args[1], args[1]->u.tensor->dim) &&
      patches_prepare(rw, i, args, n))
    return true; /* o_pack_b gave the filter's pages back */
  if (!o_packable(rw, i, args[1], 4) || !o_conv_pack(rw, i, NULL)) return false;
  const pte_tensor *w = args[1]->u.tensor;
  pte_rewrite_release(rw, w->data, pte_tensor_nbytes(w));
  return true;
}

PTE_OPT_KERNEL(conv_out, "aten::convolution.out", conv_accepts, conv_scratch)
