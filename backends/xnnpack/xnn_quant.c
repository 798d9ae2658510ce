/* Quantized values on nodes (xnn_check.c calls it after a node's own
 * check): static int8 datatypes that go together on a node as its row's
 * XG_Q_* allows, and the dynamically quantized fully connected nodes that
 * pterun's int8 product runs. Parameters themselves are checked at parse. */
#include <math.h>
#include <string.h>

#include "klayer.h"
#include "xnn_nodes.h"

static bool same_quant(const xg_value *a, const xg_value *b) {
  if (a->datatype != b->datatype || a->value_type != b->value_type) return false;
  if (a->value_type != XG_VALUE_QUANTIZED) return true;
  return a->scale == b->scale && a->zero_point == b->zero_point && a->nscales == b->nscales &&
         a->channel_dim == b->channel_dim &&
         (!a->nscales || memcmp(a->scales, b->scales, a->nscales * sizeof(float)) == 0);
}

static pte_status quant_error(const xg_graph *g, uint32_t ni, uint32_t k, const char *want) {
  const xg_node *n = &g->nodes[ni];
  uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
  return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "%s value %u has datatype %s; with int8 values, %s",
                       k < n->nin ? "input" : "output", vi, xg_datatype_name(g->values[vi].datatype), want);
}

/* Static int8: which datatypes go together on a node (its row's XG_Q_*).
 * Sets n->quant when any value is quantized. */
/* A convolution (plain or transposed) of qdint8 images, one scale and
 * zero point per image as the partitioner emits them (num_nonbatch_dims 3),
 * with a constant per-channel qcint8 filter, an fp32 (or no) constant bias
 * and an fp32 output: k_qconv_direct (2022 XNNPACK has no such operator). */
static pte_status check_dynamic_conv(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  if (w->datatype != XG_DT_QCINT8 || !w->has_data || w->channel_dim != 0)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                         "a qdint8 convolution takes a constant qcint8 filter quantized along dimension 0");
  if (b && (b->value_type != XG_VALUE_TENSOR || b->datatype != XG_DT_FP32 || !b->has_data))
    return quant_error(g, ni, 2, "a qdint8 convolution takes a constant fp32 bias");
  if (o->value_type != XG_VALUE_TENSOR || o->datatype != XG_DT_FP32)
    return quant_error(g, ni, 3, "a qdint8 convolution writes fp32");
  if (x->ndims != 4 || !x->qd8_rows || xg_qd8_row_len(x) != x->dims[1] * x->dims[2] * x->dims[3])
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                         "a qdint8 convolution takes one set of parameters per image (num_nonbatch_dims 3) "
                         "from its convert");
  n->dyn = 1;
  n->quant = 1;
  n->direct = 1;
  *xnn_ok = false;
  return PTE_OK;
}

/* Dynamic quantization as the partitioner emits it: an fp32 -> qdint8
 * convert (pterun's: it quantizes the rows once) feeding fully connected
 * nodes with constant qcint8, qcint4 or qbint4 weights, an fp32 (or no)
 * constant bias and an fp32 output, which pterun's int8 product runs. */
