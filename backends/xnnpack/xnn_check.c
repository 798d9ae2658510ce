/* Node validation. Debian's 2022 XNNPACK trusts the shapes it is given: it
 * sizes buffers from a value's declared dims while operators compute their
 * outputs from the input dims, so a payload whose declared output shape does
 * not follow from its inputs would make XNNPACK write out of bounds. Every
 * node's output shape is therefore inferred here and must equal the
 * serialized one, every parameter is range-checked, and only then does a node
 * reach XNNPACK or the native kernels. This is also where a node is given to
 * XNNPACK or to pterun's own code. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "xnn_graph.h"

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

static const char *shape_str(const size_t *d, uint32_t n, char *buf, size_t len) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (uint32_t i = 0; i < n && used < len; i++)
    used += (size_t)snprintf(buf + used, len - used, i ? ", %zu" : "%zu", d[i]);
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

/* Output `k` of node `ni` must have exactly these dims. */
static pte_status expect_out(const xg_graph *g, uint32_t ni, uint32_t k, uint32_t nd, const size_t *dims) {
  const xg_value *o = &g->values[g->nodes[ni].out[k]];
  bool same = o->ndims == nd;
  for (uint32_t i = 0; same && i < nd; i++) same = o->dims[i] == dims[i];
  if (same) return PTE_OK;
  char a[128], b[128];
  return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output value %u has shape %s, but the inputs give %s",
                       g->nodes[ni].out[k], shape_str(o->dims, o->ndims, a, sizeof a),
                       shape_str(dims, nd, b, sizeof b));
}

static const xg_value *in_value(const xg_graph *g, const xg_node *n, uint32_t k) {
  return n->in[k] == XG_NONE ? NULL : &g->values[n->in[k]];
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
  return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "flags 0x%x are not supported (allowed: 0x%x)", f, allowed);
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
static bool window_out(uint64_t in, uint64_t pad0, uint64_t pad1, uint64_t k, uint64_t dil,
                       uint64_t stride, size_t *out) {
  if (k == 0 || dil == 0 || stride == 0) return false;
  uint64_t eff = (k - 1) * dil + 1;
  uint64_t padded = in + pad0 + pad1;
  if (padded < eff) return false;
  *out = (size_t)((padded - eff) / stride + 1);
  return *out <= XG_MAX_TENSOR_BYTES;
}

static pte_status check_conv(const xg_graph *g, uint32_t ni) {
  const xg_node *n = &g->nodes[ni];
  const xg_conv_params *c = &n->p.conv;
  pte_status st;
  if ((st = need_rank(g, ni, 0, 4)) || (st = need_rank(g, ni, 1, 4))) return st;
  if ((st = need_flags(g, ni, 0))) return st;
  const xg_value *x = in_value(g, n, 0), *w = in_value(g, n, 1), *b = in_value(g, n, 2);
  if (!w->has_data)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                         "the filter (value %u) is not a constant; XNNPACK needs constant convolution weights",
                         n->in[1]);
  if (b && !b->has_data)
    return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "the bias (value %u) is not a constant", n->in[2]);
  if (c->kernel_h == 0 || c->kernel_w == 0 || c->sub_h == 0 || c->sub_w == 0 || c->dil_h == 0 ||
      c->dil_w == 0 || c->groups == 0 || c->group_in == 0 || c->group_out == 0)
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM,
                         "kernel %ux%u, stride %ux%u, dilation %ux%u, groups %u x (%u in, %u out) must all be positive",
                         c->kernel_h, c->kernel_w, c->sub_h, c->sub_w, c->dil_h, c->dil_w, c->groups,
                         c->group_in, c->group_out);
  const uint64_t N = x->dims[0], H = x->dims[1], W = x->dims[2], C = x->dims[3];
  uint64_t cin, cout;
  size_t wdims[4];
  if (n->type == XG_DEPTHWISE_CONV2D) {
    /* ExecuTorch: depth_multiplier = group_out / group_in, input channels = groups. */
    if (c->group_out % c->group_in)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "group_output_channels %u is not a multiple of group_input_channels %u",
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
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "filter (value %u) has shape %s, expected %s", n->in[1],
                         shape_str(w->dims, w->ndims, a, sizeof a), shape_str(wdims, 4, e, sizeof e));
  }
  if (b && !is_vector_of(b, (size_t)cout))
    return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "bias (value %u) has %zu elements, expected %llu",
                         n->in[2], b->numel, (unsigned long long)cout);
  size_t od[4] = {(size_t)N, 0, 0, (size_t)cout};
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
  } else {
    if (c->adj_h || c->adj_w)
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "adjustment is only valid for transposed convolution");
    if (!window_out(H, c->pad_top, c->pad_bottom, c->kernel_h, c->dil_h, c->sub_h, &od[1]) ||
        !window_out(W, c->pad_left, c->pad_right, c->kernel_w, c->dil_w, c->sub_w, &od[2]))
      return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "the %ux%u kernel does not fit the %llux%llu input",
                           c->kernel_h, c->kernel_w, (unsigned long long)H, (unsigned long long)W);
  }
  return expect_out(g, ni, 0, 4, od);
}

