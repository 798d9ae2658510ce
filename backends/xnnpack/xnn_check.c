/* Node validation: the checks every node gets (datatypes, value wiring,
 * rank and flags from its row), its row's own check (xnn_nodes.c: inferred
 * output shape, parameters), the decision between Debian's 2022 XNNPACK and
 * pterun's own code, and dead nodes. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "klayer.h"
#include "xnn_nodes.h"

pte_status xg_node_error(const xg_graph *g, uint32_t ni, pte_status st, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const xg_node *n = &g->nodes[ni];
  return pte_error(st, "XNNPACK node %u (%s, debug handle %u): %s", ni, xg_node_type_name(n->type),
                   n->debug_handle, msg);
}

pte_status xg_error_prefix(pte_status st, const char *fmt, ...) {
  char old[1024], prefix[512];
  snprintf(old, sizeof old, "%s", pte_last_error());
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  return pte_error(st, "%s: %s", prefix, old);
}

static pte_status need_rank(const xg_graph *g, uint32_t ni, uint32_t k, uint32_t rank) {
  const xg_value *v = &g->values[g->nodes[ni].in[k]];
  if (v->ndims == rank) return PTE_OK;
  return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input %u (value %u) has rank %u, expected %u", k,
                       g->nodes[ni].in[k], v->ndims, rank);
}

static pte_status need_flags(const xg_graph *g, uint32_t ni, uint32_t allowed) {
  uint32_t f = g->nodes[ni].flags;
  if ((f & ~allowed) == 0) return PTE_OK;
  return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "flags 0x%x are not supported (allowed: 0x%x)", f,
                       allowed);
}

/* The generic part of a node's checks, then its row's own (xnn_nodes.def):
 * who may run it follows from the row (no define: not XNNPACK) and from
 * what the check found. */
static pte_status check_node(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  const xg_node_desc *d = xg_node_desc_of(n->type);
  if (!d || !d->check) return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "unknown node type %u", n->type);
  pte_status st;
  for (uint32_t k = 0; k < n->nin; k++)
    if (((d->rank4 >> k) & 1) && (st = need_rank(g, ni, k, 4))) return st;
  if ((st = need_flags(g, ni, d->flags))) return st;
  if (d->copy) n->copy_like = 1;
  *xnn_ok = d->define != NULL;
  if ((st = d->check(g, ni, xnn_ok))) return st;
  return xg_check_quant(g, ni, d, xnn_ok);
}

bool xg_native_supports(const xg_graph *g, const xg_node *n) {
  (void)g;
  const xg_node_desc *d = xg_node_desc_of(n->type);
  /* pterun's compute is fp32; on int8 it only copies bytes and converts. */
  if (n->sq || n->direct) return true; /* int8 convolutions and fully connected on the kernel layer */
  /* fp32 depthwise: depth multiplier 1 only, sizes in k_dwconv_f32's int32 */
  if (n->type == XG_DEPTHWISE_CONV2D) {
    const xg_conv_params *c = &n->p.conv;
    if (c->group_out != c->group_in) return false;
    const uint32_t most = INT32_MAX;
    if (c->kernel_h > most || c->kernel_w > most || c->sub_h > most || c->sub_w > most || c->dil_h > most ||
        c->dil_w > most || c->pad_top > most || c->pad_left > most)
      return false;
  }
  return d && d->native && (!n->quant || n->dyn || d->quant == XG_Q_BYTES || d->quant == XG_Q_CONVERT);
}