static pte_status check_dynamic(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  if (n->type == XG_CONVERT && o->datatype == XG_DT_QDINT8) {
    if (x->value_type != XG_VALUE_TENSOR || x->datatype != XG_DT_FP32)
      return quant_error(g, ni, 0, "a qdint8 value is converted from fp32");
    /* pterun quantizes the rows here (xg_qd8_rows_fit), or copies them */
    g->values[n->out[0]].qd8_rows = xg_qd8_rows_fit(o);
    if (o->qd8_rows) n->copy_like = 0; /* no copy: the plan must not alias its output to its input */
    *xnn_ok = false;
    return PTE_OK;
  }
  const bool conv = n->type == XG_CONV2D || n->type == XG_CONV_TRANSPOSE2D;
  bool dq_input = (n->type == XG_FULLY_CONNECTED || conv) && x->datatype == XG_DT_QDINT8;
  for (uint32_t k = 0; k < (uint32_t)n->nin + n->nout; k++) {
    uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
    if (vi != XG_NONE && g->values[vi].datatype == XG_DT_QDINT8 && !(dq_input && k == 0))
      return quant_error(g, ni, k,
                         "qdint8 values go from a convert to fully connected and convolution inputs only");
  }
  if (!dq_input) return PTE_OK;
  if (conv) return check_dynamic_conv(g, ni, xnn_ok);
  if (xg_qd8_row_len(x) != x->dims[x->ndims - 1])
    return xg_node_error(
        g, ni, PTE_ERR_NOT_SUPPORTED,
        "a qdint8 fully connected takes one set of parameters per row (num_nonbatch_dims 1)");
  const xg_value *w = &g->values[n->in[1]], *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  if (w->datatype != XG_DT_QCINT8 && w->datatype != XG_DT_QCINT4 && w->datatype != XG_DT_QBINT4)
    return quant_error(g, ni, 1, "a qdint8 fully connected takes qcint8, qcint4 or qbint4 weights");
  if (!w->has_data || (n->flags & 1) || w->channel_dim != 0)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                         "quantized weights (value %u) must be a constant [N, K] quantized along dimension 0",
                         n->in[1]);
  if (b && (b->value_type != XG_VALUE_TENSOR || b->datatype != XG_DT_FP32 || !b->has_data))
    return quant_error(g, ni, 2, "a qdint8 fully connected takes a constant fp32 bias");
  if (o->value_type != XG_VALUE_TENSOR || o->datatype != XG_DT_FP32)
    return quant_error(g, ni, 3, "a qdint8 fully connected writes fp32");
  n->dyn = 1;
  n->quant = 1;
  *xnn_ok = false; /* 2022 XNNPACK has no such operator */
  return PTE_OK;
}

/* Static int8 convolutions and fully connected nodes (qint8 in and out, a
 * constant qint8/qcint8 filter, a constant or no int32 bias) run on the
 * kernel layer's int8 product rather than on Debian's 2022 XNNPACK, whose
 * qs8 GEMM has no VNNI/dot-product path (issue 12). Depthwise ones run on
 * the kernel layer's int8 depthwise loop (k_dwconv_s8, windows of at most
 * K_DW_MAX_TAPS taps): 2022 XNNPACK's is slower and kept MobileNetV2's
 * int8 graph split into dozens of runtimes between pterun's nodes. */
static void check_own_static(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  if (n->type == XG_CLAMP) {
    /* bounds that quantize to one value (a ReLU of a tensor quantized to
     * [-0.25, 0]): 2022 XNNPACK refuses them; pterun clamps the bytes */
    const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
    if (same_quant(x, o) && x->datatype == XG_DT_QINT8 &&
        xg_quant_bound(n->out_min, o, -128) >= xg_quant_bound(n->out_max, o, 127))
      n->direct = 1, *xnn_ok = false;
    return;
  }
  if (n->type == XG_CONV_TRANSPOSE2D) {
    /* 2022 XNNPACK's int8 deconvolution takes per-tensor filters only */
    const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
    const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
    if (w->datatype == XG_DT_QCINT8 && w->has_data && (!b || b->has_data) && x->datatype == XG_DT_QINT8 &&
        o->datatype == XG_DT_QINT8)
      n->direct = 1, *xnn_ok = false;
    return;
  }
  if (n->type == XG_DEPTHWISE_CONV2D) {
    if ((uint64_t)n->p.conv.kernel_h * n->p.conv.kernel_w > K_DW_MAX_TAPS) return;
  } else if (n->type != XG_CONV2D && n->type != XG_FULLY_CONNECTED) {
    return;
  }
  const xg_value *x = &g->values[n->in[0]], *w = &g->values[n->in[1]], *o = &g->values[n->out[0]];
  const xg_value *b = n->in[2] == XG_NONE ? NULL : &g->values[n->in[2]];
  if (x->datatype != XG_DT_QINT8 || o->datatype != XG_DT_QINT8 || !w->has_data || (b && !b->has_data)) return;
  if (w->datatype != XG_DT_QINT8 && w->datatype != XG_DT_QCINT8) return;
  n->sq = 1;
  *xnn_ok = false;
}

