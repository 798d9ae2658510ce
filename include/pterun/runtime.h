/*
 * pterun runtime: loads and runs ExecuTorch programs (.pte) from C.
 *
 * This is the public header of the `runtime` component (libpterun). It owns:
 * status codes and error messages, tensors and values, programs and methods,
 * the operator (kernel) registry, the backend registry, data maps (.ptd),
 * the event-tracer hook and the flatbuffer helpers backends use.
 *
 * Conventions: every function that can fail returns a pte_status; on failure
 * pte_last_error() (thread-local) describes what was wrong and where. Handles
 * are opaque. The caller owns the memory it passes in; the runtime never keeps
 * a pointer to caller memory beyond what the function documents.
 */
#ifndef PTERUN_RUNTIME_H
#define PTERUN_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define PTE_API
#else
#define PTE_API __attribute__((visibility("default")))
#endif

#if defined(__GNUC__)
#define PTE_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PTE_PRINTF(f, a)
#endif

/* PTE_VERSION_MAJOR, _MINOR, _PATCH and PTE_VERSION_STRING: the version this
 * header belongs to, generated from components.json. */
#include <pterun/version.h>

/* Version of the library actually loaded (PTE_VERSION_STRING of its build). */
PTE_API const char *pte_version(void);

/* Component ABI. Every struct that crosses a library boundary (pte_tracer,
 * pte_kernel_library, pte_backend, pte_program_options, pte_method_options,
 * pte_etdump_options) carries `uint32_t abi`, which its PTE_*_INIT macro sets
 * to the PTE_ABI_VERSION the component was compiled against. The runtime
 * reads structs of PTE_ABI_OLDEST up to its own PTE_ABI_VERSION (the versions
 * between them share every struct's layout) and refuses any other, with a
 * message naming both versions, so a component built against another runtime
 * fails cleanly instead of being misread. `abi` is the first member of each
 * and never moves, so it can be read before the rest is trusted;
 * PTE_ABI_VERSION goes up whenever one of these structs, or what its fields
 * may hold, changes, and PTE_ABI_OLDEST with it when a layout changes. NULL
 * options mean the defaults. Zero-initialised structs (abi 0) are refused:
 * start from the macros. */
#define PTE_ABI_VERSION 2u /* 2: single-instruction rewrite rules (second == NULL), kernel state */
#define PTE_ABI_OLDEST 1u  /* 1 and 2 share every layout; an ABI-1 rule always names two operators */

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

typedef enum pte_status {
  PTE_OK = 0,
  PTE_ERR_INVALID_ARGUMENT = 1, /* a caller passed something wrong (shape, dtype, NULL) */
  PTE_ERR_INVALID_PROGRAM = 2,  /* the .pte/.ptd/payload is malformed or hostile */
  PTE_ERR_NOT_FOUND = 3,        /* unknown method, operator, backend, key, file */
  PTE_ERR_NOT_SUPPORTED = 4,    /* valid but not implemented (dtype, feature) */
  PTE_ERR_OUT_OF_MEMORY = 5,    /* an allocation or caller-provided memory was too small */
  PTE_ERR_IO = 6,               /* reading a file failed */
  PTE_ERR_ALREADY_EXISTS = 7,   /* duplicate registration */
  PTE_ERR_INVALID_STATE = 8,    /* e.g. execute before all inputs are set */
  PTE_ERR_KERNEL = 9,           /* an operator failed while executing */
  PTE_ERR_BACKEND = 10,         /* a delegate failed */
  PTE_ERR_INTERNAL = 11
} pte_status;

/* Stable name of a status, e.g. "PTE_ERR_NOT_FOUND". Never NULL. */
PTE_API const char *pte_status_name(pte_status status);

/* Message describing the last failure on this thread ("" if none). */
PTE_API const char *pte_last_error(void);

/* PTE_OK if this runtime reads `abi` (PTE_ABI_OLDEST .. PTE_ABI_VERSION),
 * else PTE_ERR_NOT_SUPPORTED with
 * "<what> was built for pterun ABI <abi>, this runtime has ABI <ours>". For
 * components that take versioned structs themselves. */
PTE_API pte_status pte_abi_check(uint32_t abi, const char *what);

/* Record a failure message for this thread and return `status`. For kernels,
 * backends and other components that report errors through the runtime. */
PTE_API pte_status pte_error(pte_status status, const char *fmt, ...) PTE_PRINTF(2, 3);

/* ------------------------------------------------------------------------ */
/* Logging                                                                  */
/* ------------------------------------------------------------------------ */

typedef enum pte_log_level {
  PTE_LOG_DEBUG = 0,
  PTE_LOG_INFO = 1,
  PTE_LOG_WARNING = 2,
  PTE_LOG_ERROR = 3
} pte_log_level;

typedef void (*pte_log_fn)(void *user, pte_log_level level, const char *message);

/* Install a log sink (NULL restores the default: warnings and errors to stderr).
 * The runtime never logs from pte_method_execute. */
PTE_API void pte_set_log(pte_log_fn fn, void *user, pte_log_level min_level);
PTE_API void pte_log(pte_log_level level, const char *fmt, ...) PTE_PRINTF(2, 3);

/* ------------------------------------------------------------------------ */
/* Memory                                                                   */
/* ------------------------------------------------------------------------ */

/* Allocator used for everything the runtime allocates for a program or method.
 * NULL wherever one is accepted means malloc/free. */
typedef struct pte_allocator {
  void *user;
  void *(*alloc)(void *user, size_t size, size_t alignment);
  void (*free)(void *user, void *ptr); /* may be NULL for arenas */
} pte_allocator;

/* A bump allocator over caller memory: for static, malloc-free builds. */
typedef struct pte_arena {
  pte_allocator allocator; /* pass &arena.allocator wherever an allocator is taken */
  uint8_t *base;
  size_t size;
  size_t used;
} pte_arena;

PTE_API void pte_arena_init(pte_arena *arena, void *buffer, size_t size);

/* ------------------------------------------------------------------------ */
/* Data types                                                               */
/* ------------------------------------------------------------------------ */

