/* Payload parsing: XNNHeader, the XNNGraph flatbuffer (verified before any
 * read), values with their constant data, nodes with their parameters.
 * Everything read here is range-checked; shapes are checked in xnn_check.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "klayer.h"
#include "xnn_nodes.h"

/* ---- memory ---- */

struct xg_block {
  xg_block *next;
};
#define XG_BLOCK_HEADER 64 /* keeps the payload 64-byte aligned */

void *xg_mem_alloc(xg_mem *m, size_t size) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - 2 * XG_BLOCK_HEADER) return NULL;
  /* Round up so vector loops may touch whole 64-byte lines. */
  size = k_align64(size);
  void *p;
  if (m->ctx) {
    p = pte_backend_alloc(m->ctx, size, 64);
    if (!p) return NULL;
  } else {
    void *raw = NULL;
    if (posix_memalign(&raw, 64, size + XG_BLOCK_HEADER) != 0) return NULL;
    xg_block *b = (xg_block *)raw;
    b->next = m->blocks;
    m->blocks = b;
    p = (uint8_t *)raw + XG_BLOCK_HEADER;
  }
  memset(p, 0, size);
  m->bytes += size;
  return p;
}

void *xg_mem_array(xg_mem *m, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size) return NULL;
  return xg_mem_alloc(m, n * size);
}

/* The fallback without a method: blocks from malloc (see xnn_graph.h). */
void xg_mem_release(xg_mem *m) {
  xg_block *b = m->blocks;
  while (b) {
    xg_block *next = b->next;
    free(b);
    b = next;
  }
  m->blocks = NULL;
  m->bytes = 0;
}

/* ---- the run-time workspace (see xnn_graph.h) ---- */

pte_status xg_ws_reserve(xg_graph *g, xg_mem *mem, void **slot, size_t bytes) {
  if (bytes > XG_MAX_TOTAL_BYTES)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: %zu bytes of run-time scratch", bytes);
  for (xg_ws_ref *r = g->ws.refs; r; r = r->next)
    if (r->slot == slot) {
      if (bytes > r->bytes) r->bytes = bytes;
      return PTE_OK;
    }
  xg_ws_ref *r = (xg_ws_ref *)xg_mem_alloc(mem, sizeof *r);
  if (!r) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK delegate: out of memory");
  r->slot = slot, r->bytes = bytes;
  *slot = NULL;
  if (g->ws.last) g->ws.last->next = r;
  else g->ws.refs = r;
  g->ws.last = r;
  return PTE_OK;
}

size_t xg_ws_layout(xg_graph *g) {
  size_t at = 0;
  for (xg_ws_ref *r = g->ws.refs; r; r = r->next) {
    r->offset = at;
    at += k_align64(r->bytes); /* each below XG_MAX_TOTAL_BYTES: no overflow */
  }
  return g->ws.bytes = at;
}

void xg_ws_bind(xg_graph *g, void *base) {
  /* integers: a stand-in base (xg_delegate's first setup) is reserved
   * address space, whose addresses are recorded, never followed */
  for (xg_ws_ref *r = g->ws.refs; r; r = r->next) *r->slot = (void *)((uintptr_t)base + r->offset);
  g->ws.base = base;
}

/* ---- helpers ---- */

#define XNN_HEADER_MIN 30u /* bytes of the version-1 XNNHeader */

static uint32_t rd32(const uint8_t *p) { return pte_fb_u32(p); }
static uint64_t rd64(const uint8_t *p) { return pte_fb_u64(p); }

static float fb_float(pte_fb fb, uint32_t t, int slot, float dflt) {
  uint32_t f = pte_fb_field(fb, t, slot);
  if (!f) return dflt;
  uint32_t bits = pte_fb_u32(fb.buf + f);
  float v;
  memcpy(&v, &bits, sizeof v);
  return v;
}

static uint32_t fb_u32(pte_fb fb, uint32_t t, int slot, uint32_t dflt) {
  return (uint32_t)pte_fb_scalar(fb, t, slot, 4, dflt);
}