/* The row's preference (fp32 only: pterun's int8 code is copies and converts). */
static bool prefers_native(const xg_node *n, const xg_check_options *opts) {
  if (opts && opts->prefer_native) return true;
  const xg_node_desc *d = xg_node_desc_of(n->type);
  if (!(opts && opts->prefer_xnnpack) && d && d->prefer == XG_PREFER_NATIVE && !n->quant) {
    /* short products of one group (MobileNetV2's 3-channel stem) run on
     * k_conv_f32 with AVX-512 or AVX2 (xnn_conv.c; on a Zen 3 the stem
     * took 0.35 ms against 0.75 on XNNPACK), else stay on XNNPACK; 1x1
     * ones, strided too (ResNet's downsampling shortcuts: 2022 XNNPACK's did
     * not get faster on 2 threads), are pterun's */
    const xg_conv_params *c = &n->p.conv;
    /* depthwise: k_dwconv_f32's AVX-512 row only (its generic loop, and on
     * Zen 3 its AVX2 row too, measured no faster than XNNPACK's kernels) */
    if (n->type == XG_DEPTHWISE_CONV2D) return k_isa_get() == K_ISA_AVX512;
    return n->type != XG_CONV2D || c->kernel_h * c->kernel_w == 1 ||
           c->kernel_h * c->kernel_w * c->group_in >= 64 ||
           (c->groups == 1 && (k_isa_get() == K_ISA_AVX512 || k_isa_get() == K_ISA_AVX2));
  }
  return false;
}

bool xg_input_is_packed(const xg_node *n, uint32_t slot) {
  const xg_node_desc *d = xg_node_desc_of(n->type);
  return d && slot < 8 && ((d->packed >> slot) & 1);
}

static const char *why_refused(int dt) {
  switch (dt) {
    case XG_DT_FP16:
      return "fp16 runs as fp32 on plain tensor values only"; /* a quantized value claiming fp16 */
    case XG_DT_BF16:
      return "bf16 graphs are not supported (Debian's 2022 XNNPACK has no bf16 subgraph operators; export "
             "in fp32 or fp16)";
    case XG_DT_QPINT8: return "packed dynamically quantized int8 (qpint8) is not supported";
    case XG_DT_FP32: return "quantization parameters on an fp32 value are not supported";
    case XG_DT_QCINT4:
    case XG_DT_QBINT4:
    case XG_DT_QDINT8:
    case XG_DT_QINT8:
    case XG_DT_QINT32:
    case XG_DT_QCINT8:
    case XG_DT_QCINT32: return "a quantized datatype needs quantization parameters";
    default:
      return "pterun's XNNPACK delegate runs fp32, static int8 (qint8, qcint8, qint32, qcint32) and "
             "dynamically quantized (qdint8 with qcint8, qcint4, qbint4 weights) graphs only";
  }
}

static pte_status check_value_types(const xg_graph *g, uint32_t ni) {
  const xg_node *n = &g->nodes[ni];
  for (uint32_t k = 0; k < (uint32_t)n->nin + n->nout; k++) {
    uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
    if (vi == XG_NONE) continue;
    const xg_value *v = &g->values[vi];
    const bool static_int8 =
        v->value_type == XG_VALUE_QUANTIZED &&
        (v->datatype == XG_DT_QINT8 || v->datatype == XG_DT_QINT32 || v->datatype == XG_DT_QCINT8 ||
         v->datatype == XG_DT_QCINT32 || v->datatype == XG_DT_QDINT8 || v->datatype == XG_DT_QCINT4 ||
         v->datatype == XG_DT_QBINT4);
    /* A quantized argument is its raw integers in an ExecuTorch tensor, with
     * one scale and zero point (the partitioner passes qint8 activations
     * between delegates and portable ops such as a CLS-token expand). */
    if (static_int8 && v->flags &&
        (xg_datatype_arg_dtype(v->datatype) < 0 || v->quant_type != XG_QP_PER_TENSOR))
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                           "delegate %s value %u has datatype %s: delegate arguments must be fp32, or "
                           "qint8/qint32 with per-tensor parameters",
                           (v->flags & XG_FLAG_EXTERNAL_INPUT) ? "input" : "output", vi,
                           xg_datatype_name(v->datatype));
    if (!static_int8 && (v->datatype != XG_DT_FP32 || v->value_type != XG_VALUE_TENSOR))
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "%s value %u has datatype %s: %s",
                           k < n->nin ? "input" : "output", vi, xg_datatype_name(v->datatype),
                           why_refused(v->value_type == XG_VALUE_TENSOR ? v->datatype : -1));
    if (v->dq_datatype != XG_DT_INVALID)
      return xg_node_error(
          g, ni, PTE_ERR_NOT_SUPPORTED,
          "value %u is to be quantized dynamically to %s: the legacy dq_datatype field is not "
          "supported (dynamically quantized graphs as ExecuTorch 1.x writes them are)",
          vi, xg_datatype_name(v->dq_datatype));
  }
  return PTE_OK;
}