/* Same codes as ExecuTorch's ScalarType (and c10::ScalarType). */
typedef enum pte_dtype {
  PTE_UINT8 = 0,
  PTE_INT8 = 1,
  PTE_INT16 = 2,
  PTE_INT32 = 3,
  PTE_INT64 = 4,
  PTE_FLOAT16 = 5,
  PTE_FLOAT32 = 6,
  PTE_FLOAT64 = 7,
  PTE_COMPLEX32 = 8, /* ComplexHalf: float16 (re, im) pairs */
  PTE_COMPLEX64 = 9, /* float32 (re, im) pairs */
  PTE_COMPLEX128 = 10,
  PTE_BOOL = 11,
  PTE_QINT8 = 12,
  PTE_QUINT8 = 13,
  PTE_QINT32 = 14,
  PTE_BFLOAT16 = 15,
  PTE_QUINT4X2 = 16,
  PTE_QUINT2X4 = 17,
  PTE_BITS16 = 22,
  PTE_FLOAT8_E5M2 = 23,
  PTE_FLOAT8_E4M3FN = 24,
  PTE_FLOAT8_E5M2FNUZ = 25,
  PTE_FLOAT8_E4M3FNUZ = 26,
  PTE_UINT16 = 27,
  PTE_UINT32 = 28,
  PTE_UINT64 = 29,
  PTE_DTYPE_COUNT = 30
} pte_dtype;

/* Bytes per element, or 0 for a code that is not a known dtype. */
PTE_API size_t pte_dtype_size(int32_t dtype);
/* "float32", "int64", ...; "invalid" for unknown codes. */
PTE_API const char *pte_dtype_name(int32_t dtype);

/* ------------------------------------------------------------------------ */
/* Tensors                                                                  */
/* ------------------------------------------------------------------------ */

#define PTE_MAX_DIM 16

typedef enum pte_shape_dynamism {
  PTE_SHAPE_STATIC = 0,
  PTE_SHAPE_DYNAMIC_BOUND = 1,
  PTE_SHAPE_DYNAMIC_UNBOUND = 2
} pte_shape_dynamism;

/* Tensor flags. */
#define PTE_TENSOR_READONLY 0x1u /* data is constant (e.g. mapped from the program) */
#define PTE_TENSOR_PLANNED 0x2u  /* data lives in planned (arena) memory */

/* A strided view of memory. The struct is public so kernels can read it
 * directly; change shapes only with pte_tensor_resize. */
typedef struct pte_tensor {
  void *data;
  size_t capacity; /* bytes usable at data (for resizing); SIZE_MAX = unknown */
  int32_t dtype;
  int32_t dim;
  int32_t dynamism; /* pte_shape_dynamism */
  uint32_t flags;   /* PTE_TENSOR_* */
  int64_t sizes[PTE_MAX_DIM];
  int64_t strides[PTE_MAX_DIM]; /* in elements */
  uint8_t dim_order[PTE_MAX_DIM];
} pte_tensor;

/* Fill `t` as a contiguous, static tensor over caller memory (data may be NULL). */
PTE_API pte_status pte_tensor_init(pte_tensor *t, int32_t dtype, int32_t dim, const int64_t *sizes,
                                   void *data);

/* Change the shape of `t` (same rank unless the tensor is unbounded), checking
 * dynamism and capacity; strides are recomputed from the dim order. */
PTE_API pte_status pte_tensor_resize(pte_tensor *t, int32_t dim, const int64_t *sizes);

/* Format a shape as "[2, 3, 4]" into buf; returns buf. */
PTE_API const char *pte_shape_str(int32_t dim, const int64_t *sizes, char *buf, size_t n);

static inline int64_t pte_tensor_numel(const pte_tensor *t) {
  int64_t n = 1;
  for (int32_t i = 0; i < t->dim; i++) n *= t->sizes[i];
  return n;
}

PTE_API size_t pte_tensor_nbytes(const pte_tensor *t);

/* True if the strides are those of a row-major contiguous tensor (tensors
 * without elements always are). */
PTE_API bool pte_tensor_is_contiguous(const pte_tensor *t);

/* Copy src into dst element by element, whatever their strides (e.g. from a
 * row-major buffer into a channels-last tensor). Same dtype and sizes. */
PTE_API pte_status pte_tensor_copy(pte_tensor *dst, const pte_tensor *src);

/* ------------------------------------------------------------------------ */
/* Values (ExecuTorch's EValue)                                             */
/* ------------------------------------------------------------------------ */

/* Tags use the program schema's KernelTypes codes; 0 means "not set". */
typedef enum pte_tag {
  PTE_TAG_UNSET = 0,
  PTE_TAG_NONE = 1,
  PTE_TAG_INT = 2,
  PTE_TAG_BOOL = 3,
  PTE_TAG_DOUBLE = 4,
  PTE_TAG_TENSOR = 5,
  PTE_TAG_STRING = 6,
  PTE_TAG_INT_LIST = 7,
  PTE_TAG_DOUBLE_LIST = 8,
  PTE_TAG_BOOL_LIST = 9,
  PTE_TAG_TENSOR_LIST = 10,
  PTE_TAG_OPTIONAL_TENSOR_LIST = 11
} pte_tag;

typedef struct pte_value pte_value;

struct pte_value {
  int32_t tag;
  int32_t len; /* element count of lists, byte length of strings */
  union {
    int64_t i;
    double d;
    bool b;
    pte_tensor *tensor;
    const char *str; /* NUL-terminated */
    /* INT_LIST: Int values (read at call time, so symbolic sizes are current);
     * TENSOR_LIST: Tensor values; OPTIONAL_TENSOR_LIST: Tensor values or NULL. */
    pte_value *const *items;
    const double *doubles;
    const uint8_t *bools; /* nonzero = true */
  } u;
};

PTE_API const char *pte_tag_name(int32_t tag);

/* Convenience accessors. They return false when the tag does not fit. */
PTE_API bool pte_value_to_int(const pte_value *v, int64_t *out);   /* INT or BOOL */
PTE_API bool pte_value_to_double(const pte_value *v, double *out); /* INT, DOUBLE or BOOL */
/* INT_LIST → up to `max` int64; returns the count or -1 (wrong tag, too long, bad item). */
PTE_API int32_t pte_value_int_list(const pte_value *v, int64_t *out, int32_t max);

