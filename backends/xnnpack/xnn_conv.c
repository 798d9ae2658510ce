/* fp32 convolution (XNNConv2d) on pterun's own GEMM, NHWC as XNNPACK has it:
 *   out[pixel, oc] = col[pixel, (ky, kx, ic)] @ filter[oc, (ky, kx, ic)]^T + bias[oc]
 * clamped to the node's output bounds in the GEMM's epilogue. Debian's 2022
 * XNNPACK ran ResNet-18's convolutions at 1.6x the time of ExecuTorch's newer
 * one; k_sgemm with the filter packed once at init runs them near its peak.
 *
 * 1x1 stride-1 unpadded kernels read the input rows in place; the others
 * build im2col rows a chunk at a time (a few hundred KB, so they stay in
 * cache for the product), filled on the pool. */
#include <math.h>
#include <string.h>

#include "klayer.h"
#include "xnn_compute.h"

/* What init prepared (n->conv_plan). */
typedef struct xg_fconv {
  uint32_t groups;
  int64_t kin, kout;            /* one group's K (kernel_h x kernel_w x group inputs) and N */
  bool direct;                  /* 1x1, stride 1, no padding: the input rows are the product's rows */
  bool shortk;                  /* a short reduction (the stem) on k_conv_f32, w[0] packed for it */
  bool nchw;                    /* shortk reading its input as NCHW (a transpose folded in, xg_fold_pads) */
  int64_t chunk;                /* else im2col rows per pass (g->col_scratch holds them) */
  size_t slots;                 /* threads that can each run whole passes (see xg_conv_passes) */
  size_t col_slot;              /* floats of g->col_scratch per such thread */
  size_t gemm_slot;             /* bytes of g->fc_scratch per such thread (64-byte multiple) */
  const void *wino;             /* or a Winograd plan (xnn_wino.c), which runs instead */
  const struct xg_chain *chain; /* or the inverted-residual chain this node ends (xnn_fuse.c) */
  const float *w[];             /* per group: the filter packed by k_sgemm_pack_b, or NULL (read in place) */
} xg_fconv;

/* im2col rows per pass: about 512 KB of them, at least 96 (so the
 * product's row blocks stay whole), at most every output pixel, and every
 * one when a second pass would be a short remainder (ViT's 196 patches in
 * passes of 192 and 4: the 4 rows streamed the whole packed filter again). */
static int64_t conv_chunk(int64_t kin, int64_t pixels) {
  int64_t fit = (512 * 1024 / (int64_t)sizeof(float)) / kin;
  fit = (fit < 96 ? 96 : fit + 23) / 24 * 24;
  return pixels <= fit + fit / 4 ? pixels : fit;
}

/* A 1x1 convolution's rows split into passes a thread, each a serial product
 * on the thread's slice of the scratch: one pool job for the convolution.
 * k_sgemm's own split cuts each 256-row block among the threads, a wait per
 * block, and MobileNetV2's short-K products (16..24 channels on 112x112 and
 * 56x56 maps) ran 1.1..1.2x faster at 2 threads than at 1. Passes of about
 * 256 rows (whole 8-row tiles), as many as a multiple of the threads, taken
 * by whichever thread is free; with DIRECT_PASS_MIN_ROWS rows a thread. */
#define DIRECT_PASS_MIN_ROWS 48
static int64_t direct_passes(int64_t M, size_t threads) {
  const int64_t t = (int64_t)threads, per = (M + t * 256 - 1) / (t * 256);
  return per * t;
}
static int64_t direct_pass_rows(int64_t M, size_t threads) {
  return ((M + direct_passes(M, threads) - 1) / direct_passes(M, threads) + 7) / 8 * 8;
}

/* The im2col rows' space in the workspace: at least `floats`. */
static pte_status col_reserve(xg_graph *g, uint32_t ni, xg_mem *mem, size_t floats) {
  if (floats > XG_MAX_TOTAL_BYTES / sizeof(float))
    return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "%zu floats of im2col rows", floats);
  pte_status st = xg_ws_reserve(g, mem, &g->col_scratch, floats * sizeof(float));
  if (st) return xg_node_error(g, ni, st, "im2col rows: %s", pte_last_error());
  g->col_scratch_floats = floats;
  return PTE_OK;
}

