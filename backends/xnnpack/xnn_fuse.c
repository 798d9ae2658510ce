/* fp32 inverted-residual chains (MobileNetV2's blocks) run in row bands:
 *   [expand 1x1] -> depthwise -> project 1x1
 * each a native node, the first two read only by the next. Run node by node,
 * the expanded maps go out to memory and come back: at 112x112 a 1x1
 * convolution of 16 -> 96 channels writes 4.8 MB, more than L2, which the
 * depthwise convolution then reads back; both ran at the memory's speed, not
 * the FMA units'. Here the project node runs the chain a band of output rows
 * at a time: the expand rows the band needs (its halo kept from the band
 * before, not recomputed), the depthwise rows of the band, then their
 * projection, the intermediates in a scratch that stays in L2. The expand and
 * depthwise nodes are dropped; the project node reads the chain's input.
 * Each pool thread runs its own contiguous share of the rows, on its slice of
 * the scratch. Sums are taken in the same order as node by node, so results
 * are bit for bit those of the unfused nodes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "klayer.h"
#include "xnn_compute.h"

/* Intermediate floats a band may hold (expand rows plus depthwise rows):
 * 1 MB, half of a 2 MB L2, the rest for the filters and the output rows. */
#define CHAIN_BAND_FLOATS (256 * 1024)
/* Chains whose depthwise input is smaller stay node by node: it stays in
 * cache there, and bands of small maps only cut the products smaller. */
#define CHAIN_MIN_BYTES ((size_t)512 * 1024)

struct xg_chain {
  int64_t cin, cmid, cout;
  int32_t kh, kw, sh, sw, dh, dw, pt, pl;
  const float *e_w, *e_bias; /* expand (NULL: none): packed filter, bias (NULL: none) */
  float e_lo, e_hi;
  const float *d_w, *d_bias; /* depthwise: filter [kh][kw][cmid], bias (copies) */
  float d_lo, d_hi;
  const float *p_w; /* project: packed filter */
  int64_t band;     /* output rows a band */
  size_t gemm_bytes, s1_floats, s2_floats, slot_bytes, slots;
};

static bool env_off(void) {
  const char *e = getenv("PTERUN_XNNPACK_FUSE");
  return e && strcmp(e, "0") == 0;
}

/* An fp32 constant of n floats (or XG_NONE: NULL) copied into the plan. */
static bool const_copy(const xg_graph *g, uint32_t vi, size_t n, xg_mem *mem, const float **out) {
  *out = NULL;
  if (vi == XG_NONE) return true;
  const xg_value *v = &g->values[vi];
  if (!v->has_data || v->datatype != XG_DT_FP32 || v->numel != n || !v->data) return false;
  float *c = (float *)xg_mem_array(mem, n, sizeof(float));
  if (!c) return false;
  memcpy(c, v->data, n * sizeof(float));
  *out = c;
  return true;
}

static bool fp32_nhwc(const xg_value *v) {
  return v->datatype == XG_DT_FP32 && v->value_type == XG_VALUE_TENSOR && v->ndims == 4 && !v->half;
}

/* A value read by exactly one node and nothing else. */
static bool only_read_once(const xg_value *v) { return v->uses == 1 && !v->flags && v->producer >= 0; }

static bool native_fp32(const xg_node *n, uint8_t type) {
  return n->type == type && n->exec == XG_EXEC_NATIVE && !n->quant && !n->sq && !n->dyn && !n->flags;
}