static bool node_is_dead(const xg_graph *g, const xg_node *n) {
  for (uint32_t k = 0; k < n->nout; k++) {
    const xg_value *o = &g->values[n->out[k]];
    if (o->uses || (o->flags & XG_FLAG_EXTERNAL_OUTPUT)) return false;
  }
  return true;
}

/* A qint8 <-> fp32 convert with no neighbour on XNNPACK (its producer and
 * readers native, or delegate inputs and outputs) runs natively too: on
 * XNNPACK it is a one-node runtime of its own, on one thread (int8 ViT's
 * converts at its delegates' edges, and before its softmax: with the
 * softmax, 135 us a layer at 1 and 2 threads). */
static pte_status converts_between_native(xg_graph *g, xg_mem *mem) {
  /* values some live XNNPACK node reads: one pass, so hostile graphs of many
   * converts cost linear time (a convert moved to pterun only removes
   * readers, so marks made before it moved can only keep another on XNNPACK) */
  uint8_t *xnn_read = (uint8_t *)xg_mem_array(mem, (size_t)g->nvalues + 1, 1);
  if (!xnn_read) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
  memset(xnn_read, 0, (size_t)g->nvalues + 1);
  for (uint32_t ni = 0; ni < g->nnodes; ni++)
    if (g->nodes[ni].exec == XG_EXEC_XNN)
      for (uint32_t k = 0; k < g->nodes[ni].nin; k++)
        if (g->nodes[ni].in[k] != XG_NONE) xnn_read[g->nodes[ni].in[k]] = 1;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    xg_node *n = &g->nodes[ni];
    if (n->type != XG_CONVERT || n->exec != XG_EXEC_XNN || !n->quant || !xg_native_supports(g, n)) continue;
    const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
    const xg_value *q = x->value_type == XG_VALUE_QUANTIZED ? x : o;
    if (q->datatype != XG_DT_QINT8 || q->quant_type != XG_QP_PER_TENSOR || xnn_read[n->out[0]] ||
        (x->producer >= 0 && g->nodes[x->producer].exec != XG_EXEC_NATIVE))
      continue;
    /* nor between two XNNPACK nodes in node order: one runtime would split in two */
    int32_t prev = (int32_t)ni - 1, next = (int32_t)ni + 1;
    while (prev >= 0 && g->nodes[prev].exec == XG_EXEC_DEAD) prev--;
    while (next < (int32_t)g->nnodes && g->nodes[next].exec == XG_EXEC_DEAD) next++;
    if (prev >= 0 && next < (int32_t)g->nnodes && g->nodes[prev].exec == XG_EXEC_XNN &&
        g->nodes[next].exec == XG_EXEC_XNN)
      continue;
    n->exec = XG_EXEC_NATIVE;
  }
  return PTE_OK;
}

