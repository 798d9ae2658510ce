/* program.fbs and flat_tensor.fbs described for the verifier. Field order
 * follows the schema files shipped in the executorch package. */
#include "schema.h"

static const pte_fb_table t_null = {"Null", 0, 0};
PTE_FB_TABLE_DEF(t_int, "Int", PTE_FB_SCALAR_F("int_val", 8));
PTE_FB_TABLE_DEF(t_bool, "Bool", PTE_FB_SCALAR_F("bool_val", 1));
PTE_FB_TABLE_DEF(t_double, "Double", PTE_FB_SCALAR_F("double_val", 8));
PTE_FB_TABLE_DEF(t_string, "String", PTE_FB_STRING_F("string_val"));
PTE_FB_TABLE_DEF(t_intlist, "IntList", PTE_FB_VEC_SCALAR_F("items", 8));
PTE_FB_TABLE_DEF(t_doublelist, "DoubleList", PTE_FB_VEC_SCALAR_F("items", 8));
PTE_FB_TABLE_DEF(t_boollist, "BoolList", PTE_FB_VEC_SCALAR_F("items", 1));
PTE_FB_TABLE_DEF(t_tensorlist, "TensorList", PTE_FB_VEC_SCALAR_F("items", 4));
PTE_FB_TABLE_DEF(t_opttensorlist, "OptionalTensorList", PTE_FB_VEC_SCALAR_F("items", 4));
PTE_FB_TABLE_DEF(t_alloc, "AllocationDetails", PTE_FB_SCALAR_F("memory_id", 4),
                 PTE_FB_SCALAR_F("memory_offset_low", 4), PTE_FB_SCALAR_F("memory_offset_high", 4));
PTE_FB_TABLE_DEF(t_extra, "ExtraTensorInfo", PTE_FB_SCALAR_F("mutable_data_segments_idx", 8),
                 PTE_FB_STRING_F("fully_qualified_name"), PTE_FB_SCALAR_F("location", 1),
                 PTE_FB_SCALAR_F("device_type", 1), PTE_FB_SCALAR_F("device_index", 1));
PTE_FB_TABLE_DEF(t_tensor, "Tensor", PTE_FB_SCALAR_F("scalar_type", 1), PTE_FB_SCALAR_F("storage_offset", 4),
                 PTE_FB_VEC_SCALAR_F("sizes", 4), PTE_FB_VEC_SCALAR_F("dim_order", 1),
                 PTE_FB_SCALAR_F("requires_grad", 1), PTE_FB_SCALAR_F("data_buffer_idx", 4),
                 PTE_FB_TABLE_F("allocation_info", t_alloc), PTE_FB_SCALAR_F("layout", 1),
                 PTE_FB_SCALAR_F("shape_dynamism", 1), PTE_FB_TABLE_F("extra_tensor_info", t_extra));

static const pte_fb_table *const kernel_types[] = {&t_null,     &t_int,        &t_bool,         &t_double,
                                                   &t_tensor,   &t_string,     &t_intlist,      &t_doublelist,
                                                   &t_boollist, &t_tensorlist, &t_opttensorlist};
PTE_FB_TABLE_DEF(t_evalue, "EValue", PTE_FB_UNION_TYPE_F("val_type"), PTE_FB_UNION_F("val", kernel_types));

PTE_FB_TABLE_DEF(t_kernelcall, "KernelCall", PTE_FB_SCALAR_F("op_index", 4), PTE_FB_VEC_SCALAR_F("args", 4));
PTE_FB_TABLE_DEF(t_delegatecall, "DelegateCall", PTE_FB_SCALAR_F("delegate_index", 4),
                 PTE_FB_VEC_SCALAR_F("args", 4));
PTE_FB_TABLE_DEF(t_movecall, "MoveCall", PTE_FB_SCALAR_F("move_from", 4), PTE_FB_SCALAR_F("move_to", 4));
PTE_FB_TABLE_DEF(t_jumpfalse, "JumpFalseCall", PTE_FB_SCALAR_F("cond_value_index", 4),
                 PTE_FB_SCALAR_F("destination_instruction", 4));
PTE_FB_TABLE_DEF(t_freecall, "FreeCall", PTE_FB_SCALAR_F("value_index", 4));
static const pte_fb_table *const instruction_args[] = {&t_kernelcall, &t_delegatecall, &t_movecall,
                                                       &t_jumpfalse, &t_freecall};
PTE_FB_TABLE_DEF(t_instruction, "Instruction", PTE_FB_UNION_TYPE_F("instr_args_type"),
                 PTE_FB_UNION_F("instr_args", instruction_args));

PTE_FB_TABLE_DEF(t_frame, "Frame", PTE_FB_STRING_F("filename"), PTE_FB_SCALAR_F("lineno", 4),
                 PTE_FB_STRING_F("name"), PTE_FB_STRING_F("context"));