pte_status xg_native_prepare_conv(xg_graph *g, uint32_t ni, xg_mem *mem) {
  xg_node *n = &g->nodes[ni];
  if (n->type != XG_CONV2D || n->quant || n->sq || n->dyn) return PTE_OK;
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_conv_params *c = &n->p.conv;
  const uint32_t groups = c->groups;
  const int64_t kin = (int64_t)c->kernel_h * c->kernel_w * c->group_in, kout = c->group_out;
  const int64_t pixels = (int64_t)(o->dims[1] * o->dims[2]);
  xg_fconv *q = xg_mem_alloc(mem, sizeof *q + groups * sizeof q->w[0]);
  if (!q) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory");
  memset(q, 0, sizeof *q + groups * sizeof q->w[0]);
  q->groups = groups, q->kin = kin, q->kout = kout;
  pte_status st = xg_wino_prepare(g, ni, mem, &q->wino);
  if (st || q->wino) {
    n->conv_plan = q;
    return st;
  }
  /* short reductions of one group, not 1x1 (MobileNetV2's 3-channel stem):
   * im2col rows of 27 are too short for k_sgemm's packing to pay, and 2022
   * XNNPACK's did not scale to 2 threads; k_conv_f32 reads the input in
   * place (its padding at run time) with the filter packed [K][OC]. With
   * AVX2 ResNet's 7x7 stem (147 a row) too: 3.5 ms a call at 1 thread
   * on a Zen 3 against 5.5 for the im2col product (83% and 53% of sgemm's
   * peak) */
  const k_isa isa = k_isa_get();
  if (groups == 1 && (isa == K_ISA_AVX512 ? kin < 64 : isa == K_ISA_AVX2 && kin <= 160) &&
      c->kernel_h * c->kernel_w > 1 && w->datatype == XG_DT_FP32 && w->has_data &&
      (uintptr_t)w->data % sizeof(float) == 0 && c->kernel_h <= INT32_MAX && c->kernel_w <= INT32_MAX &&
      c->sub_h <= INT32_MAX && c->sub_w <= INT32_MAX && c->dil_h <= INT32_MAX && c->dil_w <= INT32_MAX &&
      c->pad_top <= INT32_MAX && c->pad_left <= INT32_MAX) {
    float *t = (float *)xg_mem_array(mem, k_conv_f32_packed(kout, kin), sizeof(float));
    if (!t) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory for its packed filter");
    k_conv_f32_pack((const float *)w->data, kout, kin, t);
    q->w[0] = t, q->shortk = true;
    if (mem->ctx) pte_backend_release(mem->ctx, w->data, w->nbytes);
    n->conv_plan = q;
    return PTE_OK;
  }
  q->direct = c->kernel_h == 1 && c->kernel_w == 1 && c->sub_h == 1 && c->sub_w == 1 && !c->pad_top &&
              !c->pad_left && !c->pad_bottom && !c->pad_right;
  const int64_t M = q->direct ? (int64_t)(x->numel / x->dims[3]) : (q->chunk = conv_chunk(kin, pixels));
  if (!q->direct && (size_t)(q->chunk * kin) > g->col_scratch_floats &&
      (st = col_reserve(g, ni, mem, (size_t)(q->chunk * kin))))
    return st;
  size_t need = k_sgemm_scratch(M, kout, kin);
  /* room for each thread to run whole passes: its own im2col rows and a
   * serial product's scratch */
  const size_t slots = k_slots();
  if (q->direct && groups == 1 && slots > 1 && M >= (int64_t)slots * DIRECT_PASS_MIN_ROWS) {
    q->gemm_slot = k_align64(k_sgemm_scratch_min(direct_pass_rows(M, slots), kout, kin));
    if (q->gemm_slot * slots > need) need = q->gemm_slot * slots;
    q->slots = slots;
  } else if (!q->direct && groups == 1 && slots > 1) {
    q->col_slot = ((size_t)(q->chunk * kin) + 15) & ~(size_t)15;
    q->gemm_slot = k_align64(k_sgemm_scratch_min(q->chunk, kout, kin));
    if (q->col_slot * slots > g->col_scratch_floats && (st = col_reserve(g, ni, mem, q->col_slot * slots)))
      return st;
    if (q->gemm_slot * slots > need) need = q->gemm_slot * slots;
    q->slots = slots;
  }
  if ((st = xg_fc_scratch_reserve(g, ni, mem, need))) return st;
  /* an fp16 or misaligned constant (a hostile payload's) is read from the
   * plan's fp32, aligned copy at run time instead */
  if (w->datatype == XG_DT_FP32 && w->has_data && (uintptr_t)w->data % sizeof(float) == 0)
    for (uint32_t gi = 0; gi < groups; gi++) {
      float *t = (float *)xg_mem_array(mem, k_sgemm_packed_b_floats(kout, kin), sizeof(float));
      if (!t) return xg_node_error(g, ni, PTE_ERR_OUT_OF_MEMORY, "out of memory for its packed filter");
      /* filter [OC][kh][kw][group inputs]: group gi's rows are contiguous, B[k][n] = row n */
      k_sgemm_pack_b((const float *)w->data + (size_t)gi * (size_t)(kout * kin), 1, kin, kout, kin, t);
      q->w[gi] = t;
    }
  /* packed: the run reads the copies alone, the filter's file pages are
   * given back */
  if (q->w[0] && mem->ctx) pte_backend_release(mem->ctx, w->data, w->nbytes);
  n->conv_plan = q;
  return PTE_OK;
}

