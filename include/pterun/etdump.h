/*
 * pterun etdump: a profiler and debugger for pterun methods (libpterun_etdump).
 *
 * A pte_etdump is an event tracer (see pte_tracer in runtime.h). Attach it to a
 * program load, a method load or a method, run, then write what it recorded:
 *
 *   - an ETDump file (the size-prefixed flatbuffer of ExecuTorch's ETDump
 *     schema, identifier "ED00") that executorch.devtools.Inspector opens
 *     without an ETRecord, plus the debug buffer its tensors refer to;
 *   - a Chrome trace-event JSON file (Perfetto, chrome://tracing);
 *   - a per-operator summary, as rows or as a text table;
 *   - with debug capture on, every instruction's outputs as .npy files plus an
 *     index.json.
 *
 * Recording never allocates: every record, name and captured tensor byte goes
 * into memory reserved once at create (or given by the caller). When it is
 * full, further events are counted as dropped, never recorded partially.
 *
 * Events, as written to the ETDump (ExecuTorch's names, so Inspector treats
 * them as it treats ExecuTorch's own):
 *   "Default" run block:  Program::load, Program::load_method > Method::init
 *   "Execute" run block (one per execute):  Method::execute, and per
 *     instruction OPERATOR_CALL > "<ns>::<op>.<overload>" (the kernel's own
 *     event, like ExecuTorch's native_call_* events), DELEGATE_CALL (with the
 *     delegate's BACKEND events inside, keyed by their delegate debug ids),
 *     MOVE_CALL, JF_CALL, FREE_CALL; DebugEvents with captured outputs.
 * Times are CLOCK_MONOTONIC nanoseconds.
 *
 * A pte_etdump records from one thread at a time: do not execute two methods
 * that share one concurrently. Event names are copied, so they need not
 * outlive the event; but a name's bytes must not change while the top-level
 * event (load or execute) it occurs in is running, as the runtime's and
 * delegates' names do not.
 */
#ifndef PTERUN_ETDUMP_H
#define PTERUN_ETDUMP_H

#include <pterun/runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pte_etdump pte_etdump;

typedef struct pte_etdump_options {
  uint32_t abi; /* PTE_ABI_VERSION (PTE_ETDUMP_OPTIONS_INIT) */
  /* Profile records (one per traced event: each instruction, each execute,
   * each delegate event). 0 = 65536. */
  int32_t max_events;
  /* Bytes for captured tensors. 0 = no debug capture. */
  size_t debug_buffer_size;
  /* Captured values (one per instruction output). 0 = 16384 when capturing. */
  int32_t max_debug_values;
  /* Distinct event names and the bytes for them. 0 = 4096 and 256 KiB. */
  int32_t max_names;
  size_t names_bytes;
  /* Caller memory for everything above (pte_etdump_memory_size tells how
   * much); NULL = one allocation at create. Must outlive the etdump. */
  void *memory;
  size_t memory_size;
} pte_etdump_options;

/* pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT; (the defaults) */
#define PTE_ETDUMP_OPTIONS_INIT \
  { PTE_ABI_VERSION, 0, 0, 0, 0, 0, 0, 0 }

/* Bytes pte_etdump_create needs for these options (NULL = defaults; 0 for
 * options it would refuse: too large, or of another ABI). */
PTE_API size_t pte_etdump_memory_size(const pte_etdump_options *options);

/* Create a recorder. `options` may be NULL (defaults, no debug capture). */
PTE_API pte_status pte_etdump_create(const pte_etdump_options *options, pte_etdump **out);
PTE_API void pte_etdump_free(pte_etdump *etdump);

/* The tracer to hand to pte_program_options.tracer, pte_method_options.tracer
 * or pte_method_set_tracer. Valid while the etdump lives. */
PTE_API const pte_tracer *pte_etdump_tracer(pte_etdump *etdump);