static pte_status check_pool(const xg_graph *g, uint32_t ni, bool *xnn_ok) {
  const xg_node *n = &g->nodes[ni];
  const xg_pool_params *p = &n->p.pool;
  pte_status st;
  if ((st = need_rank(g, ni, 0, 4))) return st;
  /* 0x40 is modern XNNPACK's KEEP_DIMS: shapes here are already 4-D. */
  if ((st = need_flags(g, ni, 0x40))) return st;
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
  if (n->type == XG_ARGMAX_POOL) {
    if ((st = expect_out(g, ni, 0, 4, od))) return st;
    return expect_out(g, ni, 1, 4, od);
  }
  return expect_out(g, ni, 0, 4, od);
}

static pte_status check_same_shape(const xg_graph *g, uint32_t ni) {
  const xg_value *x = in_value(g, &g->nodes[ni], 0);
  return expect_out(g, ni, 0, x->ndims, x->dims);
}

static pte_status check_node(xg_graph *g, uint32_t ni, bool *xnn_ok, bool *native_only) {
  xg_node *n = &g->nodes[ni];
  pte_status st;
  switch (n->type) {
    case XG_ADD: case XG_SUBTRACT: case XG_MULTIPLY: case XG_DIV: case XG_MINIMUM: case XG_MAXIMUM: {
      if ((st = need_flags(g, ni, 0))) return st;
      uint32_t nd;
      size_t dims[XG_MAX_DIMS];
      if (!broadcast(in_value(g, n, 0), in_value(g, n, 1), &nd, dims))
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input shapes do not broadcast");
      if (n->type == XG_MINIMUM || n->type == XG_MAXIMUM) {
        /* ExecuTorch defines these without output bounds: ignore any. */
        n->out_min = -INFINITY;
        n->out_max = INFINITY;
      }
      if ((st = check_bounds(g, ni, xnn_ok))) return st;
      if (in_value(g, n, 0)->has_data && in_value(g, n, 1)->has_data) *xnn_ok = false;
      return expect_out(g, ni, 0, nd, dims);
    }
    case XG_PRELU: {
      if ((st = need_flags(g, ni, 0))) return st;
      const xg_value *x = in_value(g, n, 0), *s = in_value(g, n, 1);
      uint32_t nd;
      size_t dims[XG_MAX_DIMS];
      if (!broadcast(x, s, &nd, dims) || nd != x->ndims)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "slope does not broadcast to the input");
      /* 2022 XNNPACK: a constant slope with one value per channel (last dim). */
      if (!s->has_data || x->ndims == 0 || !is_vector_of(s, x->dims[x->ndims - 1])) *xnn_ok = false;
      return expect_out(g, ni, 0, x->ndims, x->dims);
    }
    case XG_SOFTMAX:
      if ((st = need_flags(g, ni, 0))) return st;
      if (in_value(g, n, 0)->ndims == 0)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "softmax needs at least one dimension");
      return check_same_shape(g, ni);
    case XG_CLAMP:
      if ((st = need_flags(g, ni, 0))) return st;
      if ((st = check_bounds(g, ni, xnn_ok))) return st;
      return check_same_shape(g, ni);
    case XG_LEAKY_RELU: case XG_ELU:
      if ((st = need_flags(g, ni, 0))) return st;
      if (!isfinite(n->p.act.alpha))
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "parameter %g is not finite", (double)n->p.act.alpha);
      return check_same_shape(g, ni);
    case XG_SIGMOID: case XG_FLOOR: case XG_CEIL: case XG_SQRT: case XG_SQUARE: case XG_HARDSWISH:
    case XG_NEGATE: case XG_ABS:
      if ((st = need_flags(g, ni, 0))) return st;
      return check_same_shape(g, ni);
    case XG_RSQRT: case XG_LOG: case XG_GELU: case XG_TANH: case XG_EXP: case XG_SIN: case XG_COS:
      if ((st = need_flags(g, ni, 0))) return st;
      *native_only = true;
      return check_same_shape(g, ni);
    case XG_COPY: case XG_CONVERT: /* fp32 -> fp32 (other datatypes are refused earlier) */
      if ((st = need_flags(g, ni, 0))) return st;
      n->copy_like = 1;
      return check_same_shape(g, ni);
    case XG_FULLY_CONNECTED: {
      if ((st = need_flags(g, ni, 0x1))) return st; /* 0x1: filter is [in, out] */
      const xg_value *x = in_value(g, n, 0), *w = in_value(g, n, 1), *b = in_value(g, n, 2);
      if (x->ndims < 1 || w->ndims != 2)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input rank %u and filter rank %u are invalid",
                             x->ndims, w->ndims);
      size_t k = x->dims[x->ndims - 1];
      size_t fk = (n->flags & 1) ? w->dims[0] : w->dims[1];
      size_t nout = (n->flags & 1) ? w->dims[1] : w->dims[0];
      if (fk != k)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input has %zu features, the filter expects %zu", k, fk);
      if (b && !is_vector_of(b, nout))
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "bias (value %u) has %zu elements, expected %zu",
                             n->in[2], b->numel, nout);
      if ((st = check_bounds(g, ni, xnn_ok))) return st;
      if (!w->has_data || (b && !b->has_data)) *xnn_ok = false; /* 2022: constant weights only */
      size_t od[XG_MAX_DIMS];
      memcpy(od, x->dims, sizeof od);
      od[x->ndims - 1] = nout;
      return expect_out(g, ni, 0, x->ndims, od);
    }
    case XG_CONV2D: case XG_DEPTHWISE_CONV2D: case XG_CONV_TRANSPOSE2D:
      if ((st = check_conv(g, ni))) return st;
      return check_bounds(g, ni, xnn_ok);
    case XG_AVG_POOL: case XG_MAX_POOL: case XG_ARGMAX_POOL:
      if (n->type == XG_ARGMAX_POOL) *native_only = true;
      return check_pool(g, ni, xnn_ok);
    case XG_GLOBAL_AVG_POOL: {
      if ((st = need_rank(g, ni, 0, 4)) || (st = need_flags(g, ni, 0x40))) return st;
      if ((st = check_bounds(g, ni, xnn_ok))) return st;
      const xg_value *x = in_value(g, n, 0), *o = &g->values[n->out[0]];
      size_t od[4] = {x->dims[0], 1, 1, x->dims[3]};
      if (o->ndims == 2) return expect_out(g, ni, 0, 2, (size_t[]){x->dims[0], x->dims[3]});
      return expect_out(g, ni, 0, 4, od);
    }
    case XG_RESIZE_BILINEAR: {
      if ((st = need_rank(g, ni, 0, 4))) return st;
      if ((st = need_flags(g, ni, 0x4 | 0x8))) return st; /* legacy (TF) mode, align corners */
      if ((n->flags & 0xc) == 0xc)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "align-corners and legacy mode exclude each other");
      const xg_value *x = in_value(g, n, 0);
      if (n->p.resize.new_h == 0 || n->p.resize.new_w == 0)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "output size %ux%u is invalid", n->p.resize.new_h,
                             n->p.resize.new_w);
      size_t od[4] = {x->dims[0], n->p.resize.new_h, n->p.resize.new_w, x->dims[3]};
      return expect_out(g, ni, 0, 4, od);
    }
    case XG_CONSTANT_PAD: {
      if ((st = need_flags(g, ni, 0))) return st;
      const xg_value *x = in_value(g, n, 0);
      if (n->p.pad.ndims != x->ndims)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "%u paddings for a rank-%u input", n->p.pad.ndims,
                             x->ndims);
      if (isnan(n->p.pad.value))
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "padding value is NaN");
      size_t od[XG_MAX_DIMS];
      for (uint32_t i = 0; i < x->ndims; i++) {
        uint64_t d = (uint64_t)x->dims[i] + n->p.pad.pre[i] + n->p.pad.post[i];
        if (d > XG_MAX_TENSOR_BYTES)
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "padded dimension %u is too large", i);
        od[i] = (size_t)d;
      }
      return expect_out(g, ni, 0, x->ndims, od);
    }
    case XG_STATIC_RESHAPE: {
      if ((st = need_flags(g, ni, 0))) return st;
      const xg_value *x = in_value(g, n, 0), *o = &g->values[n->out[0]];
      if (x->numel != o->numel)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "reshapes %zu elements into %zu", x->numel, o->numel);
      n->copy_like = 1;
      /* new_shape may carry one 0 (inferred); where it names a size, it must agree. */
      if (n->p.reshape.ndims == o->ndims)
        for (uint32_t i = 0; i < o->ndims; i++)
          if (n->p.reshape.shape[i] && n->p.reshape.shape[i] != o->dims[i])
            return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "new_shape[%u] = %zu but the output has %zu", i,
                                 n->p.reshape.shape[i], o->dims[i]);
      return PTE_OK;
    }
    case XG_STATIC_TRANSPOSE: {
      if ((st = need_flags(g, ni, 0))) return st;
      const xg_value *x = in_value(g, n, 0);
      if (n->p.transpose.ndims != x->ndims)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "perm has %u entries for a rank-%u input",
                             n->p.transpose.ndims, x->ndims);
      bool seen[XG_MAX_DIMS] = {false};
      size_t od[XG_MAX_DIMS];
      for (uint32_t i = 0; i < x->ndims; i++) {
        uint32_t p = n->p.transpose.perm[i];
        if (p >= x->ndims || seen[p])
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "perm is not a permutation of 0..%u", x->ndims - 1);
        seen[p] = true;
        od[i] = x->dims[p];
      }
      /* A permutation that keeps the dims larger than 1 in order moves no
       * byte (e.g. [N,1,1,C] -> [N,C,1,1] before a classifier): a copy,
       * which XNNPACK can run as a reshape inside a runtime. */
      uint32_t last = 0;
      bool ordered = true;
      for (uint32_t i = 0; i < x->ndims; i++) {
        uint32_t p = n->p.transpose.perm[i];
        if (x->dims[p] == 1) continue;
        if (p < last) ordered = false;
        last = p;
      }
      n->copy_like = ordered;
      if (!ordered) *native_only = true;
      return expect_out(g, ni, 0, x->ndims, od);
    }
    case XG_STATIC_SLICE: {
      if ((st = need_flags(g, ni, 0))) return st;
      const xg_value *x = in_value(g, n, 0);
      if (n->p.slice.ndims != x->ndims)
        return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "%u offsets for a rank-%u input", n->p.slice.ndims,
                             x->ndims);
      size_t od[XG_MAX_DIMS];
      for (uint32_t i = 0; i < x->ndims; i++) {
        size_t off = n->p.slice.offsets[i];
        if (off >= x->dims[i])
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "offset %zu is outside dimension %u of size %zu", off,
                               i, x->dims[i]);
        /* A size of 0 means "to the end", as in XNNPACK's static slice. */
        size_t sz = n->p.slice.sizes[i] ? n->p.slice.sizes[i] : x->dims[i] - off;
        if (sz > x->dims[i] - off)
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "slice [%zu, %zu) exceeds dimension %u of size %zu",
                               off, off + sz, i, x->dims[i]);
        n->p.slice.sizes[i] = sz;
        od[i] = sz;
      }
      *native_only = true;
      return expect_out(g, ni, 0, x->ndims, od);
    }
    case XG_CONCAT2: case XG_CONCAT3: case XG_CONCAT4: case XG_CONCAT5: {
      if ((st = need_flags(g, ni, 0))) return st;
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
          return xg_node_error(g, ni, PTE_ERR_INVALID_PROGRAM, "input %u does not match input 0 outside axis %u", k,
                               axis);
        od[axis] += v->dims[axis];
      }
      *native_only = true;
      return expect_out(g, ni, 0, x->ndims, od);
    }
    case XG_BMM: {
      if ((st = need_flags(g, ni, 0x1))) return st; /* 0x1: second input is [..., N, K] */
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
      *native_only = true;
      return expect_out(g, ni, 0, nd + 2, od);
    }
    case XG_SDPA:
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                           "scaled dot-product attention is not supported (ExecuTorch's own runtime refuses it too)");
    default:
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "unknown node type %u", n->type);
  }
}

