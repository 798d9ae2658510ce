/* The node table: per XNNPACK node type its parameters, checks, XNNPACK
 * definition, native entry point and batch rule (rows in xnn_nodes.def; the
 * functions they name are here, native compute in xnn_native.c).
 *
 * Checks: Debian's 2022 XNNPACK trusts the shapes it is given (it sizes
 * buffers from a value's declared dims while operators compute outputs from
 * the input dims), so every check infers the output shape and requires the
 * serialized one to equal it, and range-checks every parameter. */
#include "xnn_nodes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xnn_compute.h"

/* ---- check helpers ---- */

static const char *shape_str(const size_t *d, uint32_t n, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (uint32_t i = 0; i < n && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, i ? ", %zu" : "%zu", d[i]);
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

/* An internal value whose declared dims are stale takes the ones its
 * producer's inputs give, as XNNPACK's own shape propagation does: the
 * exporter leaves, say, a dynamic quantization's output in the NCHW dims of
 * the tensor it converts while the data it receives is NHWC. Only before
 * any node has read it (its readers are checked against the new dims), and
 * not for a delegate output or a per-channel quantized value (its scales
 * follow the declared channel dim). */
static bool adopt_dims(xg_value *o, uint32_t nd, const size_t *dims) {
  if (o->flags || o->has_data || o->uses || o->ndims != nd) return false;
  if (o->value_type == XG_VALUE_QUANTIZED && o->quant_type != XG_QP_PER_TENSOR &&
      o->quant_type != XG_QP_PER_TOKEN_DYNAMIC)
    return false;
  size_t numel = 1;
  for (uint32_t i = 0; i < nd; i++) numel *= dims[i];
  if (numel != o->numel || !o->esize) return false;
  memcpy(o->dims, dims, nd * sizeof *dims);
  return true;
}

/* Output `k` of node `ni` must have exactly these dims. */
static pte_status expect_out(xg_graph *g, uint32_t ni, uint32_t k, uint32_t nd, const size_t *dims) {
  xg_value *o = &g->values[g->nodes[ni].out[k]];
  bool same = o->ndims == nd;
  for (uint32_t i = 0; same && i < nd; i++) same = o->dims[i] == dims[i];
  if (same || adopt_dims(o, nd, dims)) return PTE_OK;
  char a[128], b[128];
  return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output value %u has shape %s, but the inputs give %s",
                       g->nodes[ni].out[k], shape_str(o->dims, o->ndims, a, sizeof a),
                       shape_str(dims, nd, b, sizeof b));
}

static const xg_value *in_value(const xg_graph *g, const xg_node *n, uint32_t k) {
  return n->in[k] == XG_NONE ? NULL : &g->values[n->in[k]];
}

/* A bias or other 1-D parameter of `n` entries (any leading 1s allowed). */
static bool is_vector_of(const xg_value *v, size_t n) {
  if (!v || v->numel != n || v->ndims == 0) return false;
  return v->dims[v->ndims - 1] == n;
}

/* Bounds must be ordered; XNNPACK needs them strictly ordered. */
static pte_status check_bounds(const xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  if (isnan(n->out_min) || isnan(n->out_max) || n->out_min > n->out_max)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output bounds [%g, %g] are invalid",
                         (double)n->out_min, (double)n->out_max);
  if (!(n->out_min < n->out_max)) *xnn_ok = false;
  return PTE_OK;
}

/* numpy broadcasting of two shapes, right-aligned. */
static bool broadcast(const xg_value *a, const xg_value *b, uint32_t *nd, size_t *dims) {
  uint32_t r = a->ndims > b->ndims ? a->ndims : b->ndims;
  for (uint32_t i = 0; i < r; i++) {
    int ia = (int)a->ndims - (int)r + (int)i, ib = (int)b->ndims - (int)r + (int)i;
    size_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
    if (da != db && da != 1 && db != 1) return false;
    dims[i] = da == 1 ? db : da;
  }
  *nd = r;
  return true;
}

/* Spatial output size of a convolution or pooling window; false if the
 * window does not fit. */
static bool window_out(uint64_t in, uint64_t pad0, uint64_t pad1, uint64_t k, uint64_t dil, uint64_t stride,
                       size_t *out) {
  if (k == 0 || dil == 0 || stride == 0) return false;
  uint64_t eff = (k - 1) * dil + 1;
  uint64_t padded = in + pad0 + pad1;
  if (padded < eff) return false;
  *out = (size_t)((padded - eff) / stride + 1);
  return *out <= XG_MAX_TENSOR_BYTES;
}

/* ---- parameters ---- */

static void read_u32s(const xg_fb_node *r, int first, uint32_t count, uint32_t *out) {
  for (uint32_t i = 0; i < count; i++) out[i] = xg_fb_u32(r, first + (int)i);
}

/* xg_conv_params and xg_pool_params list the table's leading fields in order. */
_Static_assert(sizeof(xg_conv_params) == 15 * sizeof(uint32_t) && CONV_ADJ_W - CONV_PAD_TOP == 14,
               "xg_conv_params follows _XNNNodeConv");
_Static_assert(sizeof(xg_pool_params) == 10 * sizeof(uint32_t) && POOL_DIL_W - POOL_PAD_TOP == 9,
               "xg_pool_params follows _XNNPooling2D");

static pte_status params_conv(const xg_fb_node *r, xg_node *n) {
  uint32_t v[15];
  read_u32s(r, CONV_PAD_TOP, 15, v);
  memcpy(&n->p.conv, v, sizeof v);
  return PTE_OK;
}