typedef struct id_pair {
  uint32_t id, index;
} id_pair;

static int cmp_pair(const void *a, const void *b) {
  const id_pair *x = (const id_pair *)a, *y = (const id_pair *)b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : 0;
}

typedef struct parser {
  pte_fb fb;
  uint32_t root;
  const uint8_t *constants; /* constant region of the payload (header present) */
  uint64_t constants_size;
  xg_named_fn named;
  void *named_user;
  xg_graph *g;
  xg_mem *mem;  /* copies of quantization scales */
  id_pair *ids; /* sorted id_out -> value index */
} parser;

/* Value index of serialized id `id`, or XG_NONE. */
static uint32_t lookup(const parser *ps, uint32_t id) {
  size_t lo = 0, hi = ps->g->nvalues;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (ps->ids[mid].id == id) return ps->ids[mid].index;
    if (ps->ids[mid].id < id) lo = mid + 1;
    else hi = mid;
  }
  return XG_NONE;
}

/* ---- values ---- */

/* The bytes of constant `buffer_idx` (value `vi` names it in errors). */
static pte_status constant_bytes(parser *ps, uint32_t vi, uint32_t buffer_idx, const uint8_t **out,
                                 uint64_t *out_size) {
  const pte_fb fb = ps->fb;
  const uint8_t *data = NULL;
  uint64_t size = 0;
  if (ps->g->legacy) {
    uint32_t cb = pte_fb_ref(fb, ps->root, XGRAPH_CONSTANT_BUFFER);
    if (buffer_idx >= pte_fb_vec_len(fb, cb))
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u refers to constant buffer %u, but the graph has %u", vi,
                       buffer_idx, pte_fb_vec_len(fb, cb));
    uint32_t storage = pte_fb_ref(fb, pte_fb_vec_table(fb, cb, buffer_idx), BUFFER_STORAGE_);
    size = pte_fb_vec_len(fb, storage);
    data = storage ? pte_fb_vec_data(fb, storage) : NULL;
  } else {
    uint32_t cd = pte_fb_ref(fb, ps->root, XGRAPH_CONSTANT_DATA);
    if (buffer_idx >= pte_fb_vec_len(fb, cd))
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u refers to constant data %u, but the graph has %u entries",
                       vi, buffer_idx, pte_fb_vec_len(fb, cd));
    uint32_t e = pte_fb_vec_table(fb, cd, buffer_idx);
    const char *key = pte_fb_str(fb, pte_fb_ref(fb, e, CDO_NAMED_KEY));
    if (key && key[0]) {
      /* Weights of 1.x exports: named data of the program or of a .ptd. */
      const void *d = NULL;
      size_t n = 0;
      if (!ps->named)
        return pte_error(PTE_ERR_NOT_FOUND,
                         "XNNPACK payload: value %u needs named data '%s', and no lookup is available", vi,
                         key);
      pte_status st = ps->named(ps->named_user, key, &d, &n);
      if (st)
        return xg_error_prefix(st, "XNNPACK payload: constant of value %u (is the .ptd file attached?)", vi);
      data = (const uint8_t *)d;
      size = n;
    } else {
      uint64_t off = pte_fb_scalar(fb, e, CDO_OFFSET, 8, 0);
      uint64_t len = pte_fb_scalar(fb, e, CDO_SIZE, 8, 0);
      if (!ps->constants || off > ps->constants_size || len > ps->constants_size - off)
        return pte_error(PTE_ERR_INVALID_PROGRAM,
                         "XNNPACK payload: constant data %u (offset %llu, %llu bytes) lies outside the "
                         "constant region of %llu bytes",
                         buffer_idx, (unsigned long long)off, (unsigned long long)len,
                         (unsigned long long)ps->constants_size);
      data = ps->constants + off;
      size = len;
    }
  }
  *out = data;
  *out_size = size;
  return PTE_OK;
}