/* ------------------------------------------------------------------------ */
/* Event tracer hook (profilers implement it; see libpterun_etdump)         */
/* ------------------------------------------------------------------------ */

typedef enum pte_event_kind {
  PTE_EVENT_PROGRAM_LOAD = 0,
  PTE_EVENT_METHOD_LOAD = 1,
  PTE_EVENT_EXECUTE = 2,  /* one pte_method_execute */
  PTE_EVENT_OPERATOR = 3, /* a KernelCall; name = "aten::add.out" */
  PTE_EVENT_DELEGATE = 4, /* a DelegateCall; name = backend id */
  PTE_EVENT_MOVE = 5,
  PTE_EVENT_JUMP = 6,
  PTE_EVENT_FREE = 7,
  PTE_EVENT_BACKEND = 8 /* an event inside a delegate (node or subgraph) */
} pte_event_kind;

typedef struct pte_event {
  int32_t kind;        /* pte_event_kind */
  int32_t chain;       /* -1 when not an instruction */
  int32_t instruction; /* -1 when not an instruction */
  int32_t reserved;
  int64_t debug_id; /* delegate debug handle, -1 if none */
  const char *name;
  const char *method;
} pte_event;

typedef struct pte_tracer {
  uint32_t abi; /* PTE_ABI_VERSION (PTE_TRACER_INIT) */
  void *user;
  /* begin returns a token handed back to end (e.g. a start timestamp). */
  uint64_t (*begin)(void *user, const pte_event *event);
  void (*end)(void *user, const pte_event *event, uint64_t token);
  /* Optional, debug mode (capture_outputs true): called after an instruction
   * ran with each of its outputs, numbered from 0 (the trailing arguments that
   * no earlier instruction used: every out tensor of a multi-output operator;
   * one call per tensor of an out list), and after an execute with each output
   * of the method and the EXECUTE event. `value` is only valid during the call. */
  void (*output)(void *user, const pte_event *event, int32_t index, const pte_value *value);
  bool capture_outputs;
} pte_tracer;

/* pte_tracer t = PTE_TRACER_INIT; then set the callbacks. */
#define PTE_TRACER_INIT \
  { PTE_ABI_VERSION, 0, 0, 0, 0, false }

/* ------------------------------------------------------------------------ */
/* Operator registry                                                        */
/* ------------------------------------------------------------------------ */

typedef struct pte_kernel_ctx pte_kernel_ctx;

typedef pte_status (*pte_kernel_fn)(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs);

typedef struct pte_kernel {
  const char *name; /* "aten::add.out": name, then ".overload" when the overload is not empty */
  pte_kernel_fn fn;
  /* Optional, checked at method load: return false to decline these arguments
   * (tags and dtypes are final then) so a lower-priority kernel is used. */
  bool (*accepts)(pte_value *const *args, int32_t nargs);
  /* Optional: scratch bytes needed for these arguments (shapes at their upper
   * bounds). The method reserves the maximum once at load. */
  size_t (*scratch_size)(pte_value *const *args, int32_t nargs);
} pte_kernel;

typedef struct pte_kernel_library {
  uint32_t abi;     /* PTE_ABI_VERSION (PTE_KERNEL_LIBRARY_INIT) */
  const char *name; /* e.g. "kernels_portable" */
  int32_t priority; /* higher wins when libraries provide the same operator */
  const pte_kernel *kernels;
  int32_t count;
} pte_kernel_library;

#define PTE_KERNEL_LIBRARY_INIT(name, priority, kernels, count) \
  { PTE_ABI_VERSION, name, priority, kernels, count }

#define PTE_PRIORITY_PORTABLE 0
#define PTE_PRIORITY_OPTIMIZED 100

/* Register a library of kernels. Registering the same library again is a
 * no-op; an operator that another library registered at the same priority is
 * rejected (PTE_ERR_ALREADY_EXISTS) and nothing of `lib` is registered. `lib`
 * and what it points to must stay valid while registered. Thread-safe.
 * Callbacks (a kernel's accepts and scratch_size, a backend's is_available,
 * init, execute and destroy) run with no registry lock held: they may call
 * any registry function, registration included. */
PTE_API pte_status pte_register_kernels(const pte_kernel_library *lib);

/* Register a library whose kernels are defined one per translation unit
 * (`const pte_kernel` objects a static array cannot be initialised from):
 * the first call copies *ptrs[0..count) into `storage` (under the registry
 * lock, so concurrent first calls are safe) and points lib->kernels at it;
 * every call then registers `lib`. PTE_DEFINE_KERNEL_LIBRARY wraps this. */
PTE_API pte_status pte_register_kernel_table(pte_kernel_library *lib, pte_kernel *storage,
                                             const pte_kernel *const *ptrs, int32_t count);

/* The one way a kernel library (in tree or out of it) defines itself, given
 * `static const pte_kernel *const table[]` of its kernels:
 *   PTE_DEFINE_KERNEL_LIBRARY(pte_my_ops, "my_ops", PTE_PRIORITY_PORTABLE, table);
 * defines `pte_status pte_my_ops_register(void)` (what pte_library_load calls
 * for libmy_ops.so) and `int32_t pte_my_ops_count(void)`, and, when compiled
 * with PTE_SHARED_BUILD, a load-time constructor that registers it. */
#define PTE_DEFINE_KERNEL_LIBRARY(prefix, lib_name, lib_priority, table)                 \
  static pte_kernel prefix##_storage_[sizeof(table) / sizeof((table)[0])];               \
  static pte_kernel_library prefix##_library_ =                                          \
      PTE_KERNEL_LIBRARY_INIT(lib_name, lib_priority, (const pte_kernel *)0, 0);         \
  PTE_API pte_status prefix##_register(void);                                            \
  PTE_API int32_t prefix##_count(void);                                                  \
  pte_status prefix##_register(void) {                                                   \
    return pte_register_kernel_table(&prefix##_library_, prefix##_storage_, table,       \
                                     (int32_t)(sizeof(table) / sizeof((table)[0])));     \
  }                                                                                      \
  int32_t prefix##_count(void) { return (int32_t)(sizeof(table) / sizeof((table)[0])); } \
  PTE_KERNEL_LIBRARY_AUTOREGISTER_(prefix, lib_name)                                     \
  extern int32_t prefix##_count(void)