typedef struct fconv_run {
  k_sgemm_desc d;
  const xg_fconv *q;
  const float *filter, *bias;
  float *out;
  int64_t N;
} fconv_run;

static void fconv_product(void *ctx, const void *a, int64_t lda, int64_t rows, int64_t pixel0, uint32_t gi,
                          int slot) {
  const fconv_run *r = ctx;
  const xg_fconv *q = r->q;
  k_sgemm_desc d = r->d;
  d.M = rows, d.a = a, d.sa0 = lda;
  d.b = r->filter + gi * q->kout * q->kin, d.b_packed = q->w[gi];
  d.col_bias = r->bias ? r->bias + gi * q->kout : NULL;
  d.c = r->out + pixel0 * r->N + gi * q->kout;
  if (slot >= 0) { /* a thread's own pass: serial, on its slice of the scratch */
    d.parallel = false;
    d.scratch = (float *)((uint8_t *)d.scratch + (size_t)slot * q->gemm_slot), d.scratch_bytes = q->gemm_slot;
  }
  k_sgemm(&d);
}

typedef struct direct_par {
  const fconv_run *r;
  const float *x;
  int64_t M, K, rows;
} direct_par;

static void direct_thread_passes(void *ctx, size_t t0, size_t t1) {
  const direct_par *p = ctx;
  const int slot = (int)pte_threadpool_thread_index();
  for (size_t t = t0; t < t1; t++) {
    const int64_t r0 = (int64_t)t * p->rows, rows = p->M - r0 < p->rows ? p->M - r0 : p->rows;
    if (rows > 0) fconv_product((void *)p->r, p->x + r0 * p->K, p->K, rows, r0, 0, slot);
  }
}

const float *xg_conv_direct_filter(const xg_node *n) {
  const xg_fconv *q = n->conv_plan;
  if (n->type != XG_CONV2D || !q || q->wino || q->shortk || q->chain || !q->direct || q->groups != 1)
    return NULL;
  return q->w[0];
}

void xg_conv_set_chain(xg_node *n, const struct xg_chain *chain) {
  ((xg_fconv *)(uintptr_t)n->conv_plan)->chain = chain; /* the plan this init made */
}

bool xg_conv_is_chain(const xg_node *n) {
  return n->type == XG_CONV2D && n->conv_plan && ((const xg_fconv *)n->conv_plan)->chain;
}