static pte_status resolve_constant(parser *ps, uint32_t vi, uint32_t buffer_idx) {
  xg_value *v = &ps->g->values[vi];
  const uint8_t *data = NULL;
  uint64_t size = 0;
  pte_status st = constant_bytes(ps, vi, buffer_idx, &data, &size);
  if (st) return st;
  if (size < v->nbytes)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "XNNPACK payload: value %u needs %zu bytes of constant data, constant %u has %llu", vi,
                     v->nbytes, buffer_idx, (unsigned long long)size);
  if (!data && v->nbytes)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u has an empty constant", vi);
  v->data = data;
  v->data_size = (size_t)size;
  v->has_data = 1;
  return PTE_OK;
}

/* An fp16 value as fp32: its constant data (resolved, numel halves)
 * converted into a copy that lives as long as the delegate. */
static pte_status widen_half(parser *ps, uint32_t vi) {
  xg_value *v = &ps->g->values[vi];
  const size_t bytes = v->numel * sizeof(float);
  if (v->data) {
    float *w = (float *)xg_mem_alloc(ps->mem, bytes + XG_EXTRA_BYTES);
    if (!w) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory for fp16 constants");
    /* Unaligned halves: the constant may sit at any offset. */
    uint16_t h[256];
    for (size_t i = 0; i < v->numel; i += 256) {
      size_t n = v->numel - i < 256 ? v->numel - i : 256;
      memcpy(h, (const uint8_t *)v->data + 2 * i, 2 * n);
      k_f16_to_f32(w + i, h, n);
    }
    v->data = w;
    v->data_size = bytes;
  }
  v->half = 1;
  v->datatype = XG_DT_FP32;
  v->esize = sizeof(float);
  v->nbytes = bytes;
  return PTE_OK;
}

/* ---- quantization parameters ---- */

static const char *const quant_names[] = {"none", "PerChannelQuant", "PerTensorQuant", "PerTokenDynamicQuant",
                                          "PerChannelGroupQuant"};

/* Scales from the table's inline vector, or from constant `buffer_idx`
 * (fp32, or bf16 for per-channel-group weights, as ExecuTorch writes them),
 * copied so they are aligned and outlive nothing they point into; every one
 * must be finite and positive. */
static pte_status read_scales(parser *ps, uint32_t vi, uint32_t qp, int vec_slot, int buf_slot, int num_slot,
                              bool bf16_buffer, uint32_t want) {
  const pte_fb fb = ps->fb;
  xg_value *v = &ps->g->values[vi];
  uint32_t vec = pte_fb_ref(fb, qp, vec_slot);
  uint32_t buffer_idx = fb_u32(fb, qp, buf_slot, 0), num = fb_u32(fb, qp, num_slot, 0);
  const uint8_t *src;
  uint32_t count;
  bool bf16 = false;
  if (buffer_idx) {
    uint64_t size = 0;
    pte_status st = constant_bytes(ps, vi, buffer_idx, &src, &size);
    if (st) return st;
    bf16 = bf16_buffer;
    count = num;
    if (!src || size / (bf16 ? 2u : 4u) < num)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: its %u scales need %u bytes, constant %u has %llu", vi,
                       num, num * (bf16 ? 2u : 4u), buffer_idx, (unsigned long long)size);
  } else {
    count = pte_fb_vec_len(fb, vec);
    src = count ? pte_fb_vec_data(fb, vec) : NULL;
  }
  if (count != want)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u has %u scales, its shape needs %u",
                     vi, count, want);
  float *sc = (float *)xg_mem_array(ps->mem, (size_t)count + 1, sizeof(float));
  if (!sc) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory for scales");
  for (uint32_t i = 0; i < count; i++) {
    uint32_t bits = bf16 ? (uint32_t)pte_fb_u16(src + 2ull * i) << 16 : pte_fb_u32(src + 4ull * i);
    memcpy(&sc[i], &bits, sizeof(float));
    if (!isfinite(sc[i]) || !(sc[i] > 0.0f))
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: scale %u is %g (must be finite and positive)", vi, i,
                       (double)sc[i]);
  }
  v->scales = sc;
  v->nscales = count;
  return PTE_OK;
}