#ifdef PTE_SHARED_BUILD
/* Linking (or loading) the shared library registers it. */
#define PTE_KERNEL_LIBRARY_AUTOREGISTER_(prefix, lib_name)                                           \
  __attribute__((constructor)) static void prefix##_autoregister_(void) {                            \
    if (prefix##_register() != PTE_OK) pte_log(PTE_LOG_ERROR, "%s: %s", lib_name, pte_last_error()); \
  }
#else
#define PTE_KERNEL_LIBRARY_AUTOREGISTER_(prefix, lib_name)
#endif

/* Turn a registered kernel library off (or back on) for methods loaded from
 * now on, e.g. to compare kernels_optimized with kernels_portable in one
 * process. PTE_ERR_NOT_FOUND if no library has that name. */
PTE_API pte_status pte_kernel_library_set_enabled(const char *name, bool enabled);

/* Distinct registered operator names (the runtime's prim ops included). */
PTE_API int32_t pte_operator_count(void);
PTE_API const char *pte_operator_name(int32_t index);
PTE_API bool pte_operator_registered(const char *name);
/* The highest-priority kernel for `name` (NULL if none). */
PTE_API const pte_kernel *pte_operator_find(const char *name, const char **library);
/* Address of the registry itself: lets tests prove one registry per process. */
PTE_API const void *pte_registry_identity(void);

/* For kernels: scratch memory reserved at load (see scratch_size). */
PTE_API void *pte_kernel_scratch(pte_kernel_ctx *ctx, size_t *size);
/* For kernels: the operator being executed. */
PTE_API const char *pte_kernel_name(const pte_kernel_ctx *ctx);
/* For kernels: the state a rewrite rule gave this instruction with its
 * kernel (pte_rewrite_set_kernel, e.g. a weight packed at load); NULL for
 * instructions no rule prepared. */
PTE_API const void *pte_kernel_state(const pte_kernel_ctx *ctx);
/* For kernels: report a failure; returns `status`. The message names the operator. */
PTE_API pte_status pte_kernel_fail(pte_kernel_ctx *ctx, pte_status status, const char *fmt, ...)
    PTE_PRINTF(3, 4);

/* ------------------------------------------------------------------------ */
/* Load-time rewrite rules                                                  */
/* ------------------------------------------------------------------------ */

/* A rule rewrites a pair of adjacent kernel instructions while a method
 * loads (after constant folding), e.g. a batch norm folded into the
 * convolution before it, or (second == NULL) one instruction, e.g. a
 * product whose constant weight is packed once for a kernel of the rule's
 * own (pte_rewrite_set_kernel). The runtime knows no operator: a component
 * registers its rules (kernels_optimized does, for its kernels), the method
 * calls a rule's apply where the pair's operator names match, and the rule
 * sees and changes the method only through the pte_rewrite_* functions. No
 * rule runs for a program loaded with PTE_LOAD_NO_FUSE or PTE_LOAD_NO_FOLD,
 * nor for one whose component library is disabled. */
typedef struct pte_rewrite pte_rewrite; /* the method being loaded */

typedef struct pte_rewrite_rule {
  uint32_t abi;               /* PTE_ABI_VERSION (PTE_REWRITE_RULE_INIT) */
  const char *first, *second; /* operator names of instructions i and i + 1 (NULL: i alone) */
  const char *library;        /* the kernel library the rule belongs to (skipped while it is disabled) */
  /* Rewrite instructions i and i + 1 (i alone), or leave them untouched and
   * return false. Never an error: a rule that cannot rewrite declines. */
  bool (*apply)(pte_rewrite *rw, int32_t i);
} pte_rewrite_rule;

#define PTE_REWRITE_RULE_INIT(first, second, library, apply) \
  { PTE_ABI_VERSION, first, second, library, apply }
#define PTE_MAX_REWRITE_RULES 32

/* Register a rule; the same struct again is a no-op. `rule` must stay valid
 * while registered. Thread-safe. At each kernel instruction, in order, the
 * rules are tried in registration order and the first that applies wins. */
PTE_API pte_status pte_register_rewrite(const pte_rewrite_rule *rule);
PTE_API int32_t pte_rewrite_rule_count(void);

/* How the method's instructions use value v, instruction indices 0-based
 * (-1: none). */
typedef struct pte_rewrite_use {
  int32_t first;  /* the first instruction that refers to it */
  int32_t last;   /* the last one */
  int32_t writer; /* the one that writes it */
  bool io;        /* a method input or output */
  bool opaque;    /* changed in a way the use table cannot follow (moves, frees, in-place, two writers) */
} pte_rewrite_use;

PTE_API int32_t pte_rewrite_num_values(const pte_rewrite *rw);
PTE_API pte_value *pte_rewrite_value(pte_rewrite *rw, int32_t index);
PTE_API pte_rewrite_use pte_rewrite_value_use(const pte_rewrite *rw, const pte_value *v);
PTE_API int32_t pte_rewrite_num_instructions(const pte_rewrite *rw);
/* A kernel instruction's operator name and arguments (mutable: a rule may
 * point them at other values); NULL for any other instruction. */
PTE_API const char *pte_rewrite_op(const pte_rewrite *rw, int32_t i);
PTE_API pte_value **pte_rewrite_args(pte_rewrite *rw, int32_t i, int32_t *nargs);
/* A delegate instruction's arguments, its inputs then its *nouts outputs
 * (mutable: a rule may have the delegate write its output elsewhere); NULL
 * for any other instruction. A function added under ABI 2. */
PTE_API pte_value **pte_rewrite_delegate_args(pte_rewrite *rw, int32_t i, int32_t *nargs, int32_t *nouts);
/* Whether v is known at load and nothing changes it: a constant tensor (or
 * a folded one), or a scalar nothing writes. */
PTE_API bool pte_rewrite_constant(const pte_rewrite *rw, const pte_value *v);
/* Memory (not zeroed) that lives as long as the method, 64-byte aligned
 * (NULL: out of memory, which declines the rule rather than fails the load). */
PTE_API void *pte_rewrite_alloc(pte_rewrite *rw, size_t size);
/* Give back memory pte_rewrite_alloc returned (a temporary the rule is done
 * with: to the method's allocator, and out of pte_method_memory_used); any
 * other pointer, or NULL, is ignored. A function added under ABI 2 (no
 * struct changed: rules built without it work as before). */