pte_status xg_check_quant(xg_graph *g, uint32_t ni, const xg_node_desc *d, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  const uint32_t nv = (uint32_t)n->nin + n->nout;
  bool dynamic = false;
  n->quant = 0;
  n->sq = 0;
  n->direct = 0;
  for (uint32_t k = 0; k < nv; k++) {
    uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
    if (vi == XG_NONE || g->values[vi].value_type != XG_VALUE_QUANTIZED) continue;
    n->quant = 1;
    if (g->values[vi].datatype == XG_DT_QDINT8) dynamic = true;
  }
  if (dynamic) {
    n->quant = 0;
    return check_dynamic(g, ni, xnn_ok);
  }
  if (!n->quant) return PTE_OK;
  if (!d->quant)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                         "takes fp32 values only (pterun runs no quantized %s; export it in fp32)",
                         xg_node_type_name(n->type));
  const xg_value *o = &g->values[n->out[0]];
  if (d->quant == XG_Q_CONVERT) {
    const xg_value *x = &g->values[n->in[0]];
    bool q_in = x->value_type == XG_VALUE_QUANTIZED, q_out = o->value_type == XG_VALUE_QUANTIZED;
    if (q_in == q_out)
      return quant_error(g, ni, 0, "a conversion goes from fp32 to qint8 or from qint8 to fp32");
    if ((q_in ? x : o)->datatype != XG_DT_QINT8)
      return quant_error(g, ni, q_in ? 0 : 1, "conversions take qint8");
    n->copy_like = 0;
    return PTE_OK;
  }
  for (uint32_t k = 0; k < nv; k++) {
    uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
    if (vi == XG_NONE) continue;
    const xg_value *v = &g->values[vi];
    if (d->quant == XG_Q_BYTES) {
      if (!same_quant(v, o))
        return quant_error(g, ni, k, "a copy needs qint8 inputs and output with equal parameters");
      continue;
    }
    if (k >= n->nin || !((d->packed >> k) & 1)) {
      if (v->datatype != XG_DT_QINT8) return quant_error(g, ni, k, "activations must be qint8");
    } else if (k == 1) {
      /* Filters: one scale per output channel, along its dimension. */
      uint32_t cd = n->type == XG_DEPTHWISE_CONV2D                      ? 3
                    : (n->type == XG_FULLY_CONNECTED && (n->flags & 1)) ? 1
                                                                        : 0;
      if (v->datatype != XG_DT_QINT8 && v->datatype != XG_DT_QCINT8)
        return quant_error(g, ni, k, "filters must be qint8 or qcint8");
      if (v->datatype == XG_DT_QCINT8 && v->channel_dim != cd)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                             "filter value %u is quantized along dimension %u, the node needs %u", vi,
                             v->channel_dim, cd);
      if (v->datatype == XG_DT_QCINT8 && n->type == XG_FULLY_CONNECTED) {
        /* 2022 XNNPACK has per-channel int8 convolutions but no such fully
         * connected: define_fc makes it a 1x1 convolution of an [N, K] filter. */
        if (n->flags & 1)
          return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                               "a per-channel int8 filter stored [K, N] (flag 0x1) is not supported");
        g->values[vi].conv_filter = true;
      }
    } else if (v->datatype != XG_DT_QINT32 && v->datatype != XG_DT_QCINT32) {
      return quant_error(g, ni, k, "biases must be qint32 or qcint32");
    }
  }
  check_own_static(g, ni, xnn_ok);
  return PTE_OK;
}

int8_t xg_quantize_value(float x, const xg_value *o) {
  float v = x * (1.0f / o->scale);
  const float lo = (float)(-128 - o->zero_point), hi = (float)(127 - o->zero_point);
  v = v < lo ? lo : v > hi ? hi : v;
  return v == v ? (int8_t)((int32_t)nearbyintf(v) + o->zero_point) : (int8_t)o->zero_point;
}