PTE_FB_TABLE_DEF(t_framelist, "FrameList", PTE_FB_VEC_TABLE_F("items", t_frame));
PTE_FB_TABLE_DEF(t_chain, "Chain", PTE_FB_VEC_SCALAR_F("inputs", 4), PTE_FB_VEC_SCALAR_F("outputs", 4),
                 PTE_FB_VEC_TABLE_F("instructions", t_instruction),
                 PTE_FB_VEC_TABLE_F("stacktrace", t_framelist));
PTE_FB_TABLE_DEF(t_operator, "Operator", PTE_FB_STRING_F("name"), PTE_FB_STRING_F("overload"));
PTE_FB_TABLE_DEF(t_dataref, "BackendDelegateDataReference", PTE_FB_SCALAR_F("location", 1),
                 PTE_FB_SCALAR_F("index", 4));
PTE_FB_TABLE_DEF(t_compilespec, "CompileSpec", PTE_FB_STRING_F("key"), PTE_FB_VEC_SCALAR_F("value", 1));
PTE_FB_TABLE_DEF(t_delegate, "BackendDelegate", PTE_FB_STRING_F("id"), PTE_FB_TABLE_F("processed", t_dataref),
                 PTE_FB_VEC_TABLE_F("compile_specs", t_compilespec));
PTE_FB_TABLE_DEF(t_container, "ContainerMetadata", PTE_FB_STRING_F("encoded_inp_str"),
                 PTE_FB_STRING_F("encoded_out_str"));
PTE_FB_TABLE_DEF(t_bufdevice, "NonConstBufferDevice", PTE_FB_SCALAR_F("buffer_idx", 4),
                 PTE_FB_SCALAR_F("device_type", 1), PTE_FB_SCALAR_F("device_index", 1));
PTE_FB_TABLE_DEF(t_plan, "ExecutionPlan", PTE_FB_STRING_F("name"),
                 PTE_FB_TABLE_F("container_meta_type", t_container), PTE_FB_VEC_TABLE_F("values", t_evalue),
                 PTE_FB_VEC_SCALAR_F("inputs", 4), PTE_FB_VEC_SCALAR_F("outputs", 4),
                 PTE_FB_VEC_TABLE_F("chains", t_chain), PTE_FB_VEC_TABLE_F("operators", t_operator),
                 PTE_FB_VEC_TABLE_F("delegates", t_delegate),
                 PTE_FB_VEC_SCALAR_F("non_const_buffer_sizes", 8),
                 PTE_FB_VEC_TABLE_F("non_const_buffer_device", t_bufdevice));
PTE_FB_TABLE_DEF(t_buffer, "Buffer", PTE_FB_VEC_SCALAR_F("storage", 1));
PTE_FB_TABLE_DEF(t_inlinedata, "BackendDelegateInlineData", PTE_FB_VEC_SCALAR_F("data", 1));
PTE_FB_TABLE_DEF(t_segment, "DataSegment", PTE_FB_SCALAR_F("offset", 8), PTE_FB_SCALAR_F("size", 8));
PTE_FB_TABLE_DEF(t_subseg, "SubsegmentOffsets", PTE_FB_SCALAR_F("segment_index", 4),
                 PTE_FB_VEC_SCALAR_F("offsets", 8));
PTE_FB_TABLE_DEF(t_nameddata, "NamedData", PTE_FB_STRING_F("key"), PTE_FB_SCALAR_F("segment_index", 4));

static const pte_fb_slot program_fields[] = {PTE_FB_SCALAR_F("version", 4),
                                             PTE_FB_VEC_TABLE_F("execution_plan", t_plan),
                                             PTE_FB_VEC_TABLE_F("constant_buffer", t_buffer),
                                             PTE_FB_VEC_TABLE_F("backend_delegate_data", t_inlinedata),
                                             PTE_FB_VEC_TABLE_F("segments", t_segment),
                                             PTE_FB_TABLE_F("constant_segment", t_subseg),
                                             PTE_FB_VEC_TABLE_F("mutable_data_segments", t_subseg),
                                             PTE_FB_VEC_TABLE_F("named_data", t_nameddata)};
const pte_fb_table pte_schema_program = {"Program", PTE_FB_COUNTOF(program_fields), program_fields};

PTE_FB_TABLE_DEF(t_ftlayout, "TensorLayout", PTE_FB_SCALAR_F("scalar_type", 1),
                 PTE_FB_VEC_SCALAR_F("sizes", 4), PTE_FB_VEC_SCALAR_F("dim_order", 1));
PTE_FB_TABLE_DEF(t_ftnameddata, "NamedData", PTE_FB_STRING_F("key"), PTE_FB_SCALAR_F("segment_index", 4),
                 PTE_FB_TABLE_F("tensor_layout", t_ftlayout));
static const pte_fb_slot flat_tensor_fields[] = {PTE_FB_SCALAR_F("version", 4),
                                                 PTE_FB_VEC_TABLE_F("segments", t_segment),
                                                 PTE_FB_VEC_TABLE_F("named_data", t_ftnameddata)};
const pte_fb_table pte_schema_flat_tensor = {"FlatTensor", PTE_FB_COUNTOF(flat_tensor_fields),
                                             flat_tensor_fields};