void xg_native_conv2d(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_fconv *q = n->conv_plan;
  if (q->chain) {
    xg_chain_run(g, n, q->chain, ptr);
    return;
  }
  if (q->wino) {
    xg_wino_run(g, n, q->wino, ptr);
    return;
  }
  if (q->shortk) {
    const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
    const xg_conv_params *c = &n->p.conv;
    const int hd = q->nchw ? 2 : 1; /* H's dim, W's next */
    const k_conv_f32_desc d = {.N = (int64_t)x->dims[0],
                               .H = (int64_t)x->dims[hd],
                               .W = (int64_t)x->dims[hd + 1],
                               .C = (int64_t)x->dims[q->nchw ? 1 : 3],
                               .OH = (int64_t)o->dims[1],
                               .OW = (int64_t)o->dims[2],
                               .OC = q->kout,
                               .kh = (int32_t)c->kernel_h,
                               .kw = (int32_t)c->kernel_w,
                               .sh = (int32_t)c->sub_h,
                               .sw = (int32_t)c->sub_w,
                               .dh = (int32_t)c->dil_h,
                               .dw = (int32_t)c->dil_w,
                               .pt = (int32_t)c->pad_top,
                               .pl = (int32_t)c->pad_left,
                               .x = ptr[0],
                               .w = q->w[0],
                               .bias = n->in[2] == XG_NONE ? NULL : ptr[2],
                               .y = ptr[n->nin],
                               .lo = n->out_min,
                               .hi = n->out_max,
                               .nchw = q->nchw,
                               .parallel = true};
    k_conv_f32(&d);
    return;
  }
  fconv_run r = {.q = q,
                 .filter = ptr[1],
                 .bias = n->in[2] == XG_NONE ? NULL : ptr[2],
                 .out = ptr[n->nin],
                 .N = q->kout * q->groups};
  k_sgemm_desc *d = &r.d;
  d->N = q->kout, d->K = q->kin;
  d->sa1 = 1, d->sb0 = 1, d->sb1 = q->kin;
  d->sc0 = r.N, d->sc1 = 1;
  d->alpha = 1.0f;
  d->beta = r.bias ? 1.0f : 0.0f;
  d->lo = n->out_min, d->hi = n->out_max;
  d->clamp = k_clamps(d->lo, d->hi);
  d->scratch = g->fc_scratch, d->scratch_bytes = g->fc_scratch_bytes;
  d->parallel = true;
  /* whole passes per thread only while the scratch has their slices */
  size_t slots = q->slots;
  if (slots > 1 &&
      (g->col_scratch_floats < q->col_slot * slots || g->fc_scratch_bytes < q->gemm_slot * slots))
    slots = 1;
  if (q->direct && slots > 1) {
    const xg_value *x = &g->values[n->in[0]];
    const int64_t M = (int64_t)(x->numel / x->dims[3]);
    size_t t = k_slots();
    if (t > slots) t = slots;
    if (t > 1 && k_threads() <= t && M >= (int64_t)t * DIRECT_PASS_MIN_ROWS &&
        (double)M * (double)q->kin * (double)q->kout >= K_PAR_MIN_FLOPS &&
        k_sgemm_scratch_min(direct_pass_rows(M, t), q->kout, q->kin) <= q->gemm_slot) {
      direct_par p = {&r, ptr[0], M, q->kin, direct_pass_rows(M, t)};
      pte_threadpool_parallel_for((size_t)((M + p.rows - 1) / p.rows), 1, direct_thread_passes, &p);
      return;
    }
    slots = 1;
  }
  xg_conv_passes(g, n, ptr[0], sizeof(float), 0, q->direct, g->col_scratch, q->chunk, q->groups, q->kin,
                 slots, q->col_slot * sizeof(float), fconv_product, &r);
}