/* ExecuTorch's int8 CNNs (MobileNetV2) pad in fp32 between a dequantizing
 * and a quantizing convert: qint8 -> fp32, constant pad, fp32 -> qint8.
 * Every int8 value goes through that chain to one int8 value, so the chain
 * is a qint8 pad (the padding value quantized with the input's parameters)
 * followed by a 256-byte table (n->qscratch; none when the parameters are
 * equal and the table is the identity), run natively in one pass; both
 * converts are dropped (two fp32 passes fewer). The padding value must come
 * out of the table as the chain makes it. Runs after dead nodes are known;
 * the chain's fp32 values lose their uses. */
pte_status xg_fuse_quant_pads(xg_graph *g, xg_mem *mem) {
  for (uint32_t bi = 0; bi < g->nnodes; bi++) {
    xg_node *b = &g->nodes[bi];
    if (b->type != XG_CONVERT || b->exec == XG_EXEC_DEAD) continue;
    xg_value *v2 = &g->values[b->in[0]], *o = &g->values[b->out[0]];
    if (v2->producer < 0 || v2->uses != 1 || v2->flags || v2->datatype != XG_DT_FP32 ||
        v2->value_type != XG_VALUE_TENSOR)
      continue;
    xg_node *p = &g->nodes[v2->producer];
    if (p->type != XG_CONSTANT_PAD || p->exec == XG_EXEC_DEAD) continue;
    xg_value *v1 = &g->values[p->in[0]];
    if (v1->producer < 0 || v1->uses != 1 || v1->flags || v1->datatype != XG_DT_FP32 ||
        v1->value_type != XG_VALUE_TENSOR)
      continue;
    xg_node *a = &g->nodes[v1->producer];
    if (a->type != XG_CONVERT || a->exec == XG_EXEC_DEAD) continue;
    const xg_value *q = &g->values[a->in[0]];
    if (q->value_type != XG_VALUE_QUANTIZED || o->value_type != XG_VALUE_QUANTIZED ||
        q->datatype != XG_DT_QINT8 || o->datatype != XG_DT_QINT8)
      continue;
    int8_t lut[256];
    bool identity = true;
    for (int i = -128; i < 128; i++) {
      lut[i + 128] = xg_quantize_value((float)(i - q->zero_point) * q->scale, o);
      identity = identity && lut[i + 128] == i;
    }
    const int8_t pad_in = xg_quantize_value(p->p.pad.value, q);
    if (lut[pad_in + 128] != xg_quantize_value(p->p.pad.value, o)) continue;
    if (!identity) {
      int8_t *t = xg_mem_alloc(mem, 256);
      if (!t) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
      memcpy(t, lut, 256);
      p->qscratch = t;
    }
    /* the qint8 input's use moves from the first convert to the pad */
    p->in[0] = a->in[0];
    p->out[0] = b->out[0];
    p->quant = 1;
    p->exec = XG_EXEC_NATIVE;
    o->producer = (int32_t)v2->producer;
    v1->uses = v2->uses = 0;
    a->exec = b->exec = XG_EXEC_DEAD;
  }
  return PTE_OK;
}

/* The fp32 function a native unary node computes, for the tables below
 * (the same kernel-layer call its native entry point makes), or NULL. */
static void (*unary_fn(const xg_node *n))(const float *, float *, int64_t) {
  if (n->exec != XG_EXEC_NATIVE) return NULL; /* XNNPACK's may round otherwise */
  switch (n->type) {
    case XG_GELU: return k_vgelu;
    case XG_TANH: return k_vtanh;
    case XG_EXP: return k_vexp;
    case XG_SIGMOID: return k_vsigmoid;
    default: return NULL;
  }
}

/* An fp32 value that only links two nodes of a chain (one reader, not a
 * delegate argument), written by a live node of type `type`; NULL if not. */
static xg_node *chain_link(xg_graph *g, uint32_t vi, int type) {
  const xg_value *v = &g->values[vi];
  if (v->producer < 0 || v->uses != 1 || v->flags || v->datatype != XG_DT_FP32 ||
      v->value_type != XG_VALUE_TENSOR)
    return NULL;
  xg_node *p = &g->nodes[v->producer];
  return p->type == type && p->exec != XG_EXEC_DEAD ? p : NULL;
}

