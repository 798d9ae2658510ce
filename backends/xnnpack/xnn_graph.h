/* Internal interfaces of the XNNPACK delegate.
 *
 * A payload goes through four stages, each usable on its own (the fuzzer and
 * the tests drive them directly):
 *   xg_parse      header + verified flatbuffer -> xg_graph (values, nodes,
 *                 constants resolved), every index and size checked;
 *   xg_check      per node: datatypes, shapes (inferred and compared with the
 *                 serialized ones), parameters; decides who runs the node:
 *                 Debian's 2022 XNNPACK or pterun's own code;
 *   xg_plan       order of execution, XNNPACK runs (segments), buffers for
 *                 values that cross between XNNPACK and native code, batch
 *                 analysis for inputs whose leading dimension shrinks;
 *   xg_build/run  XNNPACK subgraphs and runtimes, then execution.
 */
#ifndef PTERUN_XNN_GRAPH_H
#define PTERUN_XNN_GRAPH_H

#include <pterun/runtime.h>

#include "xnn_schema.h"

#define XG_MAX_DIMS 6
#define XG_GELU_ROW_MAX 4096 /* longest row a qdint8 convert runs its gelu on (a stack row, n->pre_gelu) */
#define XG_NONE 0xFFFFFFFFu  /* XNN_INVALID_VALUE_ID: absent optional input */
#define XG_MAX_EXTERNS 4096u
#define XG_MAX_VALUES (1u << 20)
#define XG_MAX_NODES (1u << 20)
/* Bounds that keep hostile shapes from turning into giant allocations; far
 * above anything a CPU delegate of this kind runs. */
#define XG_MAX_TENSOR_BYTES ((size_t)1 << 34)
#define XG_MAX_TOTAL_BYTES ((size_t)1 << 35)
/* XNNPACK may read this many bytes past the end of an input or static
 * buffer (XNN_EXTRA_BYTES); buffers we hand it carry this much slack. */
#define XG_EXTRA_BYTES 16u

#define XG_FLAG_EXTERNAL_INPUT 0x1u
#define XG_FLAG_EXTERNAL_OUTPUT 0x2u

/* Who runs a node (dead nodes: outputs unused, never run). */
enum { XG_EXEC_XNN = 1, XG_EXEC_NATIVE = 2, XG_EXEC_DEAD = 3 };

typedef struct xg_value {
  uint32_t id_out;
  int32_t datatype;   /* XG_DT_* */
  uint8_t value_type; /* XG_VALUE_TENSOR / XG_VALUE_QUANTIZED */
  uint8_t quant_type; /* XG_QP_* for quantized values */
  uint8_t ndims;
  uint8_t has_data;     /* static (constant) value */
  uint8_t half;         /* serialized as fp16, runs as fp32: constants widened at parse, arguments at run */
  int32_t dq_datatype;  /* runtime_schema.fbs only: dynamic-quantization target */
  uint32_t external_id; /* XG_NONE unless flagged external */
  uint32_t flags;       /* XG_FLAG_EXTERNAL_* */
  size_t dims[XG_MAX_DIMS];
  size_t numel;
  size_t nbytes; /* bytes of the data: numel * esize (4-bit types: packed, two per byte) */
  uint8_t esize; /* bytes per element: 4 for fp32, qint32, qcint32; 1 for the int8 types; 0 for 4-bit */
  /* Quantization parameters (quantized values), checked at parse:
   * per tensor: scale > 0 and finite, zero_point in the datatype's range;
   * per channel (and per channel group): `nscales` scales (copied, aligned)
   * along `channel_dim`, groups of `group_size` elements along the other
   * dimension; per token: `nonbatch_dims` trailing dims share a scale. */
  float scale;
  int32_t zero_point;
  uint32_t channel_dim, nscales, group_size, nonbatch_dims;
  const float *scales;
  bool conv_filter; /* a per-channel [N, K] filter that XNNPACK takes as [N, 1, 1, K] (xnn_nodes.c) */
  bool qd8_rows;    /* qdint8 rows stored quantized by their convert (xg_qd8_rows_fit) */
  const void *data; /* static data */
  size_t data_size;
  int32_t producer; /* index of the node that writes it, -1 if none */
  bool index_out;   /* an index output of its producer (int64 or int32 data) */
  uint32_t uses;    /* number of node inputs that read it */
} xg_value;