/* Shorthand for pte_method_set_tracer(method, pte_etdump_tracer(etdump)). */
PTE_API void pte_etdump_attach(pte_etdump *etdump, pte_method *method);

/* Turn capture of instruction outputs on or off (needs debug_buffer_size > 0
 * to be turned on; PTE_ERR_INVALID_STATE otherwise). */
PTE_API pte_status pte_etdump_set_capture(pte_etdump *etdump, bool on);

/* Forget everything recorded (names are kept). */
PTE_API void pte_etdump_reset(pte_etdump *etdump);

typedef struct pte_etdump_stats {
  int64_t events;         /* profile records kept */
  int64_t dropped_events; /* profile records that did not fit */
  int64_t debug_values;   /* captured values kept */
  int64_t dropped_debug_values;
  int64_t debug_bytes; /* bytes of the debug buffer used */
  int64_t executes;    /* Method::execute events kept */
  int64_t runs;        /* run blocks ("Default", "Execute") */
} pte_etdump_stats;

PTE_API void pte_etdump_get_stats(const pte_etdump *etdump, pte_etdump_stats *out);

/* ---- output files (none of these may run while the etdump records) ---- */

/* The ETDump flatbuffer (size-prefixed). With `debug_buffer_path` (may be
 * NULL) the captured tensors are written there too: tensor offsets in the
 * ETDump are offsets into that file (Inspector's debug_buffer_path). */
PTE_API pte_status pte_etdump_write(const pte_etdump *etdump, const char *path,
                                    const char *debug_buffer_path);
/* The same flatbuffer in memory: *data is malloc'ed, release it with free(). */
PTE_API pte_status pte_etdump_serialize(const pte_etdump *etdump, void **data, size_t *size);
/* The captured bytes alone (the debug buffer file). */
PTE_API pte_status pte_etdump_write_debug_buffer(const pte_etdump *etdump, const char *path);

/* Chrome trace-event JSON: one "X" (complete) event per record with ts and
 * dur in microseconds from the first record, nested by time on one track. */
PTE_API pte_status pte_etdump_write_trace(const pte_etdump *etdump, const char *path);

/* Captured outputs of one execute as DIR/<instruction>_<op>_<k>.npy (":" in
 * the op becomes "_"), the method's outputs as DIR/output_<k>.npy and
 * DIR/index.json listing every value. `execute` counts the executes recorded
 * (0 = the first; -1 = the last). DIR is created if missing. */
PTE_API pte_status pte_etdump_write_debug_tensors(const pte_etdump *etdump, const char *dir, int32_t execute);

/* ---- summary ---- */

/* One row per distinct event name and kind among instruction-level events
 * (kind OPERATOR, DELEGATE, MOVE, JUMP, FREE) and delegate-internal events
 * (kind BACKEND), over every execute recorded. */
typedef struct pte_etdump_row {
  const char *name; /* operator name, backend id for DELEGATE rows; valid until reset/free */
  int32_t kind;     /* pte_event_kind */
  int64_t count;
  uint64_t total_ns;
  uint64_t min_ns;
  uint64_t max_ns;
  double mean_ns;
  double share; /* total_ns / time of all executes (BACKEND rows overlap their DELEGATE row) */
} pte_etdump_row;

/* Fill up to `max_rows` rows, instruction-level rows first, each group sorted
 * by total time, descending. Returns the number of rows there are (may exceed
 * max_rows; rows may be NULL to ask), or -1 when out of memory. */
PTE_API int32_t pte_etdump_summary(const pte_etdump *etdump, pte_etdump_row *rows, int32_t max_rows);

/* Total time of all executes recorded, and how many there were. */
PTE_API uint64_t pte_etdump_execute_ns(const pte_etdump *etdump, int64_t *count);

/* The summary as a text table, like snprintf: writes at most `size` bytes
 * (NUL-terminated when size > 0) and returns the length the whole table needs. */
PTE_API size_t pte_etdump_table(const pte_etdump *etdump, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* PTERUN_ETDUMP_H */