/* ViT's int8 MLP computes its GELU in fp32 between two converts: qint8 ->
 * fp32, gelu (or tanh, exp, sigmoid run natively), fp32 -> qint8. Every
 * int8 input goes through that chain to one int8 output, so the chain is a
 * 256-byte table, built here with the very kernels the chain would run
 * (k_dequantize_s8, the function, k_quantize_s8): the first convert keeps
 * it (n->qscratch) and becomes a native qint8 -> qint8 lookup; the function
 * and the second convert are dropped (three passes over the activations,
 * two of them fp32, become one over bytes). */
pte_status xg_fuse_quant_tables(xg_graph *g, xg_mem *mem) {
  for (uint32_t bi = 0; bi < g->nnodes; bi++) {
    xg_node *b = &g->nodes[bi];
    if (b->type != XG_CONVERT || b->exec == XG_EXEC_DEAD) continue;
    xg_value *o = &g->values[b->out[0]];
    if (o->value_type != XG_VALUE_QUANTIZED || o->datatype != XG_DT_QINT8) continue;
    xg_value *v2 = &g->values[b->in[0]];
    if (v2->producer < 0) continue;
    xg_node *f = &g->nodes[v2->producer];
    void (*fn)(const float *, float *, int64_t) = unary_fn(f);
    if (!fn || !chain_link(g, b->in[0], f->type)) continue;
    xg_node *a = chain_link(g, f->in[0], XG_CONVERT);
    if (!a) continue;
    const xg_value *q = &g->values[a->in[0]];
    if (q->value_type != XG_VALUE_QUANTIZED || q->datatype != XG_DT_QINT8) continue;
    int8_t in[256], *lut = xg_mem_alloc(mem, 256);
    float t[256], u[256];
    if (!lut) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
    for (int i = 0; i < 256; i++) in[i] = (int8_t)(i - 128);
    k_dequantize_s8(in, t, 256, q->zero_point, q->scale);
    fn(t, u, 256);
    k_quantize_s8(u, lut, 256, 1.0f / o->scale, o->zero_point);
    g->values[f->in[0]].uses = 0;
    v2->uses = 0;
    a->out[0] = b->out[0];
    a->qscratch = lut;
    a->qscratch_bytes = 256;
    a->exec = XG_EXEC_NATIVE;
    o->producer = (int32_t)(a - g->nodes);
    f->exec = b->exec = XG_EXEC_DEAD;
  }
  /* BERT's gelu, before a qdint8 convert (rows quantized per row: no
   * table): the cheaper form, far inside a quantization step */
  for (uint32_t bi = 0; bi < g->nnodes; bi++) {
    const xg_node *b = &g->nodes[bi];
    if (b->type != XG_CONVERT || b->exec == XG_EXEC_DEAD) continue;
    const xg_value *o = &g->values[b->out[0]];
    if (o->value_type != XG_VALUE_QUANTIZED || (o->datatype != XG_DT_QINT8 && o->datatype != XG_DT_QDINT8))
      continue;
    xg_node *f = chain_link(g, b->in[0], XG_GELU);
    if (f && f->exec == XG_EXEC_NATIVE) f->approx = 1;
  }
  /* ... and a qdint8 convert whose rows fit a stack row takes that gelu
   * over: each row through the gelu while in cache, then quantized (the
   * gelu's fp32 tensor is neither written nor read twice) */
  for (uint32_t bi = 0; bi < g->nnodes; bi++) {
    xg_node *b = &g->nodes[bi];
    if (b->type != XG_CONVERT || b->exec != XG_EXEC_NATIVE) continue;
    const xg_value *o = &g->values[b->out[0]];
    xg_value *v2 = &g->values[b->in[0]];
    if (!o->qd8_rows || v2->uses != 1 || v2->flags || !v2->ndims || v2->dims[v2->ndims - 1] > XG_GELU_ROW_MAX)
      continue;
    xg_node *f = chain_link(g, b->in[0], XG_GELU);
    if (!f || f->exec != XG_EXEC_NATIVE || !f->approx) continue;
    v2->uses = 0;
    b->in[0] = f->in[0];
    b->pre_gelu = 1;
    f->exec = XG_EXEC_DEAD;
  }
  for (uint32_t bi = 0; bi < g->nnodes; bi++) {
    xg_node *b = &g->nodes[bi];
    if (b->type != XG_CONVERT || b->exec == XG_EXEC_DEAD) continue;
    xg_value *o = &g->values[b->out[0]], *v2 = &g->values[b->in[0]];
    if (o->value_type != XG_VALUE_TENSOR || o->datatype != XG_DT_FP32 ||
        v2->value_type != XG_VALUE_QUANTIZED || v2->datatype != XG_DT_QINT8 || v2->producer < 0 ||
        v2->uses != 1 || v2->flags)
      continue;
    xg_node *m = &g->nodes[v2->producer];
    if (m->type != XG_MULTIPLY || m->exec == XG_EXEC_DEAD) continue;
    /* which input is the converted tensor, which the one-element factor */
    int k = -1;
    for (int s = 0; s < 2 && k < 0; s++) {
      const xg_value *x = &g->values[m->in[s]], *c = &g->values[m->in[1 - s]];
      if (x->producer >= 0 && x->uses == 1 && !x->flags && x->numel == v2->numel &&
          x->value_type == XG_VALUE_QUANTIZED && x->datatype == XG_DT_QINT8 &&
          g->nodes[x->producer].type == XG_CONVERT && g->nodes[x->producer].exec != XG_EXEC_DEAD &&
          c->numel == 1 && c->value_type == XG_VALUE_QUANTIZED && c->datatype == XG_DT_QINT8 &&
          c->quant_type == XG_QP_PER_TENSOR && m->in[0] != m->in[1])
        k = s;
    }
    if (k < 0) continue;
    xg_value *x = &g->values[m->in[k]];
    xg_node *a = &g->nodes[x->producer];
    const xg_value *f = &g->values[a->in[0]];
    if (f->value_type != XG_VALUE_TENSOR || f->datatype != XG_DT_FP32 || x->quant_type != XG_QP_PER_TENSOR ||
        v2->quant_type != XG_QP_PER_TENSOR)
      continue;
    xg_qmulc *t = xg_mem_alloc(mem, sizeof *t);
    if (!t) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
    t->q_in = m->in[k];
    t->q_out = b->in[0];
    /* the fp32 tensor is input 0, the factor input 1 */
    const uint32_t c = m->in[1 - k];
    m->in[0] = a->in[0];
    m->in[1] = c;
    m->out[0] = b->out[0];
    m->qscratch = t;
    m->qscratch_bytes = sizeof *t;
    m->exec = XG_EXEC_NATIVE;
    o->producer = (int32_t)v2->producer;
    x->uses = v2->uses = 0;
    a->exec = b->exec = XG_EXEC_DEAD;
  }
  return PTE_OK;
}