PTE_API void pte_rewrite_free(pte_rewrite *rw, void *p);
/* A read-only tensor value shaped like `like` over `data` (method memory). */
PTE_API pte_value *pte_rewrite_new_constant(pte_rewrite *rw, const pte_tensor *like, void *data);
/* Choose instruction i's kernel again for its current arguments (and reserve
 * the scratch it asks for). False, the instruction unchanged, if none fits. */
PTE_API bool pte_rewrite_resolve(pte_rewrite *rw, int32_t i);
/* Instruction i runs `kernel` (its fn; the scratch its scratch_size asks
 * for the current arguments is reserved) with `state` from now on
 * (pte_kernel_state; method memory or static, read-only at execute).
 * `kernel` need not be registered: a library's own variant of the operator.
 * Counted in pte_method_num_prepared. False, the instruction unchanged, if
 * the scratch cannot be had. */
PTE_API bool pte_rewrite_set_kernel(pte_rewrite *rw, int32_t i, const pte_kernel *kernel, const void *state);
/* Whether instruction i (of any kind; a skipped or folded one no longer
 * runs, so none) refers to value v, as an argument or in a list. */
PTE_API bool pte_rewrite_refers(const pte_rewrite *rw, int32_t i, const pte_value *v);
/* Instruction i no longer runs (counted in pte_method_num_folded). */
PTE_API void pte_rewrite_skip(pte_rewrite *rw, int32_t i);
/* The rule will not read these constant bytes again (it made its own copy):
 * where they lie in pages of the program's (or a data map's) private
 * read-only file mapping, those pages are given back to the kernel; a later
 * read pages them in again from the file. */
PTE_API void pte_rewrite_release(pte_rewrite *rw, const void *data, size_t size);

/* ------------------------------------------------------------------------ */
/* Backend (delegate) registry                                              */
/* ------------------------------------------------------------------------ */

typedef struct pte_backend_init_ctx pte_backend_init_ctx;
typedef struct pte_backend_exec_ctx pte_backend_exec_ctx;

typedef struct pte_compile_spec {
  const char *key;
  const void *value;
  size_t size;
} pte_compile_spec;

typedef struct pte_backend {
  uint32_t abi;     /* PTE_ABI_VERSION (PTE_BACKEND_INIT) */
  const char *name; /* the id the exporter writes, e.g. "XnnpackBackend" */
  void *user;
  bool (*is_available)(void *user);
  /* Build a delegate from its payload. `processed` stays valid as long as the
   * program. Store the result in *handle. */
  pte_status (*init)(void *user, pte_backend_init_ctx *ctx, const void *processed, size_t size,
                     const pte_compile_spec *specs, int32_t num_specs, void **handle);
  /* args: the delegate's inputs, then its outputs. Must not allocate or do I/O. */
  pte_status (*execute)(void *user, pte_backend_exec_ctx *ctx, void *handle, pte_value **args, int32_t nargs);
  void (*destroy)(void *user, void *handle); /* when the method is freed; may be NULL */
} pte_backend;

#define PTE_BACKEND_INIT(name, user, is_available, init, execute, destroy) \
  { PTE_ABI_VERSION, name, user, is_available, init, execute, destroy }

#define PTE_MAX_BACKENDS 32

/* Register a backend by name; the same struct again is a no-op, another one
 * with a taken name fails with PTE_ERR_ALREADY_EXISTS. Thread-safe. */
PTE_API pte_status pte_register_backend(const pte_backend *backend);
PTE_API int32_t pte_backend_count(void);
PTE_API const char *pte_backend_name(int32_t index);
PTE_API const pte_backend *pte_backend_find(const char *name);

/* Init context: named data (the program's named data, then attached .ptd maps). */
PTE_API pte_status pte_backend_named_data(pte_backend_init_ctx *ctx, const char *key, const void **data,
                                          size_t *size);
/* Init context: memory that lives as long as the method (freed with it). */
PTE_API void *pte_backend_alloc(pte_backend_init_ctx *ctx, size_t size, size_t alignment);
PTE_API const char *pte_backend_init_method(const pte_backend_init_ctx *ctx);
/* Init context: the backend will not read these constant bytes again (it
 * packed its own copy), as pte_rewrite_release: pages of the program's (or
 * a data map's) private read-only file mapping are given back, and read
 * again from the file if anything touches them. A function added under
 * ABI 2 (no struct changed). */
PTE_API void pte_backend_release(pte_backend_init_ctx *ctx, const void *data, size_t size);
/* Init context: scratch the delegate uses only while it executes, never
 * between two executions (its intermediates, packing space). The method
 * keeps one scratch, the largest any of its kernels and delegates asks for,
 * and lends it to each in turn (instructions never overlap): one delegate's
 * intermediates land in the cache lines the one before it left warm. A
 * function added under ABI 2 (no struct changed). */
PTE_API pte_status pte_backend_reserve_scratch(pte_backend_init_ctx *ctx, size_t size);
/* Exec context: that scratch (method memory: aligned as the allocator
 * aligns, 64 bytes), with at least the bytes the delegate reserved (*size:
 * all of it); the same memory on every execute of a loaded method. NULL (and
 * 0) when nothing was reserved. */