static pte_status params_pool(const xg_fb_node *r, xg_node *n) {
  uint32_t v[10];
  read_u32s(r, POOL_PAD_TOP, 10, v);
  memcpy(&n->p.pool, v, sizeof v);
  return PTE_OK;
}

static pte_status params_argmax(const xg_fb_node *r, xg_node *n) {
  uint32_t v[6];
  read_u32s(r, AMP_PAD_TOP, 6, v);
  xg_pool_params *p = &n->p.pool;
  p->pad_top = v[0], p->pad_right = v[1], p->pad_bottom = v[2], p->pad_left = v[3];
  p->pool_h = v[4], p->pool_w = v[5];
  /* XNNPACK's argmax pooling has no stride: windows do not overlap. */
  p->stride_h = p->pool_h;
  p->stride_w = p->pool_w;
  p->dil_h = p->dil_w = 1;
  return PTE_OK;
}

static pte_status params_transpose(const xg_fb_node *r, xg_node *n) {
  uint32_t nd = xg_fb_u32(r, TR_NUM_DIMS);
  uint32_t perm = pte_fb_ref(r->fb, r->table, TR_PERM);
  uint32_t len = pte_fb_vec_len(r->fb, perm);
  if (len > XG_MAX_DIMS || (nd && nd != len))
    return xg_node_error(r->g, r->node, PTE_ERR_INVALID_PROGRAM, "perm has %u entries (num_dims %u)", len,
                         nd);
  n->p.transpose.ndims = len;
  for (uint32_t i = 0; i < len; i++)
    n->p.transpose.perm[i] = pte_fb_u32(pte_fb_vec_data(r->fb, perm) + 4ull * i);
  return PTE_OK;
}

static pte_status params_resize(const xg_fb_node *r, xg_node *n) {
  n->p.resize.new_h = xg_fb_u32(r, RS_NEW_H);
  n->p.resize.new_w = xg_fb_u32(r, RS_NEW_W);
  return PTE_OK;
}

/* A dims vector whose length the first one (`slot`) decides. */
static pte_status read_dims(const xg_fb_node *r, int slot, const char *what, uint32_t *nd, size_t *out) {
  *nd = pte_fb_vec_len(r->fb, pte_fb_ref(r->fb, r->table, slot));
  if (*nd > XG_MAX_DIMS)
    return xg_node_error(r->g, r->node, PTE_ERR_INVALID_PROGRAM, "%s has %u entries", what, *nd);
  return xg_fb_dims(r, slot, what, *nd, out);
}

static pte_status params_pad(const xg_fb_node *r, xg_node *n) {
  pte_status st = read_dims(r, PAD_PRE, "pre_paddings", &n->p.pad.ndims, n->p.pad.pre);
  if (!st) st = xg_fb_dims(r, PAD_POST, "post_paddings", n->p.pad.ndims, n->p.pad.post);
  n->p.pad.value = xg_fb_f32(r, PAD_VALUE);
  return st;
}

static pte_status params_reshape(const xg_fb_node *r, xg_node *n) {
  return read_dims(r, RE_NEW_SHAPE, "new_shape", &n->p.reshape.ndims, n->p.reshape.shape);
}

static pte_status params_slice(const xg_fb_node *r, xg_node *n) {
  pte_status st = read_dims(r, SL_OFFSETS, "offsets", &n->p.slice.ndims, n->p.slice.offsets);
  return st ? st : xg_fb_dims(r, SL_SIZES, "sizes", n->p.slice.ndims, n->p.slice.sizes);
}

static pte_status params_cat(const xg_fb_node *r, xg_node *n) {
  n->p.cat.axis = xg_fb_u32(r, CAT_AXIS);
  return PTE_OK;
}

static pte_status params_leaky_relu(const xg_fb_node *r, xg_node *n) {
  n->p.act.alpha = xg_fb_f32(r, LRELU_SLOPE);
  return PTE_OK;
}

static pte_status params_elu(const xg_fb_node *r, xg_node *n) {
  n->p.act.alpha = xg_fb_f32(r, ELU_ALPHA);
  return PTE_OK;
}

/* ---- checks ---- */

static pte_status check_same_shape(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_value *x = in_value(g, &g->nodes[ni], 0);
  return expect_out(g, ni, 0, x->ndims, x->dims);
}

static pte_status check_binary(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  uint32_t nd;
  size_t dims[XG_MAX_DIMS];
  if (!broadcast(in_value(g, n, 0), in_value(g, n, 1), &nd, dims))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input shapes do not broadcast");
  pte_status st = check_bounds(g, ni, xnn_ok);
  if (st) return st;
  if (in_value(g, n, 0)->has_data && in_value(g, n, 1)->has_data) *xnn_ok = false;
  return expect_out(g, ni, 0, nd, dims);
}

static pte_status check_min_max(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  /* ExecuTorch defines these without output bounds: ignore any. */
  g->nodes[ni].out_min = -INFINITY;
  g->nodes[ni].out_max = INFINITY;
  return check_binary(g, ni, xnn_ok);
}

static pte_status check_prelu(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0), *s = in_value(g, n, 1);
  uint32_t nd;
  size_t dims[XG_MAX_DIMS];
  if (!broadcast(x, s, &nd, dims) || nd != x->ndims)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "slope does not broadcast to the input");
  /* 2022 XNNPACK: a constant slope with one value per channel (last dim). */
  if (!s->has_data || x->ndims == 0 || !is_vector_of(s, x->dims[x->ndims - 1])) *xnn_ok = false;
  return expect_out(g, ni, 0, x->ndims, x->dims);
}

