/* The XNNPACK delegate schema described for pte_fb_verify. Field order
 * follows schema.fbs from the executorch package; the one field that only
 * runtime_schema.fbs has (XNNTensorValue.dq_datatype) is appended, which is
 * harmless for files written with schema.fbs (the slot is simply absent). */
#include "xnn_schema.h"

#include <stdio.h>

#define U32(nm) PTE_FB_SCALAR_F(nm, 4)

PTE_FB_TABLE_DEF(t_per_channel, "PerChannelQuant", PTE_FB_VEC_SCALAR_F("scale", 4),
                 PTE_FB_SCALAR_F("channel_dim", 4), U32("scale_buffer_idx"), U32("num_scales"));
PTE_FB_TABLE_DEF(t_per_tensor, "PerTensorQuant", PTE_FB_SCALAR_F("scale", 4),
                 PTE_FB_SCALAR_F("zero_point", 4));
PTE_FB_TABLE_DEF(t_per_token, "PerTokenDynamicQuant", PTE_FB_SCALAR_F("num_nonbatch_dims", 4));
PTE_FB_TABLE_DEF(t_per_channel_group, "PerChannelGroupQuant", PTE_FB_VEC_SCALAR_F("scale", 4),
                 PTE_FB_SCALAR_F("channel_dim", 4), PTE_FB_SCALAR_F("group_size", 4),
                 PTE_FB_VEC_SCALAR_F("scale_bf16", 2), U32("scale_buffer_idx"), U32("num_scales"));
static const pte_fb_table *const quant_params[] = {&t_per_channel, &t_per_tensor, &t_per_token,
                                                   &t_per_channel_group};

PTE_FB_TABLE_DEF(t_tensor_value, "XNNTensorValue", PTE_FB_SCALAR_F("datatype", 2), U32("num_dims"),
                 PTE_FB_VEC_SCALAR_F("dims", 4), U32("constant_buffer_idx"), U32("external_id"), U32("flags"),
                 U32("id_out"), PTE_FB_SCALAR_F("dq_datatype", 2));
PTE_FB_TABLE_DEF(t_quantized_value, "XNNQuantizedTensorValue", PTE_FB_TABLE_F("tensor_value", t_tensor_value),
                 PTE_FB_UNION_TYPE_F("quant_params_type"), PTE_FB_UNION_F("quant_params", quant_params));
static const pte_fb_table *const value_union[] = {&t_tensor_value, &t_quantized_value};
PTE_FB_TABLE_DEF(t_xvalue, "XValue", PTE_FB_UNION_TYPE_F("xvalue_union_type"),
                 PTE_FB_UNION_F("xvalue_union", value_union));