/* The parameters of a quantized value: the member its datatype needs, each
 * field in range for the value's shape (xnn_graph.h). */
static pte_status parse_quant(parser *ps, uint32_t vi, uint32_t u) {
  const pte_fb fb = ps->fb;
  xg_value *v = &ps->g->values[vi];
  const int want = xg_datatype_quant(v->datatype);
  const unsigned qt = v->quant_type;
  const char *qname = qt < 5 ? quant_names[qt] : "an unknown member";
  uint32_t qp = pte_fb_ref(fb, u, QTV_QUANT_PARAMS);
  if (!want)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "XNNPACK payload: value %u has datatype %s, which takes no quantization parameters (%s)",
                     vi, xg_datatype_name(v->datatype), qname);
  if (!qp || (int)qt != want)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u (%s) needs %s parameters, it has %s",
                     vi, xg_datatype_name(v->datatype), quant_names[want], qp ? qname : "none");
  if (qt == XG_QP_PER_TENSOR) {
    v->scale = fb_float(fb, qp, PTQ_SCALE, 0.0f);
    v->zero_point = (int32_t)fb_u32(fb, qp, PTQ_ZERO_POINT, 0);
    int32_t lo = v->datatype == XG_DT_QINT8 ? -128 : 0, hi = v->datatype == XG_DT_QINT8 ? 127 : 255;
    if (v->datatype == XG_DT_QINT32) lo = hi = 0; /* XNNPACK: int32 (bias) values have zero point 0 */
    if (!isfinite(v->scale) || !(v->scale > 0.0f))
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: scale %g must be finite and positive", vi,
                       (double)v->scale);
    if (v->zero_point < lo || v->zero_point > hi)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: zero point %d is outside %d..%d for %s", vi,
                       (int)v->zero_point, (int)lo, (int)hi, xg_datatype_name(v->datatype));
    return PTE_OK;
  }
  if (qt == XG_QP_PER_TOKEN_DYNAMIC) {
    int32_t nb = (int32_t)fb_u32(fb, qp, PTDQ_NUM_NONBATCH_DIMS, 0);
    if (nb < 1 || (uint32_t)nb > v->ndims)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: num_nonbatch_dims %d is outside 1..%u (its rank)", vi,
                       (int)nb, v->ndims);
    v->nonbatch_dims = (uint32_t)nb;
    return PTE_OK;
  }
  const bool group = qt == XG_QP_PER_CHANNEL_GROUP;
  int32_t cd = (int32_t)fb_u32(fb, qp, group ? PCGQ_CHANNEL_DIM : PCQ_CHANNEL_DIM, 0);
  if (cd < 0 || (uint32_t)cd >= v->ndims)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "XNNPACK payload: value %u: channel_dim %d is outside its rank %u", vi, (int)cd,
                     v->ndims);
  v->channel_dim = (uint32_t)cd;
  uint64_t want_scales = v->dims[cd];
  if (group) {
    /* Blockwise weights [N, K]: one scale per channel and group of K. */
    int32_t gs = (int32_t)fb_u32(fb, qp, PCGQ_GROUP_SIZE, 0);
    if (v->ndims != 2)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: blockwise weights must be 2-D, not %u-D", vi, v->ndims);
    size_t k = v->dims[1 - cd];
    if (gs < 1 || k % (size_t)gs)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u: group size %d does not divide its %zu input channels", vi,
                       (int)gs, k);
    v->group_size = (uint32_t)gs;
    want_scales *= k / (size_t)gs;
  }
  if (want_scales > UINT32_MAX / 4)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u needs too many scales", vi);
  return group ? read_scales(ps, vi, qp, PCGQ_SCALE, PCGQ_SCALE_BUFFER_IDX, PCGQ_NUM_SCALES, true,
                             (uint32_t)want_scales)
               : read_scales(ps, vi, qp, PCQ_SCALE, PCQ_SCALE_BUFFER_IDX, PCQ_NUM_SCALES, false,
                             (uint32_t)want_scales);
}