static pte_status check_softmax(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  if (in_value(g, &g->nodes[ni], 0)->ndims == 0)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "softmax needs at least one dimension");
  return check_same_shape(g, ni, xnn_ok);
}

static pte_status check_clamp(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  pte_status st = check_bounds(g, ni, xnn_ok);
  return st ? st : check_same_shape(g, ni, xnn_ok);
}

static pte_status check_alpha(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  if (!isfinite(n->p.act.alpha))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "parameter %g is not finite",
                         (double)n->p.act.alpha);
  return check_same_shape(g, ni, xnn_ok);
}

static pte_status check_fc(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0), *w = in_value(g, n, 1), *b = in_value(g, n, 2);
  if (x->ndims < 1 || w->ndims != 2)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input rank %u and filter rank %u are invalid",
                         x->ndims, w->ndims);
  size_t k = x->dims[x->ndims - 1];
  size_t fk = (n->flags & 1) ? w->dims[0] : w->dims[1];
  size_t nout = (n->flags & 1) ? w->dims[1] : w->dims[0];
  if (fk != k)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input has %zu features, the filter expects %zu", k,
                         fk);
  if (b && !is_vector_of(b, nout))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "bias (value %u) has %zu elements, expected %zu",
                         n->in[2], b->numel, nout);
  pte_status st = check_bounds(g, ni, xnn_ok);
  if (st) return st;
  if (!w->has_data || (b && !b->has_data)) *xnn_ok = false; /* 2022: constant weights only */
  size_t od[XG_MAX_DIMS];
  memcpy(od, x->dims, sizeof od);
  od[x->ndims - 1] = nout;
  return expect_out(g, ni, 0, x->ndims, od);
}

/* Output size of a convolution (windows) or a transposed one. */
static pte_status conv_out_size(const xg_graph *g, uint32_t ni, uint64_t H, uint64_t W, size_t *od) {
  const xg_node *n = &g->nodes[ni];
  const xg_conv_params *c = &n->p.conv;
  if (n->type == XG_CONV_TRANSPOSE2D) {
    /* out = stride * (in - 1) + adjustment + dilated kernel - padding */
    int64_t oh = (int64_t)c->sub_h * (int64_t)(H - 1) + c->adj_h + ((int64_t)c->kernel_h - 1) * c->dil_h + 1 -
                 (int64_t)c->pad_top - (int64_t)c->pad_bottom;
    int64_t ow = (int64_t)c->sub_w * (int64_t)(W - 1) + c->adj_w + ((int64_t)c->kernel_w - 1) * c->dil_w + 1 -
                 (int64_t)c->pad_left - (int64_t)c->pad_right;
    if (oh < 1 || ow < 1 || (uint64_t)oh > XG_MAX_TENSOR_BYTES || (uint64_t)ow > XG_MAX_TENSOR_BYTES)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output size %lldx%lld is invalid", (long long)oh,
                           (long long)ow);
    od[1] = (size_t)oh, od[2] = (size_t)ow;
    return PTE_OK;
  }
  if (c->adj_h || c->adj_w)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                         "adjustment is only valid for transposed convolution");
  if (!window_out(H, c->pad_top, c->pad_bottom, c->kernel_h, c->dil_h, c->sub_h, &od[1]) ||
      !window_out(W, c->pad_left, c->pad_right, c->kernel_w, c->dil_w, c->sub_w, &od[2]))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "the %ux%u kernel does not fit the %llux%llu input",
                         c->kernel_h, c->kernel_w, (unsigned long long)H, (unsigned long long)W);
  return PTE_OK;
}

static pte_status check_conv(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  const xg_conv_params *c = &n->p.conv;
  const xg_value *x = in_value(g, n, 0), *w = in_value(g, n, 1), *b = in_value(g, n, 2);
  if (!w->has_data)
    return xg_node_error(
        g, ni, PTE_ERR_NOT_SUPPORTED,
        "the filter (value %u) is not a constant; XNNPACK needs constant convolution weights", n->in[1]);
  if (b && !b->has_data)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "the bias (value %u) is not a constant", n->in[2]);
  if (c->kernel_h == 0 || c->kernel_w == 0 || c->sub_h == 0 || c->sub_w == 0 || c->dil_h == 0 ||
      c->dil_w == 0 || c->groups == 0 || c->group_in == 0 || c->group_out == 0)
    return xg_node_error(
        g, ni, PTE_ERR_INVALID_PROGRAM,
        "kernel %ux%u, stride %ux%u, dilation %ux%u, groups %u x (%u in, %u out) must all be positive",
        c->kernel_h, c->kernel_w, c->sub_h, c->sub_w, c->dil_h, c->dil_w, c->groups, c->group_in,
        c->group_out);
  const uint64_t C = x->dims[3];
  uint64_t cin, cout;
  size_t wdims[4];
  if (n->type == XG_DEPTHWISE_CONV2D) {
    /* ExecuTorch: depth_multiplier = group_out / group_in, input channels = groups. */
    if (c->group_out % c->group_in)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                           "group_output_channels %u is not a multiple of group_input_channels %u",
                           c->group_out, c->group_in);
    cin = c->groups;
    cout = (uint64_t)c->groups * (c->group_out / c->group_in);
    wdims[0] = 1, wdims[1] = c->kernel_h, wdims[2] = c->kernel_w, wdims[3] = (size_t)cout;
  } else {
    cin = (uint64_t)c->groups * c->group_in;
    cout = (uint64_t)c->groups * c->group_out;
    wdims[0] = (size_t)cout, wdims[1] = c->kernel_h, wdims[2] = c->kernel_w, wdims[3] = c->group_in;
  }
  if (cin != C)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input has %llu channels, the parameters need %llu",
                         (unsigned long long)C, (unsigned long long)cin);
  bool wok = w->ndims == 4;
  for (int i = 0; wok && i < 4; i++) wok = w->dims[i] == wdims[i];
  if (!wok) {
    char a[128], e[128];
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "filter (value %u) has shape %s, expected %s",
                         n->in[1], shape_str(w->dims, w->ndims, a, sizeof a),
                         shape_str(wdims, 4, e, sizeof e));
  }
  if (b && !is_vector_of(b, (size_t)cout))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "bias (value %u) has %zu elements, expected %llu",
                         n->in[2], b->numel, (unsigned long long)cout);
  size_t od[4] = {x->dims[0], 0, 0, (size_t)cout};
  pte_status st = conv_out_size(g, ni, x->dims[1], x->dims[2], od);
  if (!st) st = expect_out(g, ni, 0, 4, od);
  return st ? st : check_bounds(g, ni, xnn_ok);
}