bool xg_native_supports(const xg_graph *g, const xg_node *n) {
  (void)g;
  switch (n->type) {
    case XG_CONV2D: case XG_DEPTHWISE_CONV2D: case XG_CONV_TRANSPOSE2D: case XG_RESIZE_BILINEAR:
    case XG_SDPA:
      return false;
    default:
      return n->type >= 1 && n->type < XG_NODE_TYPE_END;
  }
}

bool xg_input_is_packed(const xg_node *n, uint32_t slot) {
  switch (n->type) {
    case XG_FULLY_CONNECTED: case XG_CONV2D: case XG_DEPTHWISE_CONV2D: case XG_CONV_TRANSPOSE2D:
      return slot == 1 || slot == 2;
    case XG_PRELU:
      return slot == 1;
    default:
      return false;
  }
}

static const char *why_refused(int dt) {
  switch (dt) {
    case XG_DT_FP16: case XG_DT_BF16:
      return "half-precision graphs are not supported (Debian's 2022 XNNPACK has no fp16/bf16 subgraph "
             "operators; export in fp32)";
    case XG_DT_QCINT4: case XG_DT_QBINT4:
      return "4-bit quantized weights are not supported by Debian's 2022 XNNPACK";
    case XG_DT_QDINT8: case XG_DT_QPINT8:
      return "dynamically quantized graphs are not supported by Debian's 2022 XNNPACK";
    case XG_DT_FP32:
      return "quantization parameters on an fp32 value are not supported";
    default:
      return "pterun's XNNPACK delegate runs fp32 graphs only";
  }
}

