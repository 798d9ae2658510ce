/* The format room's interface. Everything that knows how .pte and .ptd files
 * are laid out (headers, flatbuffer slots, segments) lives in runtime/format/;
 * the executor asks these functions for decoded views (small structs) and
 * never reads a flatbuffer field itself. Every buffer is verified against its
 * schema (schema.c) before any view is taken. */
#ifndef PTERUN_PROGRAM_H
#define PTERUN_PROGRAM_H

#include "../core/internal.h"

/* A file's segment table (program or data map): one lookup serves both. */
typedef struct pte_segments {
  pte_fb fb;
  uint32_t vec; /* vector of DataSegment */
  int32_t count;
  const uint8_t *base; /* first byte of the segment data */
  uint64_t avail;      /* bytes from base to the end of the file */
  const char *owner;   /* error prefix: "" or "data file: " */
} pte_segments;

struct pte_program {
  pte_allocator allocator_copy;
  const pte_allocator *allocator; /* &allocator_copy or NULL */
  pte_file_map map;               /* file loads */
  void *owned;                    /* PTE_LOAD_COPY */
  const uint8_t *data;            /* the whole file */
  size_t size;
  pte_fb fb; /* the flatbuffer part: [0, program_size) */
  uint64_t segment_base;
  uint32_t root;
  uint32_t plans; /* vector of ExecutionPlan */
  int32_t num_plans;
  pte_segments segments;
  /* constants: either a segment with offsets, or the legacy inline buffers */
  uint32_t const_offsets; /* vector of u64 */
  int32_t num_const_offsets;
  const uint8_t *const_data;
  size_t const_size;
  uint32_t legacy_buffers;
  int32_t num_legacy_buffers;
  uint32_t mutable_segments; /* vector of SubsegmentOffsets */
  uint32_t named_data;       /* vector of NamedData */
  pte_data_map **maps;
  int32_t num_maps;
  uint32_t flags; /* PTE_LOAD_* */
};

/* Bytes of segment `index`, checked against the file (empty ones need none). */
pte_status pte_segment_get(const pte_segments *s, uint64_t index, const uint8_t **data, size_t *size);
pte_status pte_program_segment(const pte_program *p, uint64_t index, const uint8_t **data, size_t *size);

/* An execution plan (a method): counts, and offsets only the format room reads. */
typedef struct pte_plan {
  uint32_t table;
  uint32_t values, inputs, outputs, operators, delegates, sizes, devices, instrs;
  int32_t num_values, num_inputs, num_outputs, num_operators, num_delegates;
  int32_t num_sizes; /* entries of non_const_buffer_sizes, the unused entry 0 included */
  int32_t num_chains;
  int32_t num_instrs; /* of chain 0 */
} pte_plan;

/* The plan of `method` (error names the method and the available ones). */
pte_status pte_program_find_plan(const pte_program *p, const char *method, pte_plan *plan);

/* Little-endian items of a serialized list (4- or 8-byte integers). */
typedef struct pte_items {
  const uint8_t *raw; /* NULL when the list is absent */
  uint32_t len;
  uint32_t width;
} pte_items;

static inline int64_t pte_items_get(const pte_items *l, uint32_t k) {
  return l->width == 8 ? (int64_t)pte_fb_u64(l->raw + 8ull * k)
                       : (int64_t)(int32_t)pte_fb_u32(l->raw + 4ull * k);
}

/* An EValue, decoded. */
typedef struct pte_value_view {
  uint8_t tag;     /* PTE_TAG_* */
  int64_t i;       /* INT */
  bool b;          /* BOOL */
  double d;        /* DOUBLE */
  const char *str; /* STRING ("" when absent), length in items.len */
  uint32_t tensor; /* TENSOR: for pte_plan_tensor_desc */
  pte_items items; /* lists: INT_LIST (8 bytes), TENSOR lists (4), DOUBLE_LIST (8, raw
                      doubles, maybe unaligned), BOOL_LIST (1 byte each) */
} pte_value_view;