static pte_status check_pool(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  const xg_pool_params *p = &n->p.pool;
  pte_status st;
  const xg_value *x = in_value(g, n, 0);
  uint32_t dh = n->type == XG_MAX_POOL ? p->dil_h : 1, dw = n->type == XG_MAX_POOL ? p->dil_w : 1;
  if (n->type == XG_MAX_POOL && (dh == 0 || dw == 0))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "dilation %ux%u must be positive", dh, dw);
  size_t od[4] = {x->dims[0], 0, 0, x->dims[3]};
  if (!window_out(x->dims[1], p->pad_top, p->pad_bottom, p->pool_h, dh, p->stride_h, &od[1]) ||
      !window_out(x->dims[2], p->pad_left, p->pad_right, p->pool_w, dw, p->stride_w, &od[2]))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                         "pooling %ux%u (stride %ux%u) does not fit the %zux%zu input", p->pool_h, p->pool_w,
                         p->stride_h, p->stride_w, x->dims[1], x->dims[2]);
  /* Padding must leave every window at least one real element. */
  if (p->pad_top >= p->pool_h * (uint64_t)dh || p->pad_bottom >= p->pool_h * (uint64_t)dh ||
      p->pad_left >= p->pool_w * (uint64_t)dw || p->pad_right >= p->pool_w * (uint64_t)dw)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "padding is as large as the pooling window");
  if ((st = check_bounds(g, ni, xnn_ok))) return st;
  /* XNNPACK refuses 1x1 pooling ("meaningless"); pterun runs it. */
  if ((uint64_t)p->pool_h * p->pool_w <= 1) *xnn_ok = false;
  /* Every output (argmax: values and indices) has the pooled shape. */
  for (uint32_t k = 0; k < n->nout; k++)
    if ((st = expect_out(g, ni, k, 4, od))) return st;
  return PTE_OK;
}

static pte_status check_global_avg_pool(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  pte_status st = check_bounds(g, ni, xnn_ok);
  if (st) return st;
  const xg_value *x = in_value(g, n, 0), *o = &g->values[n->out[0]];
  size_t od[4] = {x->dims[0], 1, 1, x->dims[3]};
  if (o->ndims == 2) return expect_out(g, ni, 0, 2, (size_t[]){x->dims[0], x->dims[3]});
  return expect_out(g, ni, 0, 4, od);
}

static pte_status check_resize(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_node *n = &g->nodes[ni];
  if ((n->flags & 0xc) == 0xc)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "align-corners and legacy mode exclude each other");
  const xg_value *x = in_value(g, n, 0);
  if (n->p.resize.new_h == 0 || n->p.resize.new_w == 0)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output size %ux%u is invalid", n->p.resize.new_h,
                         n->p.resize.new_w);
  size_t od[4] = {x->dims[0], n->p.resize.new_h, n->p.resize.new_w, x->dims[3]};
  return expect_out(g, ni, 0, 4, od);
}

static pte_status check_pad(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0);
  if (n->p.pad.ndims != x->ndims)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "%u paddings for a rank-%u input", n->p.pad.ndims,
                         x->ndims);
  if (isnan(n->p.pad.value)) return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "padding value is NaN");
  size_t od[XG_MAX_DIMS];
  for (uint32_t i = 0; i < x->ndims; i++) {
    uint64_t d = (uint64_t)x->dims[i] + n->p.pad.pre[i] + n->p.pad.post[i];
    if (d > XG_MAX_TENSOR_BYTES)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "padded dimension %u is too large", i);
    od[i] = (size_t)d;
  }
  return expect_out(g, ni, 0, x->ndims, od);
}

static pte_status check_reshape(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0), *o = &g->values[n->out[0]];
  if (x->numel != o->numel)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "reshapes %zu elements into %zu", x->numel,
                         o->numel);
  /* new_shape may carry one 0 (inferred); where it names a size, it must agree. */
  if (n->p.reshape.ndims == o->ndims)
    for (uint32_t i = 0; i < o->ndims; i++)
      if (n->p.reshape.shape[i] && n->p.reshape.shape[i] != o->dims[i])
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "new_shape[%u] = %zu but the output has %zu", i,
                             n->p.reshape.shape[i], o->dims[i]);
  return PTE_OK;
}