typedef struct xg_conv_params {
  uint32_t pad_top, pad_right, pad_bottom, pad_left, kernel_h, kernel_w, sub_h, sub_w, dil_h, dil_w, group_in,
      group_out, groups, adj_h, adj_w;
} xg_conv_params;

typedef struct xg_pool_params {
  uint32_t pad_top, pad_right, pad_bottom, pad_left, pool_h, pool_w, stride_h, stride_w, dil_h, dil_w;
} xg_pool_params;

typedef struct xg_node {
  uint8_t type; /* enum xg_node_type */
  uint8_t nin;
  uint8_t nout;
  uint8_t exec;      /* XG_EXEC_*, set by xg_check */
  uint8_t copy_like; /* the node only copies bytes (reshape, copy, a transpose of size-1 dims) */
  uint8_t quant;     /* a value of the node is quantized (set by xg_check) */
  uint8_t dyn;       /* fully connected on dynamically quantized (qdint8) rows: pterun's int8 product */
  uint8_t sq;        /* static int8 convolution or fully connected on pterun's int8 product */
  uint8_t direct;    /* an int8 node 2022 XNNPACK lacks or refuses: k_qconv_direct, a byte clamp */
  uint8_t approx;    /* a native gelu whose output is only quantized next (xg_fuse_quant_tables) */
  uint8_t pre_gelu;  /* a qdint8 convert that takes its gelu over: rows through k_vgelu_q, then quantized */
  const void *qw;    /* its weights packed for the kernel layer (k_qgemm_packed), with scratch for */
  void *qscratch;    /* the rows it quantizes; both live as long as the delegate */
  size_t qscratch_bytes;
  const float *fc_packed; /* fp32 fully connected run natively: its constant filter packed (k_sgemm_pack_b) */
  const void *conv_plan;  /* fp32 convolution run natively: its packed filter and sizes (xnn_conv.c) */
  uint32_t flags;
  uint32_t debug_handle;
  float out_min, out_max; /* -inf/+inf when the node has no OutputMinMax */
  uint32_t in[5];         /* value indices; XG_NONE for an absent optional input */
  uint32_t out[2];
  union {
    xg_conv_params conv;
    xg_pool_params pool;
    struct {
      uint32_t ndims;
      uint32_t perm[XG_MAX_DIMS];
    } transpose;
    struct {
      uint32_t new_h, new_w;
    } resize;
    struct {
      uint32_t ndims;
      size_t pre[XG_MAX_DIMS], post[XG_MAX_DIMS];
      float value;
    } pad;
    struct {
      uint32_t ndims;
      size_t shape[XG_MAX_DIMS];
    } reshape;
    struct {
      uint32_t ndims;
      size_t offsets[XG_MAX_DIMS], sizes[XG_MAX_DIMS];
    } slice;
    struct {
      uint32_t axis;
    } cat;
    struct {
      float alpha;
    } act; /* leaky relu slope, elu alpha */
  } p;
} xg_node;

/* ---- the run-time workspace ----
 * What a delegate writes only while it runs and never reads in a later run
 * (the arena of intermediates, packing and im2col space, staging of
 * arguments) is reserved at init as a slot and a size (xg_ws_reserve), laid
 * out in one block (xg_ws_layout) and pointed into the memory a run is given
 * (xg_ws_bind). Under the runtime that memory is the method's scratch, lent
 * in turn to each of its kernels and delegates (instructions never overlap):
 * a delegate's intermediates land in lines the one before left in cache, not
 * in memory of their own (ViT's 18 delegates wrote 10 MB of arenas a run,
 * and its attention products ran a quarter slower for it). */