PTE_FB_TABLE_DEF(t_node_1x1, "_XNNNode1x1", U32("input_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_node_2x1, "_XNNNode2x1", U32("input1_id"), U32("input2_id"), U32("output_id"),
                 U32("flags"));
PTE_FB_TABLE_DEF(t_cat, "_XNNCat", U32("axis"), U32("input1_id"), U32("input2_id"), U32("input3_id"),
                 U32("input4_id"), U32("output_id"), U32("flags"), U32("input5_id"));
PTE_FB_TABLE_DEF(t_conv, "_XNNNodeConv", U32("padding_top"), U32("padding_right"), U32("padding_bottom"),
                 U32("padding_left"), U32("kernel_height"), U32("kernel_width"), U32("subsampling_height"),
                 U32("subsampling_width"), U32("dilation_height"), U32("dilation_width"),
                 U32("group_input_channels"), U32("group_output_channels"), U32("groups"),
                 U32("adjustment_height"), U32("adjustment_width"), U32("input1_id"), U32("filter_id"),
                 U32("bias_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_pool, "_XNNPooling2D", U32("padding_top"), U32("padding_right"), U32("padding_bottom"),
                 U32("padding_left"), U32("pooling_height"), U32("pooling_width"), U32("stride_height"),
                 U32("stride_width"), U32("dilation_height"), U32("dilation_width"), U32("input_id"),
                 U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_fc, "XNNFullyConnected", U32("input1_id"), U32("filter_id"), U32("bias_id"),
                 U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_transpose, "XNNStaticTranspose", U32("num_dims"), PTE_FB_VEC_SCALAR_F("perm", 4),
                 U32("input_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_resize, "XNNStaticResizeBilinear2D", U32("new_height"), U32("new_width"), U32("input_id"),
                 U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_pad, "XNNStaticConstantPad", PTE_FB_VEC_SCALAR_F("pre_paddings", 4),
                 PTE_FB_VEC_SCALAR_F("post_paddings", 4), PTE_FB_SCALAR_F("padding_value", 4),
                 U32("input_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_reshape, "XNNStaticReshape", U32("num_dims"), PTE_FB_VEC_SCALAR_F("new_shape", 4),
                 U32("input_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_slice, "XNNStaticSlice", U32("num_dims"), PTE_FB_VEC_SCALAR_F("offsets", 4),
                 PTE_FB_VEC_SCALAR_F("sizes", 4), U32("input_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_sdpa, "XNNScaledDotProductAttention", U32("query_id"), U32("key_id"), U32("value_id"),
                 U32("scale_id"), U32("mask_id"), U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_argmax, "XNNArgMaxPooling2d", U32("padding_top"), U32("padding_right"),
                 U32("padding_bottom"), U32("padding_left"), U32("pooling_height"), U32("pooling_width"),
                 U32("input_id"), U32("output_value_id"), U32("output_index_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_leaky_relu, "XNNLeakyReLU", PTE_FB_SCALAR_F("negative_slope", 4), U32("input_id"),
                 U32("output_id"), U32("flags"));
PTE_FB_TABLE_DEF(t_elu, "XNNELU", PTE_FB_SCALAR_F("alpha", 4), U32("input_id"), U32("output_id"),
                 U32("flags"));

/* Value-id and flags slots of each node table (slot enums in xnn_schema.h). */
#define LAYOUT(tbl, ...) const xg_layout xg_layout_##tbl = {&t_##tbl, __VA_ARGS__}
LAYOUT(node_1x1, 1, 1, {N1_INPUT}, {N1_OUTPUT}, N1_FLAGS, 0);
LAYOUT(node_2x1, 2, 1, {N2_INPUT1, N2_INPUT2}, {N2_OUTPUT}, N2_FLAGS, 0);
LAYOUT(cat, 5, 1, {CAT_INPUT1, CAT_INPUT2, CAT_INPUT3, CAT_INPUT4, CAT_INPUT5}, {CAT_OUTPUT}, CAT_FLAGS, 0);
LAYOUT(conv, 3, 1, {CONV_INPUT, CONV_FILTER, CONV_BIAS}, {CONV_OUTPUT}, CONV_FLAGS, 0x4);
LAYOUT(pool, 1, 1, {POOL_INPUT}, {POOL_OUTPUT}, POOL_FLAGS, 0);
LAYOUT(fc, 3, 1, {FC_INPUT, FC_FILTER, FC_BIAS}, {FC_OUTPUT}, FC_FLAGS, 0x4);
LAYOUT(transpose, 1, 1, {TR_INPUT}, {TR_OUTPUT}, TR_FLAGS, 0);
LAYOUT(resize, 1, 1, {RS_INPUT}, {RS_OUTPUT}, RS_FLAGS, 0);
LAYOUT(pad, 1, 1, {PAD_INPUT}, {PAD_OUTPUT}, PAD_FLAGS, 0);
LAYOUT(reshape, 1, 1, {RE_INPUT}, {RE_OUTPUT}, RE_FLAGS, 0);
LAYOUT(slice, 1, 1, {SL_INPUT}, {SL_OUTPUT}, SL_FLAGS, 0);
LAYOUT(sdpa, 5, 1, {SDPA_Q, SDPA_K, SDPA_V, SDPA_SCALE, SDPA_MASK}, {SDPA_OUTPUT}, SDPA_FLAGS, 0x1f);
LAYOUT(argmax, 1, 2, {AMP_INPUT}, {AMP_OUTPUT_VALUE, AMP_OUTPUT_INDEX}, AMP_FLAGS, 0);
LAYOUT(leaky_relu, 1, 1, {LRELU_INPUT}, {LRELU_OUTPUT}, LRELU_FLAGS, 0);
LAYOUT(elu, 1, 1, {ELU_INPUT}, {ELU_OUTPUT}, ELU_FLAGS, 0);
#undef LAYOUT

/* XNodeUnion members, from the node table. */
static const pte_fb_table *const node_union[] = {
#define XG_NODE(code, id, name, tbl, ...) [id - 1] = &t_##tbl,
#include "xnn_nodes.def"
#undef XG_NODE
};
_Static_assert(sizeof node_union / sizeof node_union[0] == XG_NODE_TYPE_END - 1,
               "XNodeUnion members and enum xg_node_type disagree");
/* Each row's union code is its position (the enum counts rows). */
#define XG_NODE(code, id, ...) \
  _Static_assert(XG_##code == id, "xnn_nodes.def: " #code " is out of XNodeUnion order");
#include "xnn_nodes.def"
#undef XG_NODE

PTE_FB_TABLE_DEF(t_min_max, "OutputMinMax", PTE_FB_SCALAR_F("output_min", 4),
                 PTE_FB_SCALAR_F("output_max", 4));
PTE_FB_TABLE_DEF(t_xnode, "XNode", PTE_FB_UNION_TYPE_F("xnode_union_type"),
                 PTE_FB_UNION_F("xnode_union", node_union), U32("debug_handle"),
                 PTE_FB_TABLE_F("output_min_max", t_min_max));
PTE_FB_TABLE_DEF(t_buffer, "Buffer", PTE_FB_VEC_SCALAR_F("storage", 1));
PTE_FB_TABLE_DEF(t_constant_data, "ConstantDataOffset", PTE_FB_SCALAR_F("offset", 8),
                 PTE_FB_SCALAR_F("size", 8), PTE_FB_STRING_F("named_key"));

static const pte_fb_slot graph_fields[] = {PTE_FB_STRING_F("version"),
                                           PTE_FB_VEC_TABLE_F("xnodes", t_xnode),
                                           PTE_FB_VEC_TABLE_F("xvalues", t_xvalue),
                                           U32("num_externs"),
                                           PTE_FB_VEC_SCALAR_F("input_ids", 4),
                                           PTE_FB_VEC_SCALAR_F("output_ids", 4),
                                           PTE_FB_VEC_TABLE_F("constant_buffer", t_buffer),
                                           PTE_FB_VEC_SCALAR_F("mem_buffer_sizes", 4),
                                           PTE_FB_VEC_TABLE_F("constant_data", t_constant_data)};
const pte_fb_table xg_schema_graph = {"XNNGraph", PTE_FB_COUNTOF(graph_fields), graph_fields};

static const char *const node_names[] = {
#define XG_NODE(code, id, name, ...) [id - 1] = name,
#include "xnn_nodes.def"
#undef XG_NODE
};

const char *xg_node_type_name(int type) {
  if (type >= 1 && type < XG_NODE_TYPE_END) return node_names[type - 1];
  return "unknown XNode type";
}

const char *xg_datatype_name(int dt) {
  switch (dt) {
    case XG_DT_INVALID: return "invalid";
    case XG_DT_FP32: return "fp32";
    case XG_DT_FP16: return "fp16";
    case XG_DT_QINT8: return "qint8 (statically quantized int8)";
    case XG_DT_QUINT8: return "quint8 (statically quantized uint8)";
    case XG_DT_QINT32: return "qint32 (quantized int32)";
    case XG_DT_QCINT8: return "qcint8 (per-channel quantized int8)";
    case XG_DT_QCINT32: return "qcint32 (per-channel quantized int32)";
    case XG_DT_QCINT4: return "qcint4 (4-bit per-channel quantized)";
    case XG_DT_QDINT8: return "qdint8 (dynamically quantized int8)";
    case XG_DT_QBINT4: return "qbint4 (4-bit blockwise quantized)";
    case XG_DT_QPINT8: return "qpint8 (packed dynamically quantized int8)";
    case XG_DT_INT32: return "int32";
    case XG_DT_PFP32: return "pfp32 (packed fp32)";
    case XG_DT_BF16: return "bf16";
    default: return "unknown datatype";
  }
}

unsigned xg_datatype_size(int dt) {
  switch (dt) {
    case XG_DT_FP16:
    case XG_DT_BF16: return 2;
    case XG_DT_QINT8:
    case XG_DT_QUINT8:
    case XG_DT_QCINT8:
    case XG_DT_QDINT8:
    case XG_DT_QPINT8: return 1;
    case XG_DT_QCINT4:
    case XG_DT_QBINT4: return 0;
    default: return 4;
  }
}

int xg_datatype_arg_dtype(int dt) {
  switch (dt) {
    case XG_DT_FP32: return PTE_FLOAT32;
    case XG_DT_QINT8: return PTE_INT8;
    case XG_DT_QUINT8: return PTE_UINT8;
    case XG_DT_QINT32:
    case XG_DT_INT32: return PTE_INT32;
    default: return -1;
  }
}

int xg_datatype_quant(int dt) {
  switch (dt) {
    case XG_DT_QINT8:
    case XG_DT_QUINT8:
    case XG_DT_QINT32: return XG_QP_PER_TENSOR;
    case XG_DT_QCINT8:
    case XG_DT_QCINT32:
    case XG_DT_QCINT4: return XG_QP_PER_CHANNEL;
    case XG_DT_QBINT4: return XG_QP_PER_CHANNEL_GROUP;
    case XG_DT_QDINT8:
    case XG_DT_QPINT8: return XG_QP_PER_TOKEN_DYNAMIC;
    default: return 0;
  }
}