static pte_status check_transpose(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0);
  if (n->p.transpose.ndims != x->ndims)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "perm has %u entries for a rank-%u input",
                         n->p.transpose.ndims, x->ndims);
  bool seen[XG_MAX_DIMS] = {false};
  size_t od[XG_MAX_DIMS];
  for (uint32_t i = 0; i < x->ndims; i++) {
    uint32_t p = n->p.transpose.perm[i];
    if (p >= x->ndims || seen[p])
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "perm is not a permutation of 0..%u",
                           x->ndims - 1);
    seen[p] = true;
    od[i] = x->dims[p];
  }
  /* A permutation that keeps the dims larger than 1 in order moves no byte
   * (e.g. [N,1,1,C] -> [N,C,1,1] before a classifier): a copy, which XNNPACK
   * can run as a reshape inside a runtime. Any other is pterun's. */
  uint32_t last = 0;
  bool ordered = true;
  for (uint32_t i = 0; i < x->ndims; i++) {
    uint32_t p = n->p.transpose.perm[i];
    if (x->dims[p] == 1) continue;
    if (p < last) ordered = false;
    last = p;
  }
  n->copy_like = ordered;
  if (!ordered) *xnn_ok = false;
  return expect_out(g, ni, 0, x->ndims, od);
}

static pte_status check_slice(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0);
  if (n->p.slice.ndims != x->ndims)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "%u offsets for a rank-%u input", n->p.slice.ndims,
                         x->ndims);
  size_t od[XG_MAX_DIMS];
  for (uint32_t i = 0; i < x->ndims; i++) {
    size_t off = n->p.slice.offsets[i];
    if (off >= x->dims[i])
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "offset %zu is outside dimension %u of size %zu",
                           off, i, x->dims[i]);
    /* A size of 0 means "to the end", as in XNNPACK's static slice. */
    size_t sz = n->p.slice.sizes[i] ? n->p.slice.sizes[i] : x->dims[i] - off;
    if (sz > x->dims[i] - off)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                           "slice [%zu, %zu) exceeds dimension %u of size %zu", off, off + sz, i, x->dims[i]);
    n->p.slice.sizes[i] = sz;
    od[i] = sz;
  }
  return expect_out(g, ni, 0, x->ndims, od);
}

static pte_status check_concat(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_node *n = &g->nodes[ni];
  const xg_value *x = in_value(g, n, 0);
  uint32_t axis = n->p.cat.axis;
  if (axis >= x->ndims)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "axis %u is outside rank %u", axis, x->ndims);
  size_t od[XG_MAX_DIMS];
  memcpy(od, x->dims, sizeof od);
  od[axis] = 0;
  for (uint32_t k = 0; k < n->nin; k++) {
    const xg_value *v = in_value(g, n, k);
    bool ok = v->ndims == x->ndims;
    for (uint32_t i = 0; ok && i < x->ndims; i++) ok = i == axis || v->dims[i] == x->dims[i];
    if (!ok)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input %u does not match input 0 outside axis %u",
                           k, axis);
    od[axis] += v->dims[axis];
  }
  return expect_out(g, ni, 0, x->ndims, od);
}

static pte_status check_bmm(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  const xg_node *n = &g->nodes[ni];
  const xg_value *a = in_value(g, n, 0), *b = in_value(g, n, 1);
  if (a->ndims < 2 || b->ndims < 2)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "inputs need at least 2 dimensions");
  size_t m = a->dims[a->ndims - 2], k = a->dims[a->ndims - 1];
  size_t bk = (n->flags & 1) ? b->dims[b->ndims - 1] : b->dims[b->ndims - 2];
  size_t nn = (n->flags & 1) ? b->dims[b->ndims - 2] : b->dims[b->ndims - 1];
  if (bk != k)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "inner dimensions %zu and %zu differ", k, bk);
  /* Batch dimensions broadcast. */
  xg_value ba = *a, bb = *b;
  ba.ndims -= 2, bb.ndims -= 2;
  uint32_t nd;
  size_t od[XG_MAX_DIMS];
  if (!broadcast(&ba, &bb, &nd, od))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "batch dimensions do not broadcast");
  od[nd] = m, od[nd + 1] = nn;
  return expect_out(g, ni, 0, nd + 2, od);
}

static pte_status check_sdpa(xg_graph *g, uint32_t ni, bool *xnn_ok) {
  (void)xnn_ok;
  return xg_node_error(
      g, ni, PTE_ERR_NOT_SUPPORTED,
      "scaled dot-product attention is not supported (ExecuTorch's own runtime refuses it too)");
}

/* ---- XNNPACK definitions (2022 subgraph API) ---- */

#define DEFINE(name)                                                                           \
  static enum xnn_status define_##name(const xnn_api *a, xnn_subgraph_t sg, const xg_graph *g, \
                                       const xg_node *n, const uint32_t *in, const uint32_t *out)
#define UNUSED_DEFINE_ARGS (void)g, (void)n

#define DEFINE_BINARY_BOUNDED(name, fn)                                \
  DEFINE(name) {                                                       \
    (void)g;                                                           \
    return a->fn(sg, n->out_min, n->out_max, in[0], in[1], out[0], 0); \
  }
#define DEFINE_BINARY(name, fn)                \
  DEFINE(name) {                               \
    UNUSED_DEFINE_ARGS;                        \
    return a->fn(sg, in[0], in[1], out[0], 0); \
  }
#define DEFINE_UNARY(name, fn)          \
  DEFINE(name) {                        \
    UNUSED_DEFINE_ARGS;                 \
    return a->fn(sg, in[0], out[0], 0); \
  }

