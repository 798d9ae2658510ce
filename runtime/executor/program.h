/* Internal view of a loaded program, shared by program.c and method.c. */
#ifndef PTERUN_PROGRAM_H
#define PTERUN_PROGRAM_H

#include "../core/internal.h"
#include "schema.h"

struct pte_program {
  pte_allocator allocator_copy;
  const pte_allocator *allocator; /* &allocator_copy or NULL */
  pte_file_map map;               /* file loads */
  void *owned;                    /* PTE_LOAD_COPY */
  const uint8_t *data;            /* the whole file */
  size_t size;
  pte_fb fb;                      /* the flatbuffer part: [0, program_size) */
  uint64_t segment_base;
  uint32_t root;
  uint32_t plans;                 /* vector of ExecutionPlan */
  int32_t num_plans;
  uint32_t segments;              /* vector of DataSegment */
  int32_t num_segments;
  /* constants: either a segment with offsets, or the legacy inline buffers */
  uint32_t const_offsets;         /* vector of u64 */
  int32_t num_const_offsets;
  const uint8_t *const_data;
  size_t const_size;
  uint32_t legacy_buffers;
  int32_t num_legacy_buffers;
  uint32_t mutable_segments;      /* vector of SubsegmentOffsets */
  uint32_t named_data;            /* vector of NamedData */
  pte_data_map **maps;
  int32_t num_maps;
};

/* Bytes of segment `index`, checked against the file. */
pte_status pte_program_segment(const pte_program *p, uint64_t index, const uint8_t **data,
                               size_t *size);
/* The plan table of `method` (error names the method and the available ones). */
pte_status pte_program_find_plan(const pte_program *p, const char *method, uint32_t *plan);
/* Constant tensor data for data_buffer_idx; `nbytes` bytes must be available. */
pte_status pte_program_constant(const pte_program *p, uint32_t index, size_t nbytes,
                                const uint8_t **data);
/* Named data: the program's own first, then each attached data map. */
pte_status pte_program_named(const pte_program *p, const char *key, const void **data,
                             size_t *size);

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
  bool external;       /* data in a .ptd */
  const char *fqn;     /* fully qualified name (external data key) */
} pte_tensor_desc;

pte_status pte_plan_tensor_desc(const pte_program *p, uint32_t tensor_table, pte_tensor_desc *d);
/* The EValue table of value `index` with its type; errors name the index. */
pte_status pte_plan_value(const pte_program *p, uint32_t plan, int64_t index, uint8_t *type,
                          uint32_t *val);

struct pte_data_map {
  pte_allocator allocator_copy;
  const pte_allocator *allocator;
  pte_file_map map;
  const uint8_t *data;
  size_t size;
  pte_fb fb;
  uint64_t segment_base;
  uint32_t segments;
  int32_t num_segments;
  uint32_t named;
  int32_t num_named;
};

#endif