PTE_API void *pte_backend_scratch(const pte_backend_exec_ctx *ctx, size_t *size);
/* Exec context: the tracer attached to the method (NULL if none) and the call site. */
PTE_API const pte_tracer *pte_backend_tracer(const pte_backend_exec_ctx *ctx);
PTE_API int32_t pte_backend_instruction(const pte_backend_exec_ctx *ctx);
PTE_API const char *pte_backend_exec_method(const pte_backend_exec_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* Data maps (.ptd files, weights stored outside the program)               */
/* ------------------------------------------------------------------------ */

typedef struct pte_data_map pte_data_map;

PTE_API pte_status pte_data_map_load_file(const char *path, const pte_allocator *allocator,
                                          pte_data_map **out);
/* `data` must stay valid and unchanged while the map lives. */
PTE_API pte_status pte_data_map_load_buffer(const void *data, size_t size, const pte_allocator *allocator,
                                            pte_data_map **out);
PTE_API void pte_data_map_free(pte_data_map *map);
PTE_API int32_t pte_data_map_count(const pte_data_map *map);
PTE_API const char *pte_data_map_key(const pte_data_map *map, int32_t index);
/* Bytes of `key`; layout (may be NULL) receives dtype, dim and sizes if stored. */
PTE_API pte_status pte_data_map_get(const pte_data_map *map, const char *key, const void **data, size_t *size,
                                    pte_tensor *layout);

/* ------------------------------------------------------------------------ */
/* Programs                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct pte_program pte_program;

#define PTE_LOAD_COPY 0x1u  /* buffer loads: copy the bytes (else the caller keeps them alive) */
#define PTE_LOAD_READ 0x2u  /* file loads: read into memory instead of mapping */
#define PTE_LOAD_MLOCK 0x4u /* file loads: lock the mapping in memory */
/* file loads: page the whole mapping in while loading, so that the first
 * execute takes no page faults on the weights (they are read lazily from
 * the mapping otherwise) */
#define PTE_LOAD_PREFAULT 0x8u
/* Methods of this program do not fold constant-only instructions at load
 * (see pte_method_num_folded). */
#define PTE_LOAD_NO_FOLD 0x10u
/* Methods of this program keep every instruction as written: no load-time
 * rewrite of instruction pairs (a batch norm folded into the convolution
 * before it, a zero pad into the convolution after it; PTE_LOAD_NO_FOLD
 * turns these off too). Debugging tracers that compare intermediates want
 * this. */
#define PTE_LOAD_NO_FUSE 0x20u

typedef struct pte_program_options {
  uint32_t abi; /* PTE_ABI_VERSION (PTE_PROGRAM_OPTIONS_INIT) */
  const pte_allocator *allocator;
  pte_data_map *const *data_maps; /* external data (.ptd); must outlive the program */
  int32_t num_data_maps;
  uint32_t flags;           /* PTE_LOAD_* */
  const pte_tracer *tracer; /* sees PTE_EVENT_PROGRAM_LOAD */
} pte_program_options;

/* pte_program_options o = PTE_PROGRAM_OPTIONS_INIT; (the defaults) */
#define PTE_PROGRAM_OPTIONS_INIT \
  { PTE_ABI_VERSION, 0, 0, 0, 0, 0 }

/* Load and verify a program. `options` may be NULL. */
PTE_API pte_status pte_program_load_file(const char *path, const pte_program_options *options,
                                         pte_program **out);
/* The buffer must be 16-byte aligned unless PTE_LOAD_COPY is given. */
PTE_API pte_status pte_program_load_buffer(const void *data, size_t size, const pte_program_options *options,
                                           pte_program **out);
PTE_API void pte_program_free(pte_program *program);

PTE_API int32_t pte_program_method_count(const pte_program *program);
PTE_API const char *pte_program_method_name(const pte_program *program, int32_t index);

/* Metadata of a method, read without loading it. */
typedef struct pte_method_info {
  const char *name;
  int32_t num_inputs;
  int32_t num_outputs;
  int32_t num_values;
  int32_t num_instructions;
  int32_t num_operators;
  int32_t num_delegates;
  int32_t num_planned_buffers; /* arenas the method needs (entry 0 of the file's list excluded) */
  int64_t planned_bytes;       /* sum of their sizes */
} pte_method_info;

/* An input or output slot of a method. */
typedef struct pte_io_info {
  int32_t tag;   /* PTE_TAG_TENSOR, PTE_TAG_INT, ... */
  int32_t dtype; /* tensors */
  int32_t dim;
  int32_t dynamism;
  int64_t sizes[PTE_MAX_DIM]; /* upper bounds for dynamic tensors */
  uint8_t dim_order[PTE_MAX_DIM];
  bool planned;  /* memory planned (input bytes are copied in) */
  size_t nbytes; /* at the upper bound */
} pte_io_info;

PTE_API pte_status pte_program_method_info(const pte_program *program, const char *method,
                                           pte_method_info *out);
PTE_API pte_status pte_program_method_input(const pte_program *program, const char *method, int32_t index,
                                            pte_io_info *out);
PTE_API pte_status pte_program_method_output(const pte_program *program, const char *method, int32_t index,
                                             pte_io_info *out);
PTE_API pte_status pte_program_method_planned_size(const pte_program *program, const char *method,
                                                   int32_t index, int64_t *bytes);
/* Attributes of a method (ExecuTorch's MethodMeta attributes): its tensors
 * that carry a fully qualified name (mutable buffers the exporter named with
 * emit_mutable_buffer_names, weights kept outside the program), in the order
 * of the method's values. Functions added under ABI 2 (no struct changed). */
PTE_API pte_status pte_program_method_num_attributes(const pte_program *program, const char *method,
                                                     int32_t *count);
/* Attribute `index`: its name (valid while the program lives) and slot. */
PTE_API pte_status pte_program_method_attribute(const pte_program *program, const char *method, int32_t index,
                                                const char **name, pte_io_info *out);
/* Operator `index` of the method's operator table. */
PTE_API pte_status pte_program_method_operator(const pte_program *program, const char *method, int32_t index,
                                               const char **name, const char **overload);
/* Backend id of delegate `index`. */
PTE_API pte_status pte_program_method_delegate(const pte_program *program, const char *method, int32_t index,
                                               const char **backend_id);

/* ------------------------------------------------------------------------ */
/* Methods                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct pte_method pte_method;

typedef struct pte_method_options {
  uint32_t abi;                   /* PTE_ABI_VERSION (PTE_METHOD_OPTIONS_INIT) */
  const pte_allocator *allocator; /* NULL: malloc, once, at load */
  /* Caller-provided planned arenas, one per planned buffer, in order. When
   * NULL the runtime allocates them (once, at load). */
  void *const *planned_buffers;
  const size_t *planned_sizes;
  int32_t num_planned_buffers;
  size_t extra_scratch;     /* scratch bytes beyond what kernels ask for */
  const pte_tracer *tracer; /* sees METHOD_LOAD and every execute */
  int32_t max_instructions; /* per execute, guards against loops; 0 = 10,000,000 */
} pte_method_options;