DEFINE_BINARY_BOUNDED(add, xnn_define_add2)
DEFINE_BINARY_BOUNDED(subtract, xnn_define_subtract)
DEFINE_BINARY_BOUNDED(multiply, xnn_define_multiply2)
DEFINE_BINARY_BOUNDED(divide, xnn_define_divide)
DEFINE_BINARY(minimum, xnn_define_minimum2)
DEFINE_BINARY(maximum, xnn_define_maximum2)
DEFINE_BINARY(prelu, xnn_define_prelu)
DEFINE_UNARY(softmax, xnn_define_softmax)
DEFINE_UNARY(sigmoid, xnn_define_sigmoid)
DEFINE_UNARY(floor, xnn_define_floor)
DEFINE_UNARY(ceiling, xnn_define_ceiling)
DEFINE_UNARY(square_root, xnn_define_square_root)
DEFINE_UNARY(square, xnn_define_square)
DEFINE_UNARY(hardswish, xnn_define_hardswish)
DEFINE_UNARY(negate, xnn_define_negate)
DEFINE_UNARY(abs, xnn_define_abs)

DEFINE(clamp) {
  (void)g;
  return a->xnn_define_clamp(sg, n->out_min, n->out_max, in[0], out[0], 0);
}

DEFINE(leaky_relu) {
  (void)g;
  return a->xnn_define_leaky_relu(sg, n->p.act.alpha, in[0], out[0], 0);
}

DEFINE(elu) {
  (void)g;
  return a->xnn_define_elu(sg, n->p.act.alpha, in[0], out[0], 0);
}

/* Per-channel int8 filter: 2022 XNNPACK runs it as a 1x1 convolution over
 * [1, 1, M, K] (its filter value is defined [N, 1, 1, K], xnn_delegate.c),
 * with reshapes on both sides. */
static enum xnn_status define_fc_as_conv(const xnn_api *a, xnn_subgraph_t sg, const xg_graph *g,
                                         const xg_node *n, const uint32_t *in, const uint32_t *out) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  const size_t k = x->dims[x->ndims - 1], nout = o->dims[o->ndims - 1], m = x->numel / k;
  const size_t xd[4] = {1, 1, m, k}, od[4] = {1, 1, m, nout};
  uint32_t xi, oi;
  enum xnn_status st = a->xnn_define_quantized_tensor_value(sg, xnn_datatype_qint8, x->zero_point, x->scale,
                                                            4, xd, NULL, XNN_INVALID_VALUE_ID, 0, &xi);
  if (st == xnn_status_success)
    st = a->xnn_define_quantized_tensor_value(sg, xnn_datatype_qint8, o->zero_point, o->scale, 4, od, NULL,
                                              XNN_INVALID_VALUE_ID, 0, &oi);
  if (st == xnn_status_success) st = a->xnn_define_static_reshape(sg, 4, xd, in[0], xi, 0);
  if (st == xnn_status_success)
    st = a->xnn_define_convolution_2d(sg, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, k, nout, n->out_min, n->out_max,
                                      xi, in[1], in[2], oi, 0);
  if (st == xnn_status_success) st = a->xnn_define_static_reshape(sg, o->ndims, o->dims, oi, out[0], 0);
  return st;
}

DEFINE(fc) {
  if (g->values[n->in[1]].conv_filter) return define_fc_as_conv(a, sg, g, n, in, out);
  return a->xnn_define_fully_connected(sg, n->out_min, n->out_max, in[0], in[1], in[2], out[0],
                                       n->flags & XNN_FLAG_TRANSPOSE_WEIGHTS);
}

DEFINE(conv) {
  (void)g;
  const xg_conv_params *c = &n->p.conv;
  return a->xnn_define_convolution_2d(sg, c->pad_top, c->pad_right, c->pad_bottom, c->pad_left, c->kernel_h,
                                      c->kernel_w, c->sub_h, c->sub_w, c->dil_h, c->dil_w, c->groups,
                                      c->group_in, c->group_out, n->out_min, n->out_max, in[0], in[1], in[2],
                                      out[0], 0);
}

DEFINE(depthwise_conv) {
  (void)g;
  const xg_conv_params *c = &n->p.conv;
  return a->xnn_define_depthwise_convolution_2d(sg, c->pad_top, c->pad_right, c->pad_bottom, c->pad_left,
                                                c->kernel_h, c->kernel_w, c->sub_h, c->sub_w, c->dil_h,
                                                c->dil_w, c->group_out / c->group_in, c->groups, n->out_min,
                                                n->out_max, in[0], in[1], in[2], out[0], 0);
}

DEFINE(deconv) {
  (void)g;
  const xg_conv_params *c = &n->p.conv;
  return a->xnn_define_deconvolution_2d(sg, c->pad_top, c->pad_right, c->pad_bottom, c->pad_left, c->adj_h,
                                        c->adj_w, c->kernel_h, c->kernel_w, c->sub_h, c->sub_w, c->dil_h,
                                        c->dil_w, c->groups, c->group_in, c->group_out, n->out_min,
                                        n->out_max, in[0], in[1], in[2], out[0], 0);
}

DEFINE(resize_bilinear) {
  (void)g;
  return a->xnn_define_static_resize_bilinear_2d(sg, n->p.resize.new_h, n->p.resize.new_w, in[0], out[0],
                                                 n->flags);
}

DEFINE(constant_pad) {
  (void)g;
  return a->xnn_define_static_constant_pad(sg, n->p.pad.pre, n->p.pad.post, n->p.pad.value, in[0], out[0], 0);
}