/* fp32 constant pads (MobileNetV2 from transformers pads TF-style: one
 * before every convolution, most of them of nothing) cost a pass over the
 * tensor each when they run, and split XNNPACK's runtimes around native
 * convolutions. A pad of nothing has its readers read its input; a pad of
 * H and W by +0.0 read only by a convolution or depthwise one on XNNPACK,
 * as its input, or by a native depthwise one, becomes that convolution's
 * padding (the taps there add zero, as the pad's zeros did). Native
 * convolutions were prepared with their padding already, so they take only
 * the empty pads. Only pads read
 * once (MobileNetV2's are): one pass finds each value's reader, so the
 * rewrite costs linear time in any order. */
/* An NCHW model's stem: a native transpose NCHW -> NHWC read only by a
 * short-reduction convolution on k_conv_f32 is dropped, and the
 * convolution reads the transpose's input as NCHW in place (MobileNetV2:
 * the transpose was a pass of 90 us over the input that did not scale). */
static void fold_stem_transposes(xg_graph *g, uint32_t *reader) {
  for (uint32_t ci = 0; ci < g->nnodes; ci++) {
    xg_node *d = &g->nodes[ci];
    if (d->type != XG_CONV2D || d->exec != XG_EXEC_NATIVE || d->sq || d->quant || !d->conv_plan) continue;
    xg_fconv *q = (xg_fconv *)d->conv_plan; /* the plan prepared in this init */
    xg_value *v = &g->values[d->in[0]];
    if (!q->shortk || q->nchw || v->producer < 0 || v->uses != 1 || v->flags || v->ndims != 4) continue;
    xg_node *t = &g->nodes[v->producer];
    const uint32_t *pm = t->p.transpose.perm;
    if (t->type != XG_STATIC_TRANSPOSE || t->exec != XG_EXEC_NATIVE || t->quant || t->nin != 1 ||
        t->nout != 1 || t->out[0] != d->in[0] || t->p.transpose.ndims != 4 || pm[0] != 0 || pm[1] != 2 ||
        pm[2] != 3 || pm[3] != 1)
      continue;
    xg_value *x = &g->values[t->in[0]];
    if (x->datatype != XG_DT_FP32 || x->value_type != XG_VALUE_TENSOR || x->ndims != 4 ||
        x->dims[0] != v->dims[0] || x->dims[1] != v->dims[3] || x->dims[2] != v->dims[1] ||
        x->dims[3] != v->dims[2])
      continue;
    d->in[0] = t->in[0]; /* x gains the convolution and loses the transpose as readers */
    v->uses = 0;
    t->exec = XG_EXEC_DEAD;
    reader[t->in[0]] = ci;
    q->nchw = true;
  }
}