/* pte_method_options o = PTE_METHOD_OPTIONS_INIT; (the defaults) */
#define PTE_METHOD_OPTIONS_INIT \
  { PTE_ABI_VERSION, 0, 0, 0, 0, 0, 0, 0 }

/* Load a method: values, planned memory, delegates, and every operator
 * resolved through the registry. Planned memory the runtime allocates is
 * zero-filled once, here (ExecuTorch's runtimes give a program zeros where
 * it reads state it stores no initial value for); caller-provided planned
 * buffers are used as given. `options` may be NULL. The program must
 * outlive the method. */
PTE_API pte_status pte_method_load(pte_program *program, const char *name, const pte_method_options *options,
                                   pte_method **out);
PTE_API void pte_method_free(pte_method *method);

PTE_API const char *pte_method_name(const pte_method *method);
PTE_API int32_t pte_method_num_inputs(const pte_method *method);
PTE_API int32_t pte_method_num_outputs(const pte_method *method);
/* Bytes the runtime allocated for this method (structures, planned, scratch). */
PTE_API size_t pte_method_memory_used(const pte_method *method);
/* Constant folding: at load, a kernel instruction whose tensor inputs are all
 * constants (or outputs of instructions already folded) runs once into memory
 * the method owns and is skipped at execute. Only a single planned output no
 * larger than those inputs, written by no other instruction and not a method
 * input or output, is folded; random operators never are. A malloc-free
 * allocator folds while it has room. Off with PTE_LOAD_NO_FOLD. */
PTE_API int32_t pte_method_num_folded(const pte_method *method);
/* Instructions a load-time rule gave a kernel of its own with state
 * (pte_rewrite_set_kernel: e.g. a product's constant weight packed once). */
PTE_API int32_t pte_method_num_prepared(const pte_method *method);
/* The operator name of `instruction` if it was folded, else NULL. */
PTE_API const char *pte_method_instruction_folded(const pte_method *method, int32_t instruction);

/* Set input `index`. Tensors are checked against the method (dtype, rank,
 * sizes within bounds); planned inputs are copied in, unplanned ones share
 * the caller's data, which must then stay valid through execute. The
 * program's memory plan may give a planned input's bytes to a later value
 * once the input was last read (ExecuTorch's planner does): set inputs
 * again before each execute. */
PTE_API pte_status pte_method_set_input(pte_method *method, int32_t index, const pte_value *value);
PTE_API pte_status pte_method_set_input_tensor(pte_method *method, int32_t index, const pte_tensor *tensor);
/* The input slot itself (e.g. to write into planned input memory directly). */
PTE_API const pte_value *pte_method_input(const pte_method *method, int32_t index);

/* Run the method. No heap allocation and no I/O happen here. */
PTE_API pte_status pte_method_execute(pte_method *method);

/* Output `index` after execute (planned outputs are overwritten by the next
 * run). A tensor output is always at the shape of the last run (a dynamic
 * one is resized by the kernel that wrote it), never at its upper bound. */
PTE_API const pte_value *pte_method_output(const pte_method *method, int32_t index);

/* Outputs the memory plan leaves unallocated (ExecuTorch's
 * MemoryPlanningPass(alloc_graph_output=False)) get bytes of the method's
 * own at load, as large as the output's upper bound. Lend the method other
 * memory for output `index` instead: at least that many bytes (the output's
 * pte_io_info nbytes), aligned for its dtype, valid through every execute
 * until set again; later runs write there. data NULL gives the method its
 * own bytes back. Refused for an output with memory of the program's (memory
 * planned, a constant, or an input). A function added under ABI 2 (no
 * struct changed). */
PTE_API pte_status pte_method_set_output(pte_method *method, int32_t index, void *data, size_t nbytes);

/* A loaded method's attribute by name (see pte_program_method_attribute):
 * the tensor as the method holds it, the state after the last execute; NULL
 * if the method has no attribute of that name. */
PTE_API const pte_value *pte_method_attribute(const pte_method *method, const char *name);

/* Attach (or detach with NULL) a tracer for subsequent executes. A tracer of
 * another ABI is refused and the method keeps its current one. */
PTE_API pte_status pte_method_set_tracer(pte_method *method, const pte_tracer *tracer);

/* ------------------------------------------------------------------------ */
/* Component libraries                                                      */
/* ------------------------------------------------------------------------ */

/* Open a pterun component or operator library at run time and register what
 * it provides: a `pte_<component>_register` entry point named after the file
 * (libpterun_backend_xnnpack.so.0 → pte_backend_xnnpack_register) is called if
 * present, otherwise the library's own load-time registration applies. Loading
 * the same library twice is harmless. */
PTE_API pte_status pte_library_load(const char *path);
/* Load every pterun component installed next to libpterun. Returns how many
 * were loaded in *count (may be NULL). */
PTE_API pte_status pte_library_load_all(int32_t *count);
/* Directory libpterun was loaded from ("" if unknown). */
PTE_API const char *pte_library_dir(void);

/* Open a third-party library privately, so its symbols never bind to (or
 * from) another copy in the process, e.g. torch's: dlopen(RTLD_NOW |
 * RTLD_LOCAL | RTLD_DEEPBIND) of the first that loads of
 *   1. the path in environment variable `env` (if env is set and not empty),
 *   2. `vendored` next to libpterun (the wheel's renamed copy; may be NULL),
 *   3. `soname` next to libpterun, after opening each of `deps` (sonames,
 *      NULL-terminated list, may be NULL) found there, since a copy found by
 *      soname resolves its own dependencies by soname,
 *   4. `soname` through the system's search path.
 * Returns the handle (never closed: code from it may be in use) and copies
 * what was opened into path[0..path_size); NULL with "cannot load <soname>
 * (<why>)" as the error if nothing loaded. */
PTE_API void *pte_library_open_private(const char *soname, const char *env, const char *vendored,
                                       const char *const *deps, char *path, size_t path_size);

/* ------------------------------------------------------------------------ */
/* Flatbuffer helpers (for backend payloads)                                */
/* ------------------------------------------------------------------------ */

