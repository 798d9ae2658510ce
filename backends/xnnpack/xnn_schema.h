/* Slot numbers of the XNNPACK delegate schema (schema.fbs / runtime_schema.fbs
 * in the executorch package: declaration order; a union takes two slots,
 * its type byte then its value; deprecated fields keep their slot). */
#ifndef PTERUN_XNN_SCHEMA_H
#define PTERUN_XNN_SCHEMA_H

#include <pterun/runtime.h>

enum {
  XGRAPH_VERSION,
  XGRAPH_XNODES,
  XGRAPH_XVALUES,
  XGRAPH_NUM_EXTERNS,
  XGRAPH_INPUT_IDS,
  XGRAPH_OUTPUT_IDS,
  XGRAPH_CONSTANT_BUFFER,
  XGRAPH_MEM_BUFFER_SIZES,
  XGRAPH_CONSTANT_DATA
};
enum { XNODE_UNION_TYPE, XNODE_UNION, XNODE_DEBUG_HANDLE, XNODE_OUTPUT_MIN_MAX };
enum { XVALUE_UNION_TYPE, XVALUE_UNION };
enum { MINMAX_MIN, MINMAX_MAX };
enum {
  TV_DATATYPE,
  TV_NUM_DIMS,
  TV_DIMS,
  TV_CONSTANT_BUFFER_IDX,
  TV_EXTERNAL_ID,
  TV_FLAGS,
  TV_ID_OUT,
  TV_DQ_DATATYPE
};
enum { QTV_TENSOR_VALUE, QTV_QUANT_PARAMS_TYPE, QTV_QUANT_PARAMS };
enum { PCQ_SCALE, PCQ_CHANNEL_DIM, PCQ_SCALE_BUFFER_IDX, PCQ_NUM_SCALES };
enum { PTQ_SCALE, PTQ_ZERO_POINT };
enum { PTDQ_NUM_NONBATCH_DIMS };
enum {
  PCGQ_SCALE,
  PCGQ_CHANNEL_DIM,
  PCGQ_GROUP_SIZE,
  PCGQ_SCALE_BF16,
  PCGQ_SCALE_BUFFER_IDX,
  PCGQ_NUM_SCALES
};
enum { BUFFER_STORAGE_ };
enum { CDO_OFFSET, CDO_SIZE, CDO_NAMED_KEY };
/* _XNNNode1x1, _XNNNode2x1 */
enum { N1_INPUT, N1_OUTPUT, N1_FLAGS };
enum { N2_INPUT1, N2_INPUT2, N2_OUTPUT, N2_FLAGS };
enum { CAT_AXIS, CAT_INPUT1, CAT_INPUT2, CAT_INPUT3, CAT_INPUT4, CAT_OUTPUT, CAT_FLAGS, CAT_INPUT5 };
enum {
  CONV_PAD_TOP,
  CONV_PAD_RIGHT,
  CONV_PAD_BOTTOM,
  CONV_PAD_LEFT,
  CONV_KERNEL_H,
  CONV_KERNEL_W,
  CONV_SUB_H,
  CONV_SUB_W,
  CONV_DIL_H,
  CONV_DIL_W,
  CONV_GROUP_IN,
  CONV_GROUP_OUT,
  CONV_GROUPS,
  CONV_ADJ_H,
  CONV_ADJ_W,
  CONV_INPUT,
  CONV_FILTER,
  CONV_BIAS,
  CONV_OUTPUT,
  CONV_FLAGS
};
enum {
  POOL_PAD_TOP,
  POOL_PAD_RIGHT,
  POOL_PAD_BOTTOM,
  POOL_PAD_LEFT,
  POOL_H,
  POOL_W,
  POOL_STRIDE_H,
  POOL_STRIDE_W,
  POOL_DIL_H,
  POOL_DIL_W,
  POOL_INPUT,
  POOL_OUTPUT,
  POOL_FLAGS
};
enum { FC_INPUT, FC_FILTER, FC_BIAS, FC_OUTPUT, FC_FLAGS };
enum { TR_NUM_DIMS, TR_PERM, TR_INPUT, TR_OUTPUT, TR_FLAGS };
enum { RS_NEW_H, RS_NEW_W, RS_INPUT, RS_OUTPUT, RS_FLAGS };
enum { PAD_PRE, PAD_POST, PAD_VALUE, PAD_INPUT, PAD_OUTPUT, PAD_FLAGS };
enum { RE_NUM_DIMS, RE_NEW_SHAPE, RE_INPUT, RE_OUTPUT, RE_FLAGS };
enum { SL_NUM_DIMS, SL_OFFSETS, SL_SIZES, SL_INPUT, SL_OUTPUT, SL_FLAGS };
enum {
  AMP_PAD_TOP,
  AMP_PAD_RIGHT,
  AMP_PAD_BOTTOM,
  AMP_PAD_LEFT,
  AMP_POOL_H,
  AMP_POOL_W,
  AMP_INPUT,
  AMP_OUTPUT_VALUE,
  AMP_OUTPUT_INDEX,
  AMP_FLAGS
};
enum { LRELU_SLOPE, LRELU_INPUT, LRELU_OUTPUT, LRELU_FLAGS };
enum { ELU_ALPHA, ELU_INPUT, ELU_OUTPUT, ELU_FLAGS };
enum { SDPA_Q, SDPA_K, SDPA_V, SDPA_SCALE, SDPA_MASK, SDPA_OUTPUT, SDPA_FLAGS };