static pte_status parse_value(parser *ps, uint32_t vi, uint32_t xv, size_t *total) {
  const pte_fb fb = ps->fb;
  xg_value *v = &ps->g->values[vi];
  uint8_t type = (uint8_t)pte_fb_scalar(fb, xv, XVALUE_UNION_TYPE, 1, 0);
  uint32_t u = pte_fb_ref(fb, xv, XVALUE_UNION);
  if (!u || (type != XG_VALUE_TENSOR && type != XG_VALUE_QUANTIZED))
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u has no tensor (union type %u)", vi,
                     type);
  uint32_t tv = u;
  v->value_type = type;
  if (type == XG_VALUE_QUANTIZED) {
    tv = pte_fb_ref(fb, u, QTV_TENSOR_VALUE);
    if (!tv)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: quantized value %u has no tensor_value",
                       vi);
    v->quant_type = (uint8_t)pte_fb_scalar(fb, u, QTV_QUANT_PARAMS_TYPE, 1, 0);
  }
  v->datatype = (int16_t)pte_fb_scalar(fb, tv, TV_DATATYPE, 2, 0);
  v->dq_datatype = (int16_t)pte_fb_scalar(fb, tv, TV_DQ_DATATYPE, 2, 0);
  uint32_t ndims = fb_u32(fb, tv, TV_NUM_DIMS, 0);
  uint32_t dims = pte_fb_ref(fb, tv, TV_DIMS);
  uint32_t nd = pte_fb_vec_len(fb, dims);
  if (nd != ndims)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "XNNPACK payload: value %u: num_dims is %u but dims has %u entries", vi, ndims, nd);
  if (nd > XG_MAX_DIMS)
    return pte_error(PTE_ERR_NOT_SUPPORTED,
                     "XNNPACK payload: value %u has %u dimensions; XNNPACK supports at most %d", vi, nd,
                     XG_MAX_DIMS);
  v->ndims = (uint8_t)nd;
  size_t numel = 1;
  for (uint32_t d = 0; d < nd; d++) {
    uint32_t s = rd32(pte_fb_vec_data(fb, dims) + 4ull * d);
    if (s == 0)
      return pte_error(PTE_ERR_NOT_SUPPORTED, "XNNPACK payload: value %u has a dimension of size 0", vi);
    v->dims[d] = s;
    if (numel > XG_MAX_TENSOR_BYTES / 4 / s)
      return pte_error(
          PTE_ERR_INVALID_PROGRAM,
          "XNNPACK payload: value %u is too large (dimension %u of size %u overflows the %zu-byte limit)", vi,
          d, s, (size_t)XG_MAX_TENSOR_BYTES);
    numel *= s;
  }
  v->numel = numel;
  v->esize = (uint8_t)xg_datatype_size(v->datatype);
  /* qdint8 values get fp32-sized buffers: their convert stores the rows
   * quantized in them (xg_qd8_rows_fit), or copies narrow ones as fp32. */
  if (v->datatype == XG_DT_QDINT8) v->esize = 4;
  /* 4-bit [N, K] weights: rows of (K + 1) / 2 bytes, as ExecuTorch packs them. */
  v->nbytes = v->esize        ? numel * v->esize
              : v->ndims == 2 ? v->dims[0] * ((v->dims[1] + 1) / 2)
                              : (numel + 1) / 2;
  /* fp16 values run as fp32 (Debian's 2022 XNNPACK has no fp16 subgraph
   * operators): constants are widened once here, arguments at the
   * delegate's boundary (xnn_delegate.c). */
  const bool half = v->datatype == XG_DT_FP16 && type == XG_VALUE_TENSOR;
  v->external_id = fb_u32(fb, tv, TV_EXTERNAL_ID, 0);
  v->flags = fb_u32(fb, tv, TV_FLAGS, 0);
  v->id_out = fb_u32(fb, tv, TV_ID_OUT, 0);
  v->producer = -1;
  if (type == XG_VALUE_QUANTIZED) {
    pte_status st = parse_quant(ps, vi, u);
    if (st) return st;
  }
  if (v->flags & ~(XG_FLAG_EXTERNAL_INPUT | XG_FLAG_EXTERNAL_OUTPUT))
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u has unknown flags 0x%x", vi,
                     v->flags);
  if (v->flags) {
    if (v->external_id >= ps->g->num_externs)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: value %u has external id %u, outside 0..%u (num_externs)", vi,
                       v->external_id, ps->g->num_externs ? ps->g->num_externs - 1 : 0);
  } else {
    v->external_id = XG_NONE;
  }
  uint32_t cidx = fb_u32(fb, tv, TV_CONSTANT_BUFFER_IDX, 0);
  if (cidx) {
    if (v->flags)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: value %u is both constant and external",
                       vi);
    /* Only fp32 and quantized constants are ever read; other datatypes are
     * refused by xg_check, naming the node, so their bytes need not resolve. */
    if ((v->datatype == XG_DT_FP32 && type == XG_VALUE_TENSOR) || type == XG_VALUE_QUANTIZED || half) {
      pte_status st = resolve_constant(ps, vi, cidx);
      if (st) return st;
    } else {
      v->has_data = 1;
    }
  }
  if (half) {
    pte_status st = widen_half(ps, vi);
    if (st) return st;
  }
  if (!v->has_data) {
    if (!(*total <= XG_MAX_TOTAL_BYTES - v->nbytes))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: activations exceed %zu bytes in total",
                       (size_t)XG_MAX_TOTAL_BYTES);
    *total += v->nbytes;
  }
  return PTE_OK;
}