pte_status xg_fuse_conv_chains(xg_graph *g, xg_mem *mem) {
  if (env_off()) return PTE_OK;
  size_t need = 0;
  uint32_t last = XG_NONE; /* the last chain's node (named if its scratch cannot be had) */
  for (uint32_t pi = 0; pi < g->nnodes; pi++) {
    xg_node *p = &g->nodes[pi];
    if (!native_fp32(p, XG_CONV2D) || !xg_conv_direct_filter(p)) continue;
    xg_value *dv = &g->values[p->in[0]], *ov = &g->values[p->out[0]];
    if (!only_read_once(dv) || !fp32_nhwc(dv) || !fp32_nhwc(ov)) continue;
    xg_node *d = &g->nodes[dv->producer];
    if (!native_fp32(d, XG_DEPTHWISE_CONV2D) || d->nout != 1 || d->out[0] != p->in[0]) continue;
    const xg_conv_params *c = &d->p.conv;
    xg_value *mv = &g->values[d->in[0]];
    if (!fp32_nhwc(mv) || c->groups != mv->dims[3] || c->group_out != 1 || c->group_in != 1) continue;
    const int64_t N = (int64_t)mv->dims[0], H = (int64_t)mv->dims[1], W = (int64_t)mv->dims[2];
    const int64_t cmid = (int64_t)mv->dims[3], OH = (int64_t)dv->dims[1], OW = (int64_t)dv->dims[2];
    const int64_t cout = p->p.conv.group_out;
    if (dv->dims[0] != (size_t)N || dv->dims[3] != (size_t)cmid || ov->dims[0] != (size_t)N ||
        ov->dims[1] != (size_t)OH || ov->dims[2] != (size_t)OW || ov->dims[3] != (size_t)cout ||
        p->p.conv.group_in != (size_t)cmid)
      continue;
    const uint64_t most = INT32_MAX;
    if (c->kernel_h > most || c->kernel_w > most || c->sub_h > most || c->sub_w > most || c->dil_h > most ||
        c->dil_w > most || c->pad_top > most || c->pad_left > most || !c->kernel_h || !c->sub_h)
      continue;
    if ((size_t)(H * W * cmid) * sizeof(float) < CHAIN_MIN_BYTES) continue;
    /* the expand node, when the depthwise input is its output alone */
    xg_node *e = NULL;
    if (only_read_once(mv)) {
      xg_node *cand = &g->nodes[mv->producer];
      const xg_value *xv = &g->values[cand->in[0]];
      if (native_fp32(cand, XG_CONV2D) && cand->nout == 1 && xg_conv_direct_filter(cand) && fp32_nhwc(xv) &&
          xv->dims[0] == (size_t)N && xv->dims[1] == (size_t)H && xv->dims[2] == (size_t)W &&
          cand->p.conv.group_out == (size_t)cmid && cand->p.conv.group_in == xv->dims[3])
        e = cand;
    }
    struct xg_chain *ch = (struct xg_chain *)xg_mem_alloc(mem, sizeof *ch);
    if (!ch) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
    ch->cin = e ? (int64_t)g->values[e->in[0]].dims[3] : cmid, ch->cmid = cmid, ch->cout = cout;
    ch->kh = (int32_t)c->kernel_h, ch->kw = (int32_t)c->kernel_w, ch->sh = (int32_t)c->sub_h;
    ch->sw = (int32_t)c->sub_w, ch->dh = (int32_t)c->dil_h, ch->dw = (int32_t)c->dil_w;
    ch->pt = (int32_t)c->pad_top, ch->pl = (int32_t)c->pad_left;
    if (!const_copy(g, d->in[1], (size_t)(ch->kh * ch->kw) * (size_t)cmid, mem, &ch->d_w) || !ch->d_w ||
        !const_copy(g, d->nin > 2 ? d->in[2] : XG_NONE, (size_t)cmid, mem, &ch->d_bias))
      continue; /* a constant this plan cannot copy: node by node */
    ch->d_lo = d->out_min, ch->d_hi = d->out_max;
    if (e) {
      if (!const_copy(g, e->nin > 2 ? e->in[2] : XG_NONE, (size_t)cmid, mem, &ch->e_bias)) continue;
      ch->e_w = xg_conv_direct_filter(e), ch->e_lo = e->out_min, ch->e_hi = e->out_max;
    }
    ch->p_w = xg_conv_direct_filter(p);
    /* the widest band within the budget */
    int64_t band = OH;
    for (;;) {
      const int64_t rows = (band - 1) * ch->sh + (int64_t)(ch->kh - 1) * ch->dh + 1;
      const int64_t f = (e ? (rows < H ? rows : H) * W * cmid : 0) + band * OW * cmid;
      if (f <= CHAIN_BAND_FLOATS || band == 1) break;
      band = band * 3 / 4 > 0 ? band * 3 / 4 : 1;
    }
    const int64_t rows = (band - 1) * ch->sh + (int64_t)(ch->kh - 1) * ch->dh + 1;
    ch->band = band;
    ch->s1_floats = e ? ((size_t)((rows < H ? rows : H) * W * cmid) + 15) & ~(size_t)15 : 0;
    ch->s2_floats = ((size_t)(band * OW * cmid) + 15) & ~(size_t)15;
    size_t gb = e ? k_sgemm_scratch_min((rows < H ? rows : H) * W, cmid, ch->cin) : 0;
    const size_t pb = k_sgemm_scratch_min(band * OW, cout, cmid);
    ch->gemm_bytes = k_align64(gb > pb ? gb : pb);
    ch->slot_bytes = ch->gemm_bytes + (ch->s1_floats + ch->s2_floats) * sizeof(float);
    ch->slots = k_slots();
    if (ch->slots * ch->slot_bytes > need) need = ch->slots * ch->slot_bytes;
    /* the rewrite: the project node reads the chain's input, the others die */
    const uint32_t src = e ? e->in[0] : d->in[0];
    p->in[0] = src;
    g->values[src].uses++;
    dv->uses = 0;
    d->exec = XG_EXEC_DEAD;
    for (uint32_t k = 0; k < d->nin; k++)
      if (d->in[k] != XG_NONE) g->values[d->in[k]].uses--;
    if (e) {
      e->exec = XG_EXEC_DEAD;
      for (uint32_t k = 0; k < e->nin; k++)
        if (e->in[k] != XG_NONE) g->values[e->in[k]].uses--;
    }
    xg_conv_set_chain(p, ch);
    last = pi;
  }
  return last == XG_NONE ? PTE_OK : xg_fc_scratch_reserve(g, last, mem, need);
}