typedef struct xg_ws_ref {
  void **slot;
  size_t bytes, offset;
  struct xg_ws_ref *next;
} xg_ws_ref;

typedef struct xg_ws {
  xg_ws_ref *refs, *last; /* in reservation order */
  size_t bytes;           /* the layout's size (xg_ws_layout) */
  const void *base;       /* what the slots point into (NULL: not bound yet) */
} xg_ws;

typedef struct xg_graph {
  xg_value *values;
  uint32_t nvalues;
  xg_node *nodes;
  uint32_t nnodes;
  uint32_t num_externs;
  bool legacy; /* no XNNHeader: constants live in XNNGraph.constant_buffer */
  /* Packing space of the native fully connected products (native steps run
   * one at a time), so each packs B once per call, not once per stack block.
   * Both scratches are in the workspace. */
  void *fc_scratch;
  size_t fc_scratch_bytes;
  void *col_scratch; /* the native fp32 convolutions' im2col rows (xnn_conv.c) */
  size_t col_scratch_floats;
  xg_ws ws;
} xg_graph;

/* ---- memory ---- */

/* Memory that lives as long as a delegate. With `ctx` set (the backend's
 * init) it is the method's (pte_backend_alloc, so the caller's
 * pte_allocator), freed with the method; every allocation the delegate makes
 * comes from here, working arrays of parse, check and plan included. Without
 * a context (the internal tests and the fuzzer, which have no method) blocks
 * come from malloc and xg_mem_release frees them: the one fallback.
 * Allocations are zeroed and 64-byte aligned. */
typedef struct xg_block xg_block;
typedef struct xg_mem {
  pte_backend_init_ctx *ctx;
  xg_block *blocks;
  size_t bytes;
} xg_mem;

void *xg_mem_alloc(xg_mem *m, size_t size);
/* `n` elements of `size` bytes; NULL when that overflows or fails. */
void *xg_mem_array(xg_mem *m, size_t n, size_t size);
void xg_mem_release(xg_mem *m);

/* Reserves `bytes` of the workspace for the buffer `*slot` points to (NULL
 * until bound); the same slot again keeps the larger size. */
pte_status xg_ws_reserve(xg_graph *g, xg_mem *mem, void **slot, size_t bytes);
/* Offsets of every reservation, 64-byte aligned; the layout's bytes. */
size_t xg_ws_layout(xg_graph *g);
/* Points every slot into `base` (64-byte aligned, the layout's bytes). */
void xg_ws_bind(xg_graph *g, void *base);

/* ---- parse ---- */

/* Named data lookup (SHA-256 keys of the program or an attached .ptd). */
typedef pte_status (*xg_named_fn)(void *user, const char *key, const void **data, size_t *size);

pte_status xg_parse(const void *blob, size_t size, xg_named_fn named, void *named_user, xg_mem *mem,
                    xg_graph *out);

/* ---- check ---- */

typedef struct xg_check_options {
  bool prefer_native;  /* run every node pterun can run itself natively (tests) */
  bool prefer_xnnpack; /* ignore the rows' preferences: every node XNNPACK can run on it (tests) */
} xg_check_options;

/* `mem` holds its working list (dead-node elimination). */
pte_status xg_check(xg_graph *g, const xg_check_options *opts, xg_mem *mem);

/* Error helper: "node N (XNNType, debug handle D): message". */
pte_status xg_node_error(const xg_graph *g, uint32_t node, pte_status st, const char *fmt, ...)
    PTE_PRINTF(4, 5);

/* Put a prefix in front of the current error message (pte_error must not
 * be given pte_last_error() itself: it formats into that buffer). */
pte_status xg_error_prefix(pte_status st, const char *fmt, ...) PTE_PRINTF(2, 3);