/* XNodeUnion member codes, from the node table (xnn_nodes.def). */
enum xg_node_type {
  XG_NODE_NONE_ = 0,
#define XG_NODE(code, id, ...) XG_##code,
#include "xnn_nodes.def"
#undef XG_NODE
  XG_NODE_TYPE_END /* one past the last code */
};

/* XValueUnion and XNNQuantParams member codes. */
enum { XG_VALUE_TENSOR = 1, XG_VALUE_QUANTIZED = 2 };
enum { XG_QP_PER_CHANNEL = 1, XG_QP_PER_TENSOR, XG_QP_PER_TOKEN_DYNAMIC, XG_QP_PER_CHANNEL_GROUP };

/* XNNDatatype codes. */
enum {
  XG_DT_INVALID = 0,
  XG_DT_FP32,
  XG_DT_FP16,
  XG_DT_QINT8,
  XG_DT_QUINT8,
  XG_DT_QINT32,
  XG_DT_QCINT8,
  XG_DT_QCINT32,
  XG_DT_QCINT4,
  XG_DT_QDINT8,
  XG_DT_QBINT4,
  XG_DT_QPINT8,
  XG_DT_INT32,
  XG_DT_PFP32,
  XG_DT_BF16
};

extern const pte_fb_table xg_schema_graph;

/* Where a node table keeps its value ids and flags (slot numbers). One per
 * table of schema.fbs that XNodeUnion names, defined next to the table. */
typedef struct xg_layout {
  const pte_fb_table *table;
  uint8_t nin, nout; /* inputs and outputs the table can hold */
  int8_t in[5], out[2], flags;
  uint8_t optional; /* bit k: input k may be absent (XG_NONE) */
} xg_layout;

extern const xg_layout xg_layout_node_1x1, xg_layout_node_2x1, xg_layout_cat, xg_layout_conv, xg_layout_pool,
    xg_layout_fc, xg_layout_transpose, xg_layout_resize, xg_layout_pad, xg_layout_reshape, xg_layout_slice,
    xg_layout_sdpa, xg_layout_argmax, xg_layout_leaky_relu, xg_layout_elu;

/* "XNNFullyConnected" etc.; "unknown XNode type" for codes out of range. */
const char *xg_node_type_name(int type);
/* "fp32", "qint8 (...)" etc. */
const char *xg_datatype_name(int datatype);
/* Bytes per element (0: 4-bit, two per byte). */
unsigned xg_datatype_size(int datatype);
/* The dtype of an ExecuTorch tensor holding a delegate argument of this
 * datatype (a quantized value's tensor is its raw integers); -1: none. */
int xg_datatype_arg_dtype(int datatype);
/* The XNNQuantParams member a quantized datatype needs (0: not a quantized datatype). */
int xg_datatype_quant(int datatype);

#endif