/* ---- nodes ---- */

static pte_status node_value(parser *ps, uint32_t ni, uint32_t id, bool optional, uint32_t *out) {
  if (id == XG_NONE && optional) {
    *out = XG_NONE;
    return PTE_OK;
  }
  uint32_t vi = lookup(ps, id);
  if (vi == XG_NONE)
    return xg_node_error(ps->g, ni, PTE_ERR_INVALID_PROGRAM, "refers to value id %u, which is not defined",
                         id);
  *out = vi;
  return PTE_OK;
}

/* ---- parameter readers (xnn_nodes.h) ---- */

uint32_t xg_fb_u32(const xg_fb_node *r, int slot) { return fb_u32(r->fb, r->table, slot, 0); }

float xg_fb_f32(const xg_fb_node *r, int slot) { return fb_float(r->fb, r->table, slot, 0.0f); }

pte_status xg_fb_dims(const xg_fb_node *r, int slot, const char *what, uint32_t n, size_t *out) {
  uint32_t v = pte_fb_ref(r->fb, r->table, slot);
  if (!v || pte_fb_vec_len(r->fb, v) != n)
    return xg_node_error(r->g, r->node, PTE_ERR_INVALID_PROGRAM, "%s has %u entries, expected %u", what,
                         pte_fb_vec_len(r->fb, v), n);
  for (uint32_t i = 0; i < n; i++) out[i] = rd32(pte_fb_vec_data(r->fb, v) + 4ull * i);
  return PTE_OK;
}

/* A node: its type and bounds, then what its row describes: parameters,
 * flags, and the value ids at the slots of its table's layout. */