static bool unbounded(const xg_node *n) { return !k_clamps(n->out_min, n->out_max); }

static bool fp32_tensor(const xg_value *v) {
  return v->value_type == XG_VALUE_TENSOR && v->datatype == XG_DT_FP32 && !v->half;
}

/* BERT's attention scores in fp32: a multiply by a one-element value (the
 * scale), an add of a mask that broadcasts along the rows, a softmax over
 * the last dimension. Three passes, on 2022 XNNPACK one runtime between
 * pterun's products, become the softmax alone, native, with inputs (x,
 * scale, mask) computing x * scale + mask per row before its max; ViT's,
 * the multiply and the softmax, with inputs (x, scale). */
pte_status xg_fuse_softmax_prologue(xg_graph *g) {
  for (uint32_t si = 0; si < g->nnodes; si++) {
    xg_node *s = &g->nodes[si];
    if (s->type != XG_SOFTMAX || s->exec == XG_EXEC_DEAD || s->nin != 1) continue;
    if (!fp32_tensor(&g->values[s->out[0]])) continue;
    xg_node *d = chain_link(g, s->in[0], XG_ADD);
    if (!d) {
      /* ViT's: the scale alone (no mask), 2022 XNNPACK's two-node runtime
       * 2.4x the native softmax's time (with the scaling in its
       * exponentials' pass): (x, scale) */
      xg_node *m = chain_link(g, s->in[0], XG_MULTIPLY);
      if (!m || !unbounded(m)) continue;
      const xg_value *o = &g->values[s->out[0]];
      uint32_t x = XG_NONE, sc = XG_NONE;
      for (int k = 0; k < 2; k++) {
        const xg_value *a = &g->values[m->in[k]], *b = &g->values[m->in[1 - k]];
        if (fp32_tensor(a) && fp32_tensor(b) && b->numel == 1 && a->numel == o->numel &&
            a->ndims == o->ndims && m->in[0] != m->in[1])
          x = m->in[k], sc = m->in[1 - k];
      }
      if (x == XG_NONE) continue;
      g->values[s->in[0]].uses = 0;
      s->in[0] = x;
      s->in[1] = sc;
      s->nin = 2;
      s->exec = XG_EXEC_NATIVE;
      m->exec = XG_EXEC_DEAD;
      continue;
    }
    if (!d || !unbounded(d) || !fp32_tensor(&g->values[s->out[0]])) continue;
    xg_node *m = NULL;
    uint32_t mask = XG_NONE;
    for (int k = 0; k < 2 && !m; k++)
      if ((m = chain_link(g, d->in[k], XG_MULTIPLY))) mask = d->in[1 - k];
    if (!m || !unbounded(m)) continue;
    const xg_value *o = &g->values[s->out[0]], *mv = &g->values[mask];
    uint32_t x = XG_NONE, sc = XG_NONE;
    for (int k = 0; k < 2; k++) {
      const xg_value *a = &g->values[m->in[k]], *b = &g->values[m->in[1 - k]];
      if (fp32_tensor(a) && fp32_tensor(b) && b->numel == 1 && a->numel == o->numel && a->ndims == o->ndims &&
          m->in[0] != m->in[1])
        x = m->in[k], sc = m->in[1 - k];
    }
    /* the mask: fp32, broadcast to the rows with whole rows of the last dim */
    if (x == XG_NONE || !fp32_tensor(mv) || mv->ndims == 0 || mv->ndims > o->ndims ||
        mv->dims[mv->ndims - 1] != o->dims[o->ndims - 1])
      continue;
    bool fits = true;
    for (uint32_t i = 0; i < mv->ndims; i++) {
      const size_t od = o->dims[o->ndims - mv->ndims + i];
      fits = fits && (mv->dims[i] == od || mv->dims[i] == 1);
    }
    if (!fits) continue;
    g->values[s->in[0]].uses = 0;
    g->values[d->in[0] == mask ? d->in[1] : d->in[0]].uses = 0;
    s->in[0] = x;
    s->in[1] = sc;
    s->in[2] = mask;
    s->nin = 3;
    s->exec = XG_EXEC_NATIVE;
    m->exec = d->exec = XG_EXEC_DEAD;
  }
  return PTE_OK;
}