pte_status xg_fold_pads(xg_graph *g, xg_mem *mem) {
  uint32_t *reader = (uint32_t *)xg_mem_array(mem, (size_t)g->nvalues + 1, sizeof(uint32_t));
  if (!reader) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
  for (uint32_t vi = 0; vi < g->nvalues; vi++) reader[vi] = XG_NONE;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    const xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    for (uint32_t k = 0; k < n->nin; k++)
      if (n->in[k] != XG_NONE) reader[n->in[k]] = ni; /* the last; with uses == 1 the only one */
  }
  fold_stem_transposes(g, reader);
  for (uint32_t pi = 0; pi < g->nnodes; pi++) {
    xg_node *p = &g->nodes[pi];
    if (p->type != XG_CONSTANT_PAD || p->exec == XG_EXEC_DEAD || p->quant || p->nin != 1 || p->nout != 1)
      continue;
    xg_value *x = &g->values[p->in[0]], *o = &g->values[p->out[0]];
    if (x->datatype != XG_DT_FP32 || o->datatype != XG_DT_FP32 || x->value_type != XG_VALUE_TENSOR ||
        o->value_type != XG_VALUE_TENSOR || o->flags || x->ndims != o->ndims || !o->uses)
      continue;
    const size_t *pre = p->p.pad.pre, *post = p->p.pad.post;
    bool empty = true;
    for (uint32_t d = 0; empty && d < o->ndims; d++) empty = !pre[d] && !post[d] && x->dims[d] == o->dims[d];
    if (o->uses != 1 || reader[p->out[0]] == XG_NONE) continue;
    xg_node *d = &g->nodes[reader[p->out[0]]];
    if (empty) {
      for (uint32_t k = 0; k < d->nin; k++)
        if (d->in[k] == p->out[0]) d->in[k] = p->in[0], x->uses++, o->uses--;
      reader[p->in[0]] = reader[p->out[0]];
    } else {
      /* a native fp32 depthwise convolution reads its padding at run time */
      const bool native_dw = d->type == XG_DEPTHWISE_CONV2D && d->exec == XG_EXEC_NATIVE && !d->sq;
      /* so does a short-reduction one on k_conv_f32, NCHW too */
      const bool native_shortk = d->type == XG_CONV2D && d->exec == XG_EXEC_NATIVE && !d->sq && !d->quant &&
                                 d->conv_plan && ((const xg_fconv *)d->conv_plan)->shortk;
      const bool nchw = native_shortk && ((const xg_fconv *)d->conv_plan)->nchw;
      const int hd = nchw ? 2 : 1, cd = nchw ? 1 : 3; /* H's dim (W's next) and C's */
      if ((d->type != XG_CONV2D && d->type != XG_DEPTHWISE_CONV2D) ||
          (d->exec != XG_EXEC_XNN && !native_dw && !native_shortk) || d->quant || d->flags ||
          d->in[0] != p->out[0] || o->ndims != 4 || pre[0] || post[0] || pre[cd] || post[cd] ||
          p->p.pad.value != 0.0f || signbit(p->p.pad.value))
        continue;
      xg_conv_params *c = &d->p.conv;
      const uint64_t most = INT32_MAX;
      if (c->pad_top + (uint64_t)pre[hd] > most || c->pad_left + (uint64_t)pre[hd + 1] > most ||
          c->pad_bottom + (uint64_t)post[hd] > most || c->pad_right + (uint64_t)post[hd + 1] > most)
        continue;
      c->pad_top += (uint32_t)pre[hd], c->pad_left += (uint32_t)pre[hd + 1];
      c->pad_bottom += (uint32_t)post[hd], c->pad_right += (uint32_t)post[hd + 1];
      d->in[0] = p->in[0];
      x->uses++, o->uses--;
      reader[p->in[0]] = reader[p->out[0]];
    }
    if (o->uses) continue; /* cannot happen: every reader moved */
    x->uses--;
    p->exec = XG_EXEC_DEAD;
  }
  return PTE_OK;
}

/* fp32 depthwise convolution (depth multiplier 1) on the kernel layer's
 * k_dwconv_f32: NHWC as XNNPACK has it, the filter [1][kh][kw][C] read in
 * place, the padding (with the pads folded in, xg_fold_pads) and the output
 * bounds applied in the loop. 2022 XNNPACK's up16x9 kernel sums a pixel's 9
 * taps in one FMA chain through an indirection buffer; and with the 1x1
 * convolutions native, each depthwise node on XNNPACK was a runtime of its
 * own between them. */
void xg_native_depthwise_conv2d(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64) {
  (void)index_int64;
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  const xg_conv_params *c = &n->p.conv;
  const k_dwconv_f32_desc d = {.N = (int64_t)x->dims[0],
                               .H = (int64_t)x->dims[1],
                               .W = (int64_t)x->dims[2],
                               .C = (int64_t)x->dims[3],
                               .OH = (int64_t)o->dims[1],
                               .OW = (int64_t)o->dims[2],
                               .kh = (int32_t)c->kernel_h,
                               .kw = (int32_t)c->kernel_w,
                               .sh = (int32_t)c->sub_h,
                               .sw = (int32_t)c->sub_w,
                               .dh = (int32_t)c->dil_h,
                               .dw = (int32_t)c->dil_w,
                               .pt = (int32_t)c->pad_top,
                               .pl = (int32_t)c->pad_left,
                               .x = ptr[0],
                               .w = ptr[1],
                               .bias = n->in[2] == XG_NONE ? NULL : ptr[2],
                               .y = ptr[n->nin],
                               .lo = n->out_min,
                               .hi = n->out_max,
                               .parallel = true};
  k_dwconv_f32(&d);
}