static pte_status parse_node(parser *ps, uint32_t ni, uint32_t xn) {
  const pte_fb fb = ps->fb;
  xg_node *n = &ps->g->nodes[ni];
  n->type = (uint8_t)pte_fb_scalar(fb, xn, XNODE_UNION_TYPE, 1, 0);
  n->debug_handle = fb_u32(fb, xn, XNODE_DEBUG_HANDLE, 0);
  n->out_min = -INFINITY;
  n->out_max = INFINITY;
  uint32_t mm = pte_fb_ref(fb, xn, XNODE_OUTPUT_MIN_MAX);
  if (mm) {
    /* Table present, field absent: the field's default (0.0), as flatc omits it. */
    n->out_min = fb_float(fb, mm, MINMAX_MIN, 0.0f);
    n->out_max = fb_float(fb, mm, MINMAX_MAX, 0.0f);
  }
  uint32_t t = pte_fb_ref(fb, xn, XNODE_UNION);
  const xg_node_desc *d = xg_node_desc_of(n->type);
  if (!d || !t)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: node %u has no operator (union type %u)", ni,
                     n->type);
  const xg_layout *L = d->layout;
  const xg_fb_node r = {fb, t, ps->g, ni};
  pte_status st;
  if (d->params && (st = d->params(&r, n))) return st;
  n->flags = xg_fb_u32(&r, L->flags);
  n->nin = d->nin ? d->nin : L->nin;
  n->nout = L->nout;
  for (uint32_t i = 0; i < n->nin; i++)
    if ((st = node_value(ps, ni, xg_fb_u32(&r, L->in[i]), (L->optional >> i) & 1, &n->in[i]))) return st;
  for (uint32_t i = 0; i < n->nout; i++)
    if ((st = node_value(ps, ni, xg_fb_u32(&r, L->out[i]), false, &n->out[i]))) return st;
  return PTE_OK;
}

/* ---- header and graph ---- */

/* The flatbuffer inside the payload: after an XNNHeader (which also locates
 * the constant region), or the whole payload (legacy). */
static pte_status locate_flatbuffer(const uint8_t *b, size_t size, parser *ps) {
  const uint8_t *fbuf = b;
  size_t fsize = size;
  if (memcmp(b + 4, "XH00", 4) == 0) {
    if (size < XNN_HEADER_MIN)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: %zu bytes cannot hold the %u-byte XNNHeader", size, XNN_HEADER_MIN);
    uint32_t hlen = pte_fb_u16(b + 8);
    uint64_t fo = rd32(b + 10), fs = rd32(b + 14), co = rd32(b + 18), cs = rd64(b + 22);
    if (hlen < XNN_HEADER_MIN)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: header length %u is below %u", hlen,
                       XNN_HEADER_MIN);
    if (fo < XNN_HEADER_MIN || fs < 8 || fo > size || fs > size - fo)
      return pte_error(
          PTE_ERR_INVALID_PROGRAM,
          "XNNPACK payload: flatbuffer at offset %llu (%llu bytes) does not fit in the %zu-byte payload",
          (unsigned long long)fo, (unsigned long long)fs, size);
    if (co < fo + fs || co > size || cs > size - co)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "XNNPACK payload: constant data at offset %llu (%llu bytes) does not fit after the "
                       "flatbuffer (ends at %llu) in the %zu-byte payload",
                       (unsigned long long)co, (unsigned long long)cs, (unsigned long long)(fo + fs), size);
    fbuf = b + fo;
    fsize = (size_t)fs;
    ps->constants = b + co;
    ps->constants_size = cs;
  } else {
    ps->g->legacy = true;
  }
  if (fsize < 8 || (memcmp(fbuf + 4, "XN00", 4) != 0 && memcmp(fbuf + 4, "XN01", 4) != 0)) {
    char got[5] = {0};
    for (int i = 0; fsize >= 8 && i < 4; i++)
      got[i] = (fbuf[4 + i] >= 32 && fbuf[4 + i] < 127) ? (char)fbuf[4 + i] : '?';
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "XNNPACK payload: flatbuffer identifier is '%s', expected 'XN00' or 'XN01'", got);
  }
  pte_status st = pte_fb_verify(fbuf, fsize, &xg_schema_graph, NULL);
  if (st) return xg_error_prefix(st, "XNNPACK payload");
  ps->fb.buf = fbuf;
  ps->fb.size = fsize;
  ps->root = pte_fb_root(ps->fb);
  return PTE_OK;
}