/* True when the node's input `slot` is one whose data XNNPACK copies into
 * packed weights when the runtime is created (so the original bytes may go). */
bool xg_input_is_packed(const xg_node *n, uint32_t slot);

/* ---- plan ---- */

enum { XG_STEP_XNN = 1, XG_STEP_NATIVE = 2 };

typedef struct xg_step {
  uint8_t kind;
  uint32_t index; /* segment index (XNN) or node index (native) */
  int64_t debug_id;
  const char *name; /* tracer event name */
} xg_step;

typedef struct xg_segment {
  uint32_t first, count; /* range in xg_plan.seg_nodes */
  uint32_t nexternal;    /* values crossing the segment boundary */
  uint32_t ext_first;    /* range in xg_plan.seg_ext */
} xg_segment;

/* Where a value's bytes are during a run. */
enum {
  XG_LOC_NONE = 0,
  XG_LOC_STATIC,
  XG_LOC_ARENA,
  XG_LOC_EXTERNAL,
  XG_LOC_XNN_INTERNAL,
  XG_LOC_BOUND /* a native copy of a delegate input: the bound input itself (its external_id) */
};

typedef struct xg_plan {
  xg_step *steps;
  uint32_t nsteps;
  xg_segment *segs;
  uint32_t nsegs;
  uint32_t *seg_nodes; /* node indices of all segments, segment by segment */
  uint32_t *seg_ext;   /* value indices crossing each segment's boundary */
  uint32_t *node_seg;  /* per node: its segment, XG_NONE for native nodes */
  uint8_t *loc;        /* per value: XG_LOC_* */
  size_t *offset;      /* per value: offset in the arena (XG_LOC_ARENA) */
  size_t arena_size;
  uint32_t *ext_value; /* per external id: value index, XG_NONE if unused */
  uint32_t nargs;      /* 1 + largest external id in use */
  size_t max_external_bytes;
  size_t xnn_internal_bytes; /* values XNNPACK keeps inside its runtimes (workspace bound) */
  size_t static_copy_bytes;  /* static data copied (misaligned or read at run time) */
  uint8_t *static_copy;      /* per value: 1 if its static data must be copied */
  /* Batch: inputs whose leading dimension may shrink at run time. */
  bool batchable;
  size_t batch_max;
  uint32_t row_dims;           /* leading dims that are independent rows (1: dim 0 alone) */
  size_t row_max[XG_MAX_DIMS]; /* their built sizes (the upper bounds) */
  uint8_t *batched;            /* per value: carries the rows as its leading row_dims dims */
} xg_plan;

pte_status xg_make_plan(xg_graph *g, xg_mem *mem, xg_plan *plan);

/* ---- native kernels ---- */

/* Whether qdint8 value v's buffer (fp32-sized) holds its rows quantized: M
 * k_qd8_params, then M rows of K int8. Then the convert that makes them
 * quantizes each row once, for every fully connected node reading them. */
bool xg_qd8_rows_fit(const xg_value *v);
/* Elements of a qdint8 value that share one k_qd8_params: its trailing
 * num_nonbatch_dims dims (a token's features; an image's pixels). */
size_t xg_qd8_row_len(const xg_value *v);
/* A float bound in o's int8 steps, clamped to int8 (an infinite one: inf). */
int32_t xg_quant_bound(float v, const xg_value *o, int32_t inf);

/* Run one node with pterun's own code. ptr[k] are the data pointers of the
 * node's inputs (k < nin) and outputs (nin + k); `index_int64` says the
 * ArgMax index output is int64 (else int32). */
pte_status xg_native_run(const xg_graph *g, uint32_t node, void *const *ptr, bool index_int64);

/* Packs the weights of a dynamically quantized fully connected node (n->dyn)
 * or a static int8 convolution or fully connected one (n->sq, with its
 * im2col scratch) for the kernel layer's int8 product, into `mem`. */
