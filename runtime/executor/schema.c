/* program.fbs and flat_tensor.fbs described for the verifier. Field order
 * follows the schema files shipped in the executorch package. */
#include "schema.h"

#define N(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))
#define SCALAR(nm, sz) {nm, PTE_FB_SCALAR, sz, 0, 0, 0}
#define STRING(nm) {nm, PTE_FB_STRING, 0, 0, 0, 0}
#define TABLE(nm, t) {nm, PTE_FB_TABLE, 0, 0, &t, 0}
#define VSCALAR(nm, sz) {nm, PTE_FB_VEC_SCALAR, sz, 0, 0, 0}
#define VTABLE(nm, t) {nm, PTE_FB_VEC_TABLE, 0, 0, &t, 0}
#define UTYPE(nm) {nm, PTE_FB_UNION_TYPE, 1, 0, 0, 0}
#define UNION(nm, m) {nm, PTE_FB_UNION, 0, N(m), 0, m}
#define DEFTABLE(var, nm, ...)                     \
  static const pte_fb_slot var##_fields[] = {__VA_ARGS__}; \
  static const pte_fb_table var = {nm, N(var##_fields), var##_fields}

static const pte_fb_table t_null = {"Null", 0, 0};
DEFTABLE(t_int, "Int", SCALAR("int_val", 8));
DEFTABLE(t_bool, "Bool", SCALAR("bool_val", 1));
DEFTABLE(t_double, "Double", SCALAR("double_val", 8));
DEFTABLE(t_string, "String", STRING("string_val"));
DEFTABLE(t_intlist, "IntList", VSCALAR("items", 8));
DEFTABLE(t_doublelist, "DoubleList", VSCALAR("items", 8));
DEFTABLE(t_boollist, "BoolList", VSCALAR("items", 1));
DEFTABLE(t_tensorlist, "TensorList", VSCALAR("items", 4));
DEFTABLE(t_opttensorlist, "OptionalTensorList", VSCALAR("items", 4));
DEFTABLE(t_alloc, "AllocationDetails", SCALAR("memory_id", 4), SCALAR("memory_offset_low", 4),
         SCALAR("memory_offset_high", 4));
DEFTABLE(t_extra, "ExtraTensorInfo", SCALAR("mutable_data_segments_idx", 8),
         STRING("fully_qualified_name"), SCALAR("location", 1), SCALAR("device_type", 1),
         SCALAR("device_index", 1));
DEFTABLE(t_tensor, "Tensor", SCALAR("scalar_type", 1), SCALAR("storage_offset", 4),
         VSCALAR("sizes", 4), VSCALAR("dim_order", 1), SCALAR("requires_grad", 1),
         SCALAR("data_buffer_idx", 4), TABLE("allocation_info", t_alloc), SCALAR("layout", 1),
         SCALAR("shape_dynamism", 1), TABLE("extra_tensor_info", t_extra));

static const pte_fb_table *const kernel_types[] = {
    &t_null, &t_int, &t_bool, &t_double, &t_tensor, &t_string,
    &t_intlist, &t_doublelist, &t_boollist, &t_tensorlist, &t_opttensorlist};
DEFTABLE(t_evalue, "EValue", UTYPE("val_type"), UNION("val", kernel_types));

DEFTABLE(t_kernelcall, "KernelCall", SCALAR("op_index", 4), VSCALAR("args", 4));
DEFTABLE(t_delegatecall, "DelegateCall", SCALAR("delegate_index", 4), VSCALAR("args", 4));
DEFTABLE(t_movecall, "MoveCall", SCALAR("move_from", 4), SCALAR("move_to", 4));
DEFTABLE(t_jumpfalse, "JumpFalseCall", SCALAR("cond_value_index", 4),
         SCALAR("destination_instruction", 4));
DEFTABLE(t_freecall, "FreeCall", SCALAR("value_index", 4));
static const pte_fb_table *const instruction_args[] = {&t_kernelcall, &t_delegatecall,
                                                       &t_movecall, &t_jumpfalse, &t_freecall};
DEFTABLE(t_instruction, "Instruction", UTYPE("instr_args_type"),
         UNION("instr_args", instruction_args));

DEFTABLE(t_frame, "Frame", STRING("filename"), SCALAR("lineno", 4), STRING("name"),
         STRING("context"));
DEFTABLE(t_framelist, "FrameList", VTABLE("items", t_frame));
DEFTABLE(t_chain, "Chain", VSCALAR("inputs", 4), VSCALAR("outputs", 4),
         VTABLE("instructions", t_instruction), VTABLE("stacktrace", t_framelist));
DEFTABLE(t_operator, "Operator", STRING("name"), STRING("overload"));
DEFTABLE(t_dataref, "BackendDelegateDataReference", SCALAR("location", 1), SCALAR("index", 4));
DEFTABLE(t_compilespec, "CompileSpec", STRING("key"), VSCALAR("value", 1));
DEFTABLE(t_delegate, "BackendDelegate", STRING("id"), TABLE("processed", t_dataref),
         VTABLE("compile_specs", t_compilespec));
DEFTABLE(t_container, "ContainerMetadata", STRING("encoded_inp_str"), STRING("encoded_out_str"));
DEFTABLE(t_bufdevice, "NonConstBufferDevice", SCALAR("buffer_idx", 4), SCALAR("device_type", 1),
         SCALAR("device_index", 1));
DEFTABLE(t_plan, "ExecutionPlan", STRING("name"), TABLE("container_meta_type", t_container),
         VTABLE("values", t_evalue), VSCALAR("inputs", 4), VSCALAR("outputs", 4),
         VTABLE("chains", t_chain), VTABLE("operators", t_operator),
         VTABLE("delegates", t_delegate), VSCALAR("non_const_buffer_sizes", 8),
         VTABLE("non_const_buffer_device", t_bufdevice));
DEFTABLE(t_buffer, "Buffer", VSCALAR("storage", 1));
DEFTABLE(t_inlinedata, "BackendDelegateInlineData", VSCALAR("data", 1));
DEFTABLE(t_segment, "DataSegment", SCALAR("offset", 8), SCALAR("size", 8));
DEFTABLE(t_subseg, "SubsegmentOffsets", SCALAR("segment_index", 4), VSCALAR("offsets", 8));
DEFTABLE(t_nameddata, "NamedData", STRING("key"), SCALAR("segment_index", 4));

static const pte_fb_slot program_fields[] = {
    SCALAR("version", 4), VTABLE("execution_plan", t_plan), VTABLE("constant_buffer", t_buffer),
    VTABLE("backend_delegate_data", t_inlinedata), VTABLE("segments", t_segment),
    TABLE("constant_segment", t_subseg), VTABLE("mutable_data_segments", t_subseg),
    VTABLE("named_data", t_nameddata)};
const pte_fb_table pte_schema_program = {"Program", N(program_fields), program_fields};

DEFTABLE(t_ftlayout, "TensorLayout", SCALAR("scalar_type", 1), VSCALAR("sizes", 4),
         VSCALAR("dim_order", 1));
DEFTABLE(t_ftnameddata, "NamedData", STRING("key"), SCALAR("segment_index", 4),
         TABLE("tensor_layout", t_ftlayout));
static const pte_fb_slot flat_tensor_fields[] = {
    SCALAR("version", 4), VTABLE("segments", t_segment), VTABLE("named_data", t_ftnameddata)};
const pte_fb_table pte_schema_flat_tensor = {"FlatTensor", N(flat_tensor_fields),
                                             flat_tensor_fields};