/* Values, then the id_out index that nodes look them up by; every id_out
 * and every external id must be unique. */
static pte_status parse_values(parser *ps, uint32_t xvalues, xg_mem *mem) {
  xg_graph *g = ps->g;
  pte_status st = PTE_OK;
  size_t total = 0;
  for (uint32_t i = 0; i < g->nvalues && !st; i++) {
    st = parse_value(ps, i, pte_fb_vec_table(ps->fb, xvalues, i), &total);
    ps->ids[i].id = g->values[i].id_out;
    ps->ids[i].index = i;
  }
  if (st) return st;
  qsort(ps->ids, g->nvalues, sizeof(id_pair), cmp_pair);
  for (uint32_t i = 1; i < g->nvalues; i++)
    if (ps->ids[i].id == ps->ids[i - 1].id)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: values %u and %u share id_out %u",
                       ps->ids[i - 1].index, ps->ids[i].index, ps->ids[i].id);
  /* Each external id names one argument of the delegate call. */
  if (!g->num_externs) return PTE_OK;
  uint32_t *owner = (uint32_t *)xg_mem_array(mem, g->num_externs, sizeof(uint32_t));
  if (!owner) return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory");
  for (uint32_t e = 0; e < g->num_externs; e++) owner[e] = XG_NONE;
  for (uint32_t i = 0; i < g->nvalues; i++) {
    if (!g->values[i].flags) continue;
    uint32_t e = g->values[i].external_id;
    if (owner[e] != XG_NONE)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: values %u and %u share external id %u",
                       owner[e], i, e);
    owner[e] = i;
  }
  return PTE_OK;
}

pte_status xg_parse(const void *blob, size_t size, xg_named_fn named, void *named_user, xg_mem *mem,
                    xg_graph *g) {
  memset(g, 0, sizeof *g);
  const uint8_t *b = (const uint8_t *)blob;
  if (!b || size < 8)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload of %zu bytes is too small", size);
  parser ps;
  memset(&ps, 0, sizeof ps);
  ps.named = named;
  ps.named_user = named_user;
  ps.g = g;
  ps.mem = mem;
  pte_status st = locate_flatbuffer(b, size, &ps);
  if (st) return st;
  const pte_fb fb = ps.fb;
  g->num_externs = fb_u32(fb, ps.root, XGRAPH_NUM_EXTERNS, 0);
  if (g->num_externs > XG_MAX_EXTERNS)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: num_externs %u is above %u", g->num_externs,
                     XG_MAX_EXTERNS);
  uint32_t xvalues = pte_fb_ref(fb, ps.root, XGRAPH_XVALUES);
  uint32_t xnodes = pte_fb_ref(fb, ps.root, XGRAPH_XNODES);
  g->nvalues = pte_fb_vec_len(fb, xvalues);
  g->nnodes = pte_fb_vec_len(fb, xnodes);
  if (g->nvalues > XG_MAX_VALUES || g->nnodes > XG_MAX_NODES)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: %u values and %u nodes is too many",
                     g->nvalues, g->nnodes);
  if (g->nnodes == 0) return pte_error(PTE_ERR_INVALID_PROGRAM, "XNNPACK payload: the graph has no nodes");
  g->values = (xg_value *)xg_mem_array(mem, g->nvalues, sizeof(xg_value));
  g->nodes = (xg_node *)xg_mem_array(mem, g->nnodes, sizeof(xg_node));
  ps.ids = (id_pair *)xg_mem_array(mem, (size_t)g->nvalues + 1, sizeof(id_pair));
  if (!g->values || !g->nodes || !ps.ids)
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "XNNPACK payload: out of memory for %u values and %u nodes",
                     g->nvalues, g->nnodes);
  if ((st = parse_values(&ps, xvalues, mem))) return st;
  for (uint32_t i = 0; i < g->nnodes && !st; i++) st = parse_node(&ps, i, pte_fb_vec_table(fb, xnodes, i));
  return st;
}