static pte_status check_value_types(const xg_graph *g, uint32_t ni) {
  const xg_node *n = &g->nodes[ni];
  for (uint32_t k = 0; k < (uint32_t)n->nin + n->nout; k++) {
    uint32_t vi = k < n->nin ? n->in[k] : n->out[k - n->nin];
    if (vi == XG_NONE) continue;
    const xg_value *v = &g->values[vi];
    if (v->datatype != XG_DT_FP32 || v->value_type != XG_VALUE_TENSOR)
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED, "%s value %u has datatype %s: %s",
                           k < n->nin ? "input" : "output", vi, xg_datatype_name(v->datatype),
                           why_refused(v->value_type == XG_VALUE_TENSOR ? v->datatype : -1));
    if (v->dq_datatype != XG_DT_INVALID)
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                           "value %u is to be quantized dynamically to %s: %s", vi,
                           xg_datatype_name(v->dq_datatype), why_refused(XG_DT_QDINT8));
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

pte_status xg_check(xg_graph *g, const xg_check_options *opts) {
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
    }
    for (uint32_t k = 0; k < n->nin; k++)
      if (n->in[k] != XG_NONE) g->values[n->in[k]].uses++;
    bool xnn_ok = true, native_only = false;
    if ((st = check_node(g, ni, &xnn_ok, &native_only))) return st;
    bool native_ok = xg_native_supports(g, n);
    if (native_only) xnn_ok = false;
    if (xnn_ok && !(opts && opts->prefer_native && native_ok)) n->exec = XG_EXEC_XNN;
    else if (native_ok) n->exec = XG_EXEC_NATIVE;
    else
      return xg_node_error(g, ni, PTE_ERR_NOT_SUPPORTED,
                           "these parameters are supported neither by Debian's 2022 XNNPACK nor by pterun");
  }
  /* Dead nodes: every output unused and not a delegate output. They are
   * dropped, which also keeps them from 2022 XNNPACK, whose optimizer clears
   * an unconsumed internal value but still creates its producer (an assert
   * in Debian's build). A worklist, so hostile orders cost linear time. */
  uint32_t *work = (uint32_t *)malloc(((size_t)g->nnodes + 1) * sizeof(uint32_t));
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
        if (p->exec != XG_EXEC_DEAD && node_is_dead(g, p)) p->exec = XG_EXEC_DEAD, work[top++] = (uint32_t)v->producer;
      }
    }
  }
  free(work);
  for (uint32_t vi = 0; vi < g->nvalues; vi++) {
    const xg_value *v = &g->values[vi];
    if ((v->flags & XG_FLAG_EXTERNAL_INPUT) && (v->flags & XG_FLAG_EXTERNAL_OUTPUT))
      return pte_error(PTE_ERR_NOT_SUPPORTED,
                       "XNNPACK payload: value %u is both a delegate input and output", vi);
    if ((v->flags & XG_FLAG_EXTERNAL_OUTPUT) && v->producer < 0)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: delegate output value %u is written by no node",
                       vi);
    if (v->uses && v->producer < 0 && !v->has_data && !(v->flags & XG_FLAG_EXTERNAL_INPUT))
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u is read but is neither an input, a constant nor written by a node",
                       vi);
  }
  return PTE_OK;
}