DEFINE(avg_pool) {
  (void)g;
  const xg_pool_params *p = &n->p.pool;
  return a->xnn_define_average_pooling_2d(sg, p->pad_top, p->pad_right, p->pad_bottom, p->pad_left, p->pool_h,
                                          p->pool_w, p->stride_h, p->stride_w, n->out_min, n->out_max, in[0],
                                          out[0], 0);
}

DEFINE(max_pool) {
  (void)g;
  const xg_pool_params *p = &n->p.pool;
  return a->xnn_define_max_pooling_2d(sg, p->pad_top, p->pad_right, p->pad_bottom, p->pad_left, p->pool_h,
                                      p->pool_w, p->stride_h, p->stride_w, p->dil_h, p->dil_w, n->out_min,
                                      n->out_max, in[0], out[0], 0);
}

DEFINE(global_avg_pool) {
  (void)g;
  return a->xnn_define_global_average_pooling_2d(sg, n->out_min, n->out_max, in[0], out[0], 0);
}

/* Nodes that only copy bytes (reshape, copy, convert, a transpose of size-1
 * dims): the 2022 reshape copies every element, the output value has the
 * shape. */
DEFINE(copy) {
  const xg_value *o = &g->values[n->out[0]];
  return a->xnn_define_static_reshape(sg, o->ndims, o->dims, in[0], out[0], 0);
}

/* fp32 to fp32 is a copy; fp32 <-> qint8 is XNNPACK's convert. */
DEFINE(convert) {
  if (!n->quant) return define_copy(a, sg, g, n, in, out);
  return a->xnn_define_convert(sg, in[0], out[0], 0);
}

/* ---- row rules (see xnn_plan.c) ----
 * Whether the node keeps the leading r >= 1 dims as independent rows, given
 * which inputs carry them. Fully connected, softmax and elementwise nodes
 * treat every dim but the last as rows, bmm every dim but the last two;
 * layout nodes must leave the prefix alone; NHWC convolutions and pooling
 * mix H and W, so they keep dimension 0 only. For r >= 2 the caller checks
 * that every output carries the whole prefix. */

/* An operand without rows: it spans no prefix dim (right-aligned dims that
 * fall in the prefix are 1). */
static bool rowless_operand(const xg_value *v, uint32_t out_rank, uint32_t r) {
  for (uint32_t i = 0; i < v->ndims; i++)
    if (out_rank - v->ndims + i < r && v->dims[i] != 1) return false;
  return v->ndims <= out_rank;
}

static bool batch_binary(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  const xg_value *o = &g->values[n->out[0]];
  for (uint32_t k = 0; k < 2; k++) {
    const xg_value *v = &g->values[n->in[k]];
    if (batched[n->in[k]] ? v->ndims != o->ndims : !rowless_operand(v, o->ndims, r)) return false;
  }
  return true;
}

static bool batch_bmm(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  return g->values[n->out[0]].ndims >= r + 2 && batch_binary(g, n, batched, r);
}

/* Pooling, resizing: H and W mix, so dimension 0 only. */
static bool batch_first_input(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)g;
  return r == 1 && batched[n->in[0]];
}

static bool batch_unary(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)r;
  return batched[n->in[0]] && g->values[n->in[0]].ndims >= 1;
}

static bool batch_softmax(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  const xg_value *x = &g->values[n->in[0]];
  if (n->nin == 2 && (batched[n->in[1]] || !rowless_operand(&g->values[n->in[1]], x->ndims, r)))
    return false;    /* a fused scale (xg_fuse_softmax_prologue) */
  if (n->nin == 3) { /* a fused prologue (xg_fuse_softmax_prologue): the scale and the mask as an add's */
    const xg_value *s = &g->values[n->in[1]], *m = &g->values[n->in[2]];
    if (batched[n->in[1]] || !rowless_operand(s, x->ndims, r) ||
        (batched[n->in[2]] ? m->ndims != x->ndims : !rowless_operand(m, x->ndims, r)))
      return false;
  }
  return x->ndims > r && batched[n->in[0]];
}

/* Weights and bias must not carry the rows. */
static bool weights_rowless(const xg_node *n, const uint8_t *batched) {
  return batched[n->in[0]] && !batched[n->in[1]] && (n->in[2] == XG_NONE || !batched[n->in[2]]);
}

static bool batch_conv(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)g;
  return r == 1 && weights_rowless(n, batched);
}

static bool batch_fc(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  return g->values[n->in[0]].ndims > r && weights_rowless(n, batched);
}

static bool batch_pad(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)g;
  for (uint32_t i = 0; i < r; i++)
    if (n->p.pad.pre[i] || n->p.pad.post[i]) return false;
  return batched[n->in[0]];
}

/* A reshape whose output keeps the prefix (the caller checks it) keeps the
 * rows: both are row-major. */
static bool batch_reshape(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  const xg_value *x = &g->values[n->in[0]], *o = &g->values[n->out[0]];
  if (r >= 2) return batched[n->in[0]];
  return batched[n->in[0]] && o->ndims >= 1 && o->dims[0] == x->dims[0];
}

static bool batch_transpose(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)g;
  for (uint32_t i = 0; i < r; i++)
    if (n->p.transpose.perm[i] != i) return false;
  return batched[n->in[0]];
}

static bool batch_slice(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  const xg_value *x = &g->values[n->in[0]];
  for (uint32_t i = 0; i < r; i++)
    if (n->p.slice.offsets[i] != 0 || n->p.slice.sizes[i] != x->dims[i]) return false;
  return batched[n->in[0]];
}