pte_status xg_native_prepare(xg_graph *g, uint32_t node, xg_mem *mem);

/* One fp32 value to qint8 with o's parameters, as xg_native_convert does it. */
int8_t xg_quantize_value(float x, const xg_value *o);

/* qint8 -> fp32 convert, constant pad, fp32 -> qint8 convert becomes one
 * native qint8 pad through a byte table (xnn_quant.c). */
pte_status xg_fuse_quant_pads(xg_graph *g, xg_mem *mem);
/* qint8 -> fp32 convert, a native unary function, fp32 -> qint8 convert
 * becomes one native qint8 -> qint8 convert through a byte table; a native
 * gelu read only by a quantizing convert otherwise gets n->approx. */
pte_status xg_fuse_quant_tables(xg_graph *g, xg_mem *mem);

/* fp32 -> qint8 convert, qint8 multiply by a one-element qint8 value, qint8
 * -> fp32 convert (ViT's attention scale) becomes the multiply node alone,
 * fp32 in and out, in one pass (the factor read at execute: it may be a
 * delegate input). The node's n->qscratch: the dropped qint8 values (their
 * parameters). */
/* fp32 multiply by a one-element value, add of a broadcast mask, softmax
 * becomes the softmax alone with inputs (x, scale, mask) (xnn_quant.c). */
pte_status xg_fuse_softmax_prologue(xg_graph *g);

typedef struct xg_qmulc {
  uint32_t q_in, q_out;
} xg_qmulc;

/* A native static int8 convolution or depthwise one (prepared) requantizes
 * its outputs again in its epilogue, as k_requant_s8 with these parameters
 * would over the stored tensor (`table`: 256 bytes for the results by value,
 * filled here, living as long as the delegate); false when the node cannot. */
bool xg_native_fuse_requant(xg_node *n, int32_t zin, float scale, float inv, int32_t zout, int8_t *table);
/* The same node's output bounds narrowed to a following clamp's [lo, hi]
 * (quantized as XNNPACK quantizes bounds); false when it cannot. */
bool xg_native_fuse_clamp(const xg_graph *g, xg_node *n, float lo, float hi);

/* qint8 clamps, requantizing and empty qint8 pads fused into the native
 * int8 nodes around them: clamps into the producer's bounds, the requantization into the producing
 * convolution's epilogue, the padding into the consuming depthwise convolution's, an empty pad's readers onto
 * its input (xnn_quant.c). Runs after xg_fuse_quant_pads. */
pte_status xg_fuse_quant_producers(xg_graph *g, xg_mem *mem);

/* An fp32 fully connected node that runs natively gets packing space (one
 * per graph) and its constant filter packed once (n->fc_packed), in `mem`;
 * a native fp32 batch matmul gets a slice of that space per thread; other
 * nodes are left. */
pte_status xg_native_prepare_fc(xg_graph *g, uint32_t node, xg_mem *mem);
/* An fp32 convolution run natively: its filter packed once, scratch sized. */
pte_status xg_native_prepare_conv(xg_graph *g, uint32_t node, xg_mem *mem);

/* fp32 pads of nothing bypassed, fp32 zero pads of H and W folded into the
 * XNNPACK convolution reading them (xnn_conv.c). Runs after the checks. */
pte_status xg_fold_pads(xg_graph *g, xg_mem *mem);
/* fp32 [expand 1x1] -> depthwise -> project 1x1 chains of native nodes over
 * maps larger than a quarter of L2 fused into the project node, run in row
 * bands (xnn_fuse.c; PTERUN_XNNPACK_FUSE=0: node by node). Runs after
 * xg_fold_pads (the depthwise padding is final). */
pte_status xg_fuse_conv_chains(xg_graph *g, xg_mem *mem);

/* True if pterun's own code can run this node type. */
bool xg_native_supports(const xg_graph *g, const xg_node *n);

#endif