/* Value `index` of a plan, validated (type, payload); errors name the index. */
pte_status pte_plan_value(const pte_program *p, const pte_plan *plan, int64_t index, pte_value_view *v);
/* The value index of the plan's attribute (a tensor with that fully
 * qualified name), or -1. */
int64_t pte_plan_attribute_value(const pte_program *p, const pte_plan *plan, const char *name);
/* Just the tag of value `index` (in range), unvalidated: for counting. */
uint8_t pte_plan_value_tag(const pte_program *p, const pte_plan *plan, int32_t index);
/* Value index of input or output `k` (in range). */
int32_t pte_plan_io(const pte_program *p, const pte_plan *plan, bool output, int32_t k);
/* Size of planned buffer `k` (raw entry k; entry 0 is unused). */
int64_t pte_plan_buffer_size(const pte_program *p, const pte_plan *plan, int32_t k);
/* PTE_ERR_NOT_SUPPORTED if a planned buffer is on a non-CPU device. */
pte_status pte_plan_check_devices(const pte_program *p, const pte_plan *plan);
/* Name and overload ("" if none) of operator `k` (in range); NULL name if absent. */
const char *pte_plan_operator(const pte_program *p, const pte_plan *plan, int32_t k, const char **overload);

/* A backend delegate of a plan. */
typedef struct pte_delegate_view {
  uint32_t table;
  int32_t index;
  const char *id; /* NULL if absent */
  uint32_t specs;
  int32_t num_specs;
} pte_delegate_view;

void pte_plan_delegate(const pte_program *p, const pte_plan *plan, int32_t k, pte_delegate_view *d);
/* The delegate's processed payload (inline data or a segment), checked. */
pte_status pte_delegate_processed(const pte_program *p, const pte_delegate_view *d, const uint8_t **data,
                                  size_t *size);
void pte_delegate_spec(const pte_program *p, const pte_delegate_view *d, int32_t k, pte_compile_spec *spec);

/* KernelTypes / InstructionArguments union codes */
enum { INSTR_KERNEL = 1, INSTR_DELEGATE = 2, INSTR_MOVE = 3, INSTR_JUMP_FALSE = 4, INSTR_FREE = 5 };

/* An instruction of chain 0. KERNEL: a = operator, args; DELEGATE: a =
 * delegate, args; MOVE: a -> b; JUMP_FALSE: cond a, destination b; FREE: a. */
typedef struct pte_instr_view {
  uint8_t kind;
  int32_t a, b;
  pte_items args;
} pte_instr_view;

pte_status pte_plan_instruction(const pte_program *p, const pte_plan *plan, int32_t k, pte_instr_view *v);

/* Initial bytes of mutable tensor data `index` (nbytes must be available). */
pte_status pte_program_mutable_data(const pte_program *p, uint32_t index, size_t nbytes,
                                    const uint8_t **data);
/* Constant tensor data for data_buffer_idx; `nbytes` bytes must be available. */
pte_status pte_program_constant(const pte_program *p, uint32_t index, size_t nbytes, const uint8_t **data);
/* Named data: the program's own first, then each attached data map. */
pte_status pte_program_named(const pte_program *p, const char *key, const void **data, size_t *size);

/* Tensor metadata of value `index` of a plan, validated (dtype, rank, sizes, dim order). */
typedef struct pte_tensor_desc {
  int32_t dtype;
  int32_t dim;
  int32_t dynamism;
  int64_t sizes[PTE_MAX_DIM];
  uint8_t dim_order[PTE_MAX_DIM];
  size_t nbytes; /* at the serialized (upper-bound) sizes */
  uint32_t data_buffer_idx;
  bool has_alloc;
  uint32_t memory_id;
  uint64_t memory_offset;
  bool external;   /* data in a .ptd */
  const char *fqn; /* fully qualified name (external data key) */
} pte_tensor_desc;

pte_status pte_plan_tensor_desc(const pte_program *p, uint32_t tensor_table, pte_tensor_desc *d);

struct pte_data_map {
  pte_allocator allocator_copy;
  const pte_allocator *allocator;
  pte_file_map map;
  const uint8_t *data;
  size_t size;
  pte_fb fb;
  pte_segments segments;
  uint32_t named;
  int32_t num_named;
};

#endif