static bool batch_concat(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r) {
  (void)g;
  if (n->p.cat.axis < r) return false;
  for (uint32_t k = 0; k < n->nin; k++)
    if (!batched[n->in[k]]) return false;
  return true;
}

/* ---- real shapes (pterun's own kernels at a shape below the bound) ----
 * The output's dims from the inputs' run-time dims (in `real`; the built
 * values in g); false when they do not follow. */

static size_t aligned_dim(const xg_value *v, uint32_t nd, uint32_t d) {
  return d + v->ndims >= nd ? v->dims[d + v->ndims - nd] : 1;
}

/* dims[0, upto) of a and b broadcast, both aligned right to rank nd. */
static bool broadcast_dims(const xg_value *a, const xg_value *b, uint32_t nd, uint32_t upto, int64_t *dims) {
  for (uint32_t i = 0; i < upto; i++) {
    size_t a1 = aligned_dim(a, nd, i), b1 = aligned_dim(b, nd, i);
    if (a1 != b1 && a1 != 1 && b1 != 1) return false;
    dims[i] = (int64_t)(a1 == 1 ? b1 : a1);
  }
  return true;
}

static bool shape_same(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]];
  const uint32_t nd = g->values[n->out[0]].ndims;
  if (x->ndims != nd) return false;
  for (uint32_t i = 0; i < nd; i++) dims[i] = (int64_t)x->dims[i];
  return true;
}

static bool shape_binary(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const uint32_t nd = g->values[n->out[0]].ndims;
  return broadcast_dims(&real->values[n->in[0]], &real->values[n->in[1]], nd, nd, dims);
}

static bool shape_fc(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]], *bx = &g->values[n->in[0]], *bo = &g->values[n->out[0]];
  const uint32_t nd = bo->ndims;
  if (x->ndims != nd || x->dims[nd - 1] != bx->dims[nd - 1]) return false;
  for (uint32_t i = 0; i + 1 < nd; i++) dims[i] = (int64_t)x->dims[i];
  dims[nd - 1] = (int64_t)bo->dims[nd - 1];
  return true;
}

static bool shape_bmm(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]], *b = &real->values[n->in[1]];
  const uint32_t nd = g->values[n->out[0]].ndims;
  const bool nk = (n->flags & 1) != 0;
  if (nd < 2 || x->ndims < 2 || b->ndims < 2 || x->dims[x->ndims - 1] != b->dims[b->ndims - (nk ? 1 : 2)])
    return false;
  if (!broadcast_dims(x, b, nd, nd - 2, dims)) return false; /* the batch dims */
  dims[nd - 2] = (int64_t)x->dims[x->ndims - 2];
  dims[nd - 1] = (int64_t)b->dims[b->ndims - (nk ? 2 : 1)];
  return true;
}

static bool shape_transpose(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]];
  const uint32_t nd = g->values[n->out[0]].ndims;
  if (x->ndims != nd) return false;
  for (uint32_t i = 0; i < nd; i++) dims[i] = (int64_t)x->dims[n->p.transpose.perm[i]];
  return true;
}

/* A dim that changed must be taken whole. */
static bool shape_slice(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]], *bx = &g->values[n->in[0]], *bo = &g->values[n->out[0]];
  const uint32_t nd = bo->ndims;
  if (x->ndims != nd) return false;
  for (uint32_t i = 0; i < nd; i++) {
    bool whole = n->p.slice.offsets[i] == 0 && n->p.slice.sizes[i] == bx->dims[i];
    if (x->dims[i] != bx->dims[i] && !whole) return false;
    dims[i] = (int64_t)(whole ? x->dims[i] : bo->dims[i]);
  }
  return true;
}

static bool shape_concat(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims) {
  const xg_value *x = &real->values[n->in[0]];
  const uint32_t nd = g->values[n->out[0]].ndims, axis = n->p.cat.axis;
  if (x->ndims != nd || axis >= nd) return false;
  for (uint32_t i = 0; i < nd; i++) dims[i] = (int64_t)x->dims[i];
  for (uint32_t k = 1; k < n->nin; k++) {
    const xg_value *y = &real->values[n->in[k]];
    if (y->ndims != nd) return false;
    for (uint32_t i = 0; i < nd; i++)
      if (i != axis && y->dims[i] != x->dims[i]) return false;
    dims[axis] += (int64_t)y->dims[axis];
  }
  return true;
}

/* ---- work estimates: multiply-adds ---- */

static double work_fc(const xg_graph *g, const xg_node *n) {
  const xg_value *x = &g->values[n->in[0]];
  return (double)g->values[n->out[0]].numel * (x->ndims ? (double)x->dims[x->ndims - 1] : 1.0);
}

static double work_conv(const xg_graph *g, const xg_node *n) {
  const xg_conv_params *c = &n->p.conv;
  return (double)g->values[n->out[0]].numel * (double)c->kernel_h * c->kernel_w *
         (c->group_in ? c->group_in : 1);
}

/* ---- the table ---- */

static const xg_node_desc g_nodes[XG_NODE_TYPE_END] = {
#define XG_NODE(code, id, name, tbl, ...) [id] = {.layout = &xg_layout_##tbl, __VA_ARGS__},
#include "xnn_nodes.def"
#undef XG_NODE
};

const xg_node_desc *xg_node_desc_of(int type) {
  return type >= 1 && type < XG_NODE_TYPE_END ? &g_nodes[type] : NULL;
}
