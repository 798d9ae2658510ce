/* Internal layout of a loaded method. */
#ifndef PTERUN_METHOD_H
#define PTERUN_METHOD_H

#include "../format/program.h"

/* A kernel instruction folded at load: its output is already computed. */
#define INSTR_FOLDED 6

typedef struct pte_instr {
  uint8_t kind;  /* INSTR_* */
  uint8_t nouts; /* trailing args that are outputs (what a debugging tracer is shown) */
  int32_t a;     /* move from / jump cond / free value / delegate index */
  int32_t b;     /* move to / jump destination */
  pte_kernel_fn fn;
  const void *state; /* a rewrite rule's, for fn (pte_kernel_state) */
  const char *name;  /* "aten::add.out" or the backend id */
  pte_value **args;
  int32_t nargs;
} pte_instr;

typedef struct pte_delegate {
  const pte_backend *backend;
  void *handle;
  bool initialized;
  const char *id;
} pte_delegate;

typedef struct pte_block pte_block; /* one allocation owned by the method */

struct pte_kernel_ctx {
  pte_method *method;
  const char *name;
  const void *state;
};

struct pte_backend_init_ctx {
  pte_method *method;
};

struct pte_backend_exec_ctx {
  pte_method *method;
  int32_t instruction;
};

struct pte_method {
  pte_program *program;
  pte_allocator allocator_copy;
  const pte_allocator *allocator;
  pte_block *blocks;
  size_t memory_used;
  const char *name;
  pte_value *values;
  int32_t num_values;
  pte_tensor *tensors;
  int32_t num_tensors;
  const int32_t *inputs; /* value indices */
  int32_t num_inputs;
  uint8_t *input_set;
  int64_t *input_bounds; /* num_inputs x PTE_MAX_DIM: sizes as planned (upper bounds) */
  const int32_t *outputs;
  int32_t num_outputs;
  /* per output: the method's own bytes for a tensor the plan left without
   * memory (allocated at load; pte_method_set_output lends others), or NULL */
  void **output_own;
  pte_instr *instrs;
  int32_t num_instrs;
  pte_delegate *delegates;
  int32_t num_delegates;
  uint8_t **planned;
  size_t *planned_sizes;
  int32_t num_planned;
  void *scratch;
  size_t scratch_size;
  size_t backend_scratch; /* the most any delegate reserved (pte_backend_reserve_scratch) */
  const pte_tracer *tracer;
  int64_t max_instructions;
  uint8_t *mutable_tensor; /* per tensor: program state with initial bytes (never folded) */
  int32_t num_folded;
  int32_t num_prepared; /* instructions given a kernel and state by a rule */
};

#endif