pte_status xg_check(xg_graph *g, const xg_check_options *opts, xg_mem *mem) {
  pte_status st;
  for (uint32_t ni = 0; ni < g->nnodes; ni++) {
    xg_node *n = &g->nodes[ni];
    if ((st = check_value_types(g, ni))) return st;
    for (uint32_t k = 0; k < n->nout; k++) {
      xg_value *o = &g->values[n->out[k]];
      if (o->has_data || (o->flags & XG_FLAG_EXTERNAL_INPUT))
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "writes value %u, which is a %s", n->out[k],
                             o->has_data ? "constant" : "delegate input");
      if (o->producer >= 0)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "writes value %u, already written by node %d",
                             n->out[k], (int)o->producer);
      for (uint32_t j = 0; j < n->nin; j++)
        if (n->in[j] == n->out[k])
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "reads and writes value %u", n->out[k]);
      for (uint32_t j = 0; j < k; j++)
        if (n->out[j] == n->out[k])
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "writes value %u twice", n->out[k]);
      o->producer = (int32_t)ni;
      const xg_node_desc *desc = xg_node_desc_of(n->type);
      o->index_out = desc && ((desc->index_outs >> k) & 1);
    }
    for (uint32_t k = 0; k < n->nin; k++)
      if (n->in[k] != XG_NONE) g->values[n->in[k]].uses++;
    bool xnn_ok;
    if ((st = check_node(g, ni, &xnn_ok))) return st;
    if ((n->dyn || n->sq || n->direct) && (st = xg_native_prepare(g, ni, mem))) return st;
    bool native_ok = xg_native_supports(g, n);
    if (xnn_ok && !(native_ok && prefers_native(n, opts))) n->exec = XG_EXEC_XNN;
    else if (native_ok) n->exec = XG_EXEC_NATIVE;
    else
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                           "these parameters are supported neither by Debian's 2022 XNNPACK nor by pterun");
    if (n->exec == XG_EXEC_NATIVE &&
        (st = n->type == XG_CONV2D ? xg_native_prepare_conv(g, ni, mem) : xg_native_prepare_fc(g, ni, mem)))
      return st;
  }
  /* Dead nodes: every output unused and not a delegate output. They are
   * dropped, which also keeps them from 2022 XNNPACK, whose optimizer clears
   * an unconsumed internal value but still creates its producer (an assert
   * in Debian's build). A worklist, so hostile orders cost linear time. */
  uint32_t *work = (uint32_t *)xg_mem_array(mem, (size_t)g->nnodes + 1, sizeof(uint32_t));
  if (!work) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
  uint32_t top = 0;
  for (uint32_t ni = 0; ni < g->nnodes; ni++)
    if (node_is_dead(g, &g->nodes[ni])) g->nodes[ni].exec = XG_EXEC_DEAD, work[top++] = ni;
  while (top) {
    const xg_node *n = &g->nodes[work[--top]];
    for (uint32_t k = 0; k < n->nin; k++) {
      if (n->in[k] == XG_NONE) continue;
      xg_value *v = &g->values[n->in[k]];
      if (--v->uses == 0 && v->producer >= 0) {
        xg_node *p = &g->nodes[v->producer];
        if (p->exec != XG_EXEC_DEAD && node_is_dead(g, p))
          p->exec = XG_EXEC_DEAD, work[top++] = (uint32_t)v->producer;
      }
    }
  }
  if ((st = xg_fuse_quant_pads(g, mem))) return st;
  if ((st = xg_fuse_quant_producers(g, mem))) return st;
  if ((st = xg_fuse_quant_tables(g, mem))) return st;
  if ((st = xg_fuse_softmax_prologue(g))) return st;
  if ((st = xg_fold_pads(g, mem))) return st;
  if ((st = xg_fuse_conv_chains(g, mem))) return st;
  if ((st = converts_between_native(g, mem))) return st;
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    const xg_value *v = &g->values[vi];
    if ((v->flags & XG_FLAG_EXTERNAL_INPUT) && (v->flags & XG_FLAG_EXTERNAL_OUTPUT))
      return pte_error(PTE_ERR_NOT_SUPPORTED, "XNNPACK payload: value %u is both a delegate input and output",
                       vi);
    if ((v->flags & XG_FLAG_EXTERNAL_OUTPUT) && v->producer < 0)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: delegate output value %u is written by no node", vi);
    if (v->uses && v->producer < 0 && !v->has_data && !(v->flags & XG_FLAG_EXTERNAL_INPUT))
      return pte_error(
          PTE_ERR_INVALID_PROGRAM,
          "XNNPACK payload: value %u is read but is neither an input, a constant nor written by a node", vi);
  }
  return PTE_OK;
}