/* A schema description: enough to verify a flatbuffer before reading it. */
typedef enum pte_fb_kind {
  PTE_FB_SCALAR = 1, /* size in `size` (1, 2, 4 or 8) */
  PTE_FB_STRING = 2,
  PTE_FB_TABLE = 3,      /* `table` */
  PTE_FB_VEC_SCALAR = 4, /* element size in `size` */
  PTE_FB_VEC_STRING = 5,
  PTE_FB_VEC_TABLE = 6,  /* `table` */
  PTE_FB_UNION_TYPE = 7, /* u8 tag; the next slot is the union value */
  PTE_FB_UNION = 8,      /* member tables in `members[tag-1]`, count `num_members` */
  PTE_FB_STRUCT = 9      /* inline struct of `size` bytes */
} pte_fb_kind;

typedef struct pte_fb_table pte_fb_table;

typedef struct pte_fb_slot {
  const char *name;
  uint8_t kind;
  uint8_t size;
  uint8_t num_members;
  const pte_fb_table *table;
  const pte_fb_table *const *members;
} pte_fb_slot;

struct pte_fb_table {
  const char *name;
  int32_t num_fields;
  const pte_fb_slot *fields;
};

/* Describing a schema, one slot per field in declaration order (a union takes
 * two: its type byte, then its value):
 *   PTE_FB_TABLE_DEF(t_point, "Point", PTE_FB_SCALAR_F("x", 4), PTE_FB_STRING_F("label"));
 * defines `static const pte_fb_table t_point`. */
#define PTE_FB_COUNTOF(a) ((int32_t)(sizeof(a) / sizeof((a)[0])))
#define PTE_FB_SCALAR_F(nm, sz) \
  { nm, PTE_FB_SCALAR, sz, 0, 0, 0 }
#define PTE_FB_STRUCT_F(nm, sz) \
  { nm, PTE_FB_STRUCT, sz, 0, 0, 0 }
#define PTE_FB_STRING_F(nm) \
  { nm, PTE_FB_STRING, 0, 0, 0, 0 }
#define PTE_FB_TABLE_F(nm, t) \
  { nm, PTE_FB_TABLE, 0, 0, &t, 0 }
#define PTE_FB_VEC_SCALAR_F(nm, sz) \
  { nm, PTE_FB_VEC_SCALAR, sz, 0, 0, 0 }
#define PTE_FB_VEC_STRING_F(nm) \
  { nm, PTE_FB_VEC_STRING, 0, 0, 0, 0 }
#define PTE_FB_VEC_TABLE_F(nm, t) \
  { nm, PTE_FB_VEC_TABLE, 0, 0, &t, 0 }
#define PTE_FB_UNION_TYPE_F(nm) \
  { nm, PTE_FB_UNION_TYPE, 1, 0, 0, 0 }
#define PTE_FB_UNION_F(nm, members) \
  { nm, PTE_FB_UNION, 0, (uint8_t)PTE_FB_COUNTOF(members), 0, members }
#define PTE_FB_TABLE_DEF(var, nm, ...)                     \
  static const pte_fb_slot var##_fields[] = {__VA_ARGS__}; \
  static const pte_fb_table var = {nm, PTE_FB_COUNTOF(var##_fields), var##_fields}

/* Verify that buf[0..size) holds a flatbuffer whose root is `root` (all
 * offsets, vectors, strings and union tags in range). `identifier` (4 chars,
 * may be NULL) must match bytes 4..7. On failure the error names the path. */
PTE_API pte_status pte_fb_verify(const void *buf, size_t size, const pte_fb_table *root,
                                 const char *identifier);

/* Readers for a verified buffer. A table is an offset from the buffer start. */
typedef struct pte_fb {
  const uint8_t *buf;
  size_t size;
} pte_fb;

static inline uint32_t pte_fb_u32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint16_t pte_fb_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint64_t pte_fb_u64(const uint8_t *p) {
  return (uint64_t)pte_fb_u32(p) | ((uint64_t)pte_fb_u32(p + 4) << 32);
}
/* Root table offset. */
static inline uint32_t pte_fb_root(pte_fb fb) { return pte_fb_u32(fb.buf); }
/* Offset of field `slot` in table `t`, or 0 if absent. */
static inline uint32_t pte_fb_field(pte_fb fb, uint32_t t, int slot) {
  uint32_t vt = (uint32_t)((int64_t)t - (int32_t)pte_fb_u32(fb.buf + t));
  uint16_t vsize = pte_fb_u16(fb.buf + vt);
  uint32_t at = 4u + 2u * (uint32_t)slot;
  if (at + 2 > vsize) return 0;
  uint16_t off = pte_fb_u16(fb.buf + vt + at);
  return off ? t + off : 0;
}
static inline uint64_t pte_fb_scalar(pte_fb fb, uint32_t t, int slot, int size, uint64_t dflt) {
  uint32_t f = pte_fb_field(fb, t, slot);
  if (!f) return dflt;
  switch (size) {
    case 1: return fb.buf[f];
    case 2: return pte_fb_u16(fb.buf + f);
    case 4: return pte_fb_u32(fb.buf + f);
    default: return pte_fb_u64(fb.buf + f);
  }
}
/* Referenced object (table, vector or string) of field `slot`, or 0. */
static inline uint32_t pte_fb_ref(pte_fb fb, uint32_t t, int slot) {
  uint32_t f = pte_fb_field(fb, t, slot);
  return f ? f + pte_fb_u32(fb.buf + f) : 0;
}
/* Vector at `v` (from pte_fb_ref): length, and element i's address or table. */
static inline uint32_t pte_fb_vec_len(pte_fb fb, uint32_t v) { return v ? pte_fb_u32(fb.buf + v) : 0; }
static inline const uint8_t *pte_fb_vec_data(pte_fb fb, uint32_t v) { return fb.buf + v + 4; }
static inline uint32_t pte_fb_vec_table(pte_fb fb, uint32_t v, uint32_t i) {
  uint32_t e = v + 4 + 4 * i;
  return e + pte_fb_u32(fb.buf + e);
}
/* String at `s` (NUL-terminated once verified), or NULL when s == 0. */
static inline const char *pte_fb_str(pte_fb fb, uint32_t s) {
  return s ? (const char *)(fb.buf + s + 4) : (const char *)0;
}

#ifdef __cplusplus
}
#endif

#endif /* PTERUN_RUNTIME_H */