/* Live readers of value `from` read `to` instead. */
static void reread(xg_graph *g, uint32_t from, uint32_t to) {
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    for (uint32_t k = 0; k < n->nin; k++)
      if (n->in[k] == from) n->in[k] = to, g->values[to].uses++, g->values[from].uses--;
  }
}

/* The only live reader of value vi, or NULL. */
static xg_node *only_reader(xg_graph *g, uint32_t vi) {
  xg_node *r = NULL;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    xg_node *n = &g->nodes[ni];
    if (n->exec == XG_EXEC_DEAD) continue;
    for (uint32_t k = 0; k < n->nin; k++)
      if (n->in[k] == vi) {
        if (r) return NULL;
        r = n;
      }
  }
  return r;
}

/* MobileNetV2's clamps and fused pads (xg_fuse_quant_pads) each cost a
 * pass over the tensor: every ReLU6 is a clamp then a requantization (to
 * the range [0, 6]), every depthwise convolution's input also gets a
 * border, every projection's output an empty pad. Each goes where the
 * bytes are anyway:
 *  - a clamp of a native int8 convolution's output (read by nothing else)
 *    narrows that convolution's output bounds;
 *  - a requantization moves into the epilogue of the native int8 node that
 *    produced its input (read by nothing else), which then writes the pad's
 *    parameters (the value takes them);
 *  - a pad of H and W by the input's zero point, read only by a native int8
 *    depthwise convolution, becomes that convolution's padding (its taps
 *    there read the zero point, which adds nothing, as the pad's bytes);
 *  - a pad of nothing has its readers read its input.
 * What is left of a pad runs as before. */