typedef struct chain_run {
  const struct xg_chain *ch;
  const float *x, *p_bias;
  float *out;
  float p_lo, p_hi;
  uint8_t *scratch;
  int64_t N, H, W, OH, OW;
  size_t rows, chunks; /* N * OH output rows, cut into `chunks` shares */
} chain_run;

static void product(const float *a, int64_t lda, int64_t M, int64_t N, int64_t K, const float *packed,
                    const float *bias, float lo, float hi, float *c, float *scratch, size_t sbytes) {
  k_sgemm_desc d = {0};
  d.M = M, d.N = N, d.K = K;
  d.a = a, d.sa0 = lda, d.sa1 = 1;
  d.sb0 = 1, d.sb1 = K; /* b NULL: B exists packed only (scratch sized for it) */
  d.c = c, d.sc0 = N, d.sc1 = 1;
  d.alpha = 1.0f, d.beta = bias ? 1.0f : 0.0f, d.col_bias = bias;
  d.lo = lo, d.hi = hi, d.clamp = k_clamps(lo, hi);
  d.scratch = scratch, d.scratch_bytes = sbytes;
  d.b_packed = packed;
  d.parallel = false;
  k_sgemm(&d);
}

static void chain_share(void *ctx, size_t c0, size_t c1) {
  const chain_run *r = ctx;
  const struct xg_chain *ch = r->ch;
  const size_t per = (r->rows + r->chunks - 1) / r->chunks;
  for (size_t chunk = c0; chunk < c1; chunk++) {
    uint8_t *base = r->scratch + chunk * ch->slot_bytes;
    float *gs = (float *)base, *s1 = (float *)(base + ch->gemm_bytes), *s2 = s1 + ch->s1_floats;
    size_t row = chunk * per, end = row + per < r->rows ? row + per : r->rows;
    int64_t have_n = -1, have0 = 0, have1 = 0; /* expand rows [have0, have1) of image have_n in s1 */
    const int64_t rowf = r->W * ch->cmid;
    while (row < end) {
      const int64_t n = (int64_t)row / r->OH, oy0 = (int64_t)row % r->OH;
      int64_t oy1 = oy0 + ch->band;
      if (oy1 > r->OH) oy1 = r->OH;
      if (oy1 - oy0 > (int64_t)(end - row)) oy1 = oy0 + (int64_t)(end - row);
      int64_t lo = oy0 * ch->sh - ch->pt,
              hi = (oy1 - 1) * ch->sh - ch->pt + (int64_t)(ch->kh - 1) * ch->dh + 1;
      lo = lo < 0 ? 0 : lo > r->H ? r->H : lo;
      hi = hi > r->H ? r->H : hi < lo ? lo : hi;
      const float *src;
      if (ch->e_w) {
        int64_t keep = 0;
        if (have_n == n && lo >= have0 && lo < have1 && have1 <= hi) {
          keep = have1 - lo;
          memmove(s1, s1 + (lo - have0) * rowf, (size_t)(keep * rowf) * sizeof(float));
        }
        if (hi - lo > keep)
          product(r->x + ((n * r->H + lo + keep) * r->W) * ch->cin, ch->cin, (hi - lo - keep) * r->W,
                  ch->cmid, ch->cin, ch->e_w, ch->e_bias, ch->e_lo, ch->e_hi, s1 + keep * rowf, gs,
                  ch->gemm_bytes);
        have_n = n, have0 = lo, have1 = hi;
        src = s1;
      } else {
        src = r->x + ((n * r->H + lo) * r->W) * ch->cmid;
      }
      const k_dwconv_f32_desc dd = {.N = 1,
                                    .H = hi - lo,
                                    .W = r->W,
                                    .C = ch->cmid,
                                    .OH = oy1 - oy0,
                                    .OW = r->OW,
                                    .kh = ch->kh,
                                    .kw = ch->kw,
                                    .sh = ch->sh,
                                    .sw = ch->sw,
                                    .dh = ch->dh,
                                    .dw = ch->dw,
                                    .pt = (int32_t)(ch->pt + lo - oy0 * ch->sh),
                                    .pl = ch->pl,
                                    .x = src,
                                    .w = ch->d_w,
                                    .bias = ch->d_bias,
                                    .y = s2,
                                    .lo = ch->d_lo,
                                    .hi = ch->d_hi,
                                    .parallel = false};
      k_dwconv_f32(&dd);
      product(s2, ch->cmid, (oy1 - oy0) * r->OW, ch->cout, ch->cmid, ch->p_w, r->p_bias, r->p_lo, r->p_hi,
              r->out + ((n * r->OH + oy0) * r->OW) * ch->cout, gs, ch->gemm_bytes);
      row += (size_t)(oy1 - oy0);
    }
  }
}

void xg_chain_run(const xg_graph *g, const xg_node *n, const struct xg_chain *ch, void *const *ptr) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  chain_run r = {.ch = ch,
                 .x = ptr[0],
                 .p_bias = n->in[2] == XG_NONE ? NULL : ptr[2],
                 .out = ptr[n->nin],
                 .p_lo = n->out_min,
                 .p_hi = n->out_max,
                 .scratch = (uint8_t *)g->fc_scratch,
                 .N = (int64_t)x->dims[0],
                 .H = (int64_t)x->dims[1],
                 .W = (int64_t)x->dims[2],
                 .OH = (int64_t)o->dims[1],
                 .OW = (int64_t)o->dims[2]};
  r.rows = (size_t)(r.N * r.OH);
  if (!r.rows || !r.OW) return;
  /* a share a thread (init sized the scratch, which only grows, for ch->slots) */
  size_t chunks = k_threads() < ch->slots ? k_threads() : ch->slots;
  r.chunks = chunks < r.rows ? chunks : r.rows;
  k_parallel_chunks(chunks, chain_share, &r);
}
