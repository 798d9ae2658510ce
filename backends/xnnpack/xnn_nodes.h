/* What the delegate knows about each XNNPACK node type, in one row per type
 * (xnn_nodes.def, expanded in xnn_nodes.c). Parsing, checking, planning,
 * building and native execution are generic drivers over these rows; adding
 * a node type is adding a row (and the functions it names when no existing
 * one fits). */
#ifndef PTERUN_XNN_NODES_H
#define PTERUN_XNN_NODES_H

#include "xnn_api.h"
#include "xnn_graph.h"

/* A node's table in the verified flatbuffer, for the parameter readers. */
typedef struct xg_fb_node {
  pte_fb fb;
  uint32_t table;
  const xg_graph *g;
  uint32_t node;
} xg_fb_node;

uint32_t xg_fb_u32(const xg_fb_node *r, int slot);
float xg_fb_f32(const xg_fb_node *r, int slot);
/* A [uint] vector field that must have exactly `n` (<= XG_MAX_DIMS) entries. */
pte_status xg_fb_dims(const xg_fb_node *r, int slot, const char *what, uint32_t n, size_t *out);

/* Runs a node with pterun's own code (ptr: inputs then outputs, as in
 * xg_native_run). */
typedef void xg_native_fn(const xg_graph *g, const xg_node *n, void *const *ptr, bool index_int64);

typedef struct xg_node_desc {
  /* Schema: the node's table and where it keeps ids and flags; nin overrides
   * the layout's input count (concatenations share one table). */
  const xg_layout *layout;
  uint8_t nin;
  /* Reads the parameters into n->p (NULL: none). Errors name the node. */
  pte_status (*params)(const xg_fb_node *r, xg_node *n);
  /* Checks, in this order: inputs of rank 4 (bit k: input k), the flags
   * allowed, then `check` (output shape inferred and compared, parameters).
   * `check` clears *xnn_ok when 2022 XNNPACK cannot run these parameters. */
  uint8_t rank4;
  uint32_t flags;
  uint8_t copy; /* the node only copies bytes: it may run inside an XNNPACK runtime or as a memcpy */
  /* Static int8 (XG_Q_*): which quantized values the node takes, and who
   * may run it then. 0: fp32 only. */
  uint8_t quant;
  pte_status (*check)(xg_graph *g, uint32_t ni, bool *xnn_ok);
  /* XNNPACK: the xnn_define_* call (NULL: 2022 XNNPACK lacks the node).
   * in/out are the node's XNNPACK value ids. */
  enum xnn_status (*define)(const xnn_api *a, xnn_subgraph_t sg, const xg_graph *g, const xg_node *n,
                            const uint32_t *in, const uint32_t *out);
  /* pterun's own code (NULL: none); its compute lives in xnn_native.c. */
  xg_native_fn *native;
  /* True when the node keeps the leading r >= 1 dims as independent rows,
   * given which inputs carry them (NULL: never). */
  bool (*batch)(const xg_graph *g, const xg_node *n, const uint8_t *batched, uint32_t r);
  /* The output's dims (rank as built) from the inputs' dims at run time in
   * `real` (the built graph is g), for pterun's own kernels at a shape below
   * the bound; false when they do not follow (NULL: the node runs at another
   * shape only with unchanged inputs). */
  bool (*shape)(const xg_graph *real, const xg_graph *g, const xg_node *n, int64_t *dims);
  /* Where an fp32 node runs when both can run it (XG_PREFER_*): pterun's
   * own code for the types where it measured faster than Debian's 2022
   * XNNPACK (whose f32 GEMM is a 7x16 broadcast kernel), XNNPACK else. */
  uint8_t prefer;
  uint8_t packed;     /* bit k: XNNPACK packs input k when the runtime is created */
  uint8_t index_outs; /* bit k: output k holds int indices (int64 or int32 at run time) */
  /* Arithmetic estimate for the runtime's threading decision (NULL: one
   * operation per output element). */
  double (*work)(const xg_graph *g, const xg_node *n);
} xg_node_desc;

enum { XG_PREFER_XNN = 0, XG_PREFER_NATIVE };

/* XG_Q_XNN: qint8 activations (and, for the packed inputs, qint8/qcint8
 * filters and qint32/qcint32 biases), on XNNPACK only; XG_Q_BYTES: a copy of
 * bytes whose inputs and output are qint8 with equal parameters, on either;
 * XG_Q_CONVERT: fp32 to qint8 or back, on either. */
enum { XG_Q_XNN = 1, XG_Q_BYTES, XG_Q_CONVERT };

/* Checks a node's quantized values against its row (xnn_quant.c): sets
 * n->quant and n->dyn, and clears *xnn_ok for nodes only pterun runs. */
pte_status xg_check_quant(xg_graph *g, uint32_t ni, const xg_node_desc *d, bool *xnn_ok);

/* The row of a node type; NULL outside XNodeUnion. */
const xg_node_desc *xg_node_desc_of(int type);

#endif