pte_status xg_fuse_quant_producers(xg_graph *g, xg_mem *mem) {
  /* a qint8 clamp (ReLU6) of a native int8 convolution's output is its
   * bounds; the clamp's output becomes the convolution's */
  for (uint32_t ci = 0; ci < g->nnodes; ci++) {
    xg_node *k = &g->nodes[ci];
    if (k->type != XG_CLAMP || k->exec == XG_EXEC_DEAD || k->nin != 1 || k->nout != 1) continue;
    xg_value *x = &g->values[k->in[0]], *o = &g->values[k->out[0]];
    if (x->datatype != XG_DT_QINT8 || x->value_type != XG_VALUE_QUANTIZED || x->nscales ||
        !same_quant(x, o) || x->producer < 0 || x->uses != 1 || x->flags)
      continue;
    xg_node *c = &g->nodes[x->producer];
    if (c->nout != 1 || !xg_native_fuse_clamp(g, c, k->out_min, k->out_max)) continue;
    c->out[0] = k->out[0];
    o->producer = x->producer;
    x->uses = 0;
    x->producer = -1;
    k->exec = XG_EXEC_DEAD;
  }
  for (uint32_t pi = 0; pi < g->nnodes; pi++) {
    xg_node *p = &g->nodes[pi];
    if (p->type != XG_CONSTANT_PAD || p->exec != XG_EXEC_NATIVE || !p->quant) continue;
    xg_value *x = &g->values[p->in[0]], *o = &g->values[p->out[0]];
    if (x->datatype != XG_DT_QINT8 || o->datatype != XG_DT_QINT8 || x->value_type != XG_VALUE_QUANTIZED ||
        o->value_type != XG_VALUE_QUANTIZED || x->nscales || o->nscales)
      continue;
    if (p->qscratch) {
      if (x->producer < 0 || x->uses != 1 || x->flags) continue;
      int8_t *table = xg_mem_alloc(mem, 256);
      if (!table) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
      if (!xg_native_fuse_requant(&g->nodes[x->producer], x->zero_point, x->scale, 1.0f / o->scale,
                                  o->zero_point, table))
        continue;
      x->scale = o->scale, x->zero_point = o->zero_point;
      p->qscratch = NULL;
    }
    if (!same_quant(x, o) || o->flags) continue;
    const size_t *pre = p->p.pad.pre, *post = p->p.pad.post;
    bool empty = x->ndims == o->ndims;
    for (uint32_t d = 0; empty && d < o->ndims; d++) empty = !pre[d] && !post[d] && x->dims[d] == o->dims[d];
    if (empty) {
      reread(g, p->out[0], p->in[0]);
    } else {
      xg_node *d = only_reader(g, p->out[0]);
      if (!d || d->type != XG_DEPTHWISE_CONV2D || !d->sq || d->exec != XG_EXEC_NATIVE ||
          d->in[0] != p->out[0] || x->ndims != 4 || o->ndims != 4 || pre[0] || post[0] || pre[3] || post[3] ||
          xg_quantize_value(p->p.pad.value, x) != x->zero_point)
        continue;
      xg_conv_params *c = &d->p.conv;
      const uint64_t most = INT32_MAX; /* the kernel takes int32 padding */
      if (c->pad_top + (uint64_t)pre[1] > most || c->pad_left + (uint64_t)pre[2] > most ||
          c->pad_bottom + (uint64_t)post[1] > most || c->pad_right + (uint64_t)post[2] > most)
        continue;
      c->pad_top += (uint32_t)pre[1], c->pad_left += (uint32_t)pre[2];
      c->pad_bottom += (uint32_t)post[1], c->pad_right += (uint32_t)post[2];
      d->in[0] = p->in[0];
      x->uses++, o->uses--;
    }
    if (o->uses) continue; /* cannot happen: every reader moved */
    x->uses--;
    p->exec = XG_EXEC_DEAD;
  }
  return PTE_OK;
}
