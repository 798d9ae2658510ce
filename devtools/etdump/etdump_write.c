/* Serializing what was recorded as an ETDump flatbuffer.
 *
 * The layout follows the schema that ships with the executorch package
 * (devtools/etdump/etdump_schema_flatcc.fbs); field numbers below are the
 * declaration order there. Default-valued fields are still written where
 * ExecuTorch's writer writes them, so flatc's JSON matches in shape. */
#include <stdlib.h>
#include <string.h>

#include "etdump_internal.h"
#include "fbb.h"

#define ETDUMP_VERSION 0

/* table ETDump */
enum { ETDUMP_VERSION_F, ETDUMP_RUN_DATA };
/* table RunData */
enum { RUN_NAME, RUN_BUNDLED_INPUT_INDEX, RUN_ALLOCATORS, RUN_EVENTS };
/* table Event */
enum { EVENT_PROFILE, EVENT_ALLOCATION, EVENT_DEBUG };
/* table ProfileEvent */
enum {
  PE_NAME,
  PE_CHAIN,
  PE_INSTRUCTION,
  PE_DELEGATE_INT,
  PE_DELEGATE_STR,
  PE_DELEGATE_META,
  PE_START,
  PE_END
};
/* table DebugEvent */
enum { DE_CHAIN, DE_INSTRUCTION, DE_ENTRY, DE_DELEGATE_INT, DE_DELEGATE_STR, DE_NAME };
/* table Value */
enum { VAL_TYPE, VAL_TENSOR, VAL_TENSOR_LIST, VAL_INT, VAL_FLOAT, VAL_DOUBLE, VAL_BOOL, VAL_OUTPUT };
/* enum ValueType */
enum { VT_NULL, VT_INT, VT_BOOL, VT_FLOAT, VT_DOUBLE, VT_TENSOR, VT_TENSOR_LIST, VT_STRING };
/* table Tensor */
enum { TENSOR_SCALAR_TYPE, TENSOR_SIZES, TENSOR_STRIDES, TENSOR_OFFSET };

typedef struct writer {
  const pte_etdump *e;
  fbb b;
  fbb_ref *strings; /* per name id, 0 = not written yet */
  fbb_ref fixed[8];
} writer;

enum { S_OPERATOR_CALL, S_DELEGATE_CALL, S_LOAD_METHOD, S_DEFAULT, S_EXECUTE, S_COUNT };
static const char *const k_fixed[S_COUNT] = {"OPERATOR_CALL", "DELEGATE_CALL", "Program::load_method",
                                             "Default", "Execute"};

static fbb_ref name_ref(writer *w, int32_t id) {
  if (id < 0 || id >= w->e->nnames) return 0;
  if (!w->strings[id]) w->strings[id] = fbb_string(&w->b, etd_name(w->e, id));
  return w->strings[id];
}

static fbb_ref fixed_ref(writer *w, int which) {
  if (!w->fixed[which]) w->fixed[which] = fbb_string(&w->b, k_fixed[which]);
  return w->fixed[which];
}

static fbb_ref wrap_event(writer *w, int slot, fbb_ref inner) {
  fbb_table_start(&w->b);
  fbb_add_ref(&w->b, slot, inner);
  return fbb_table_end(&w->b);
}

/* One ProfileEvent wrapped in an Event. `name` 0 = no name. */
static fbb_ref profile_event(writer *w, const etd_rec *r, fbb_ref name, bool delegate_ids) {
  fbb *b = &w->b;
  fbb_ref dstr = 0, meta = 0;
  bool dint = false;
  if (delegate_ids) {
    /* Delegate events are keyed by their debug id: an integer when the
     * delegate has one, else its name (ExecuTorch does the same). */
    dint = r->debug_id >= 0 && r->debug_id <= INT32_MAX;
    if (!dint) dstr = name_ref(w, r->name);
    meta = fbb_vec_scalars(b, 1, 0, "");
  }
  fbb_table_start(b);
  fbb_add_u64(b, PE_START, r->start);
  fbb_add_u64(b, PE_END, r->end);
  if (name) fbb_add_ref(b, PE_NAME, name);
  fbb_add_i32(b, PE_CHAIN, r->chain);
  fbb_add_i32(b, PE_INSTRUCTION, r->instruction);
  if (delegate_ids) {
    if (dint) fbb_add_i32(b, PE_DELEGATE_INT, (int32_t)r->debug_id);
    else if (dstr) fbb_add_ref(b, PE_DELEGATE_STR, dstr);
    fbb_add_ref(b, PE_DELEGATE_META, meta);
  }
  return wrap_event(w, EVENT_PROFILE, fbb_table_end(b));
}

/* The events one record becomes. Returns how many refs were stored in out. */
static int record_events(writer *w, const etd_rec *r, fbb_ref *out) {
  switch (r->kind) {
    case PTE_EVENT_OPERATOR:
      /* The instruction, then the kernel inside it named by its operator,
       * like ExecuTorch's OPERATOR_CALL and native_call_<op> pair. pterun
       * times both with one pair of timestamps: its dispatch is a direct call,
       * so the framework share is not separable and both spans are equal. */
      out[0] = profile_event(w, r, fixed_ref(w, S_OPERATOR_CALL), false);
      out[1] = profile_event(w, r, name_ref(w, r->name), false);
      return 2;
    case PTE_EVENT_DELEGATE: out[0] = profile_event(w, r, fixed_ref(w, S_DELEGATE_CALL), false); return 1;
    case PTE_EVENT_METHOD_LOAD:
      out[0] = profile_event(w, r, fixed_ref(w, S_LOAD_METHOD), false);
      out[1] = profile_event(w, r, name_ref(w, r->name), false);
      return 2;
    case PTE_EVENT_BACKEND: out[0] = profile_event(w, r, name_ref(w, r->name), true); return 1;
    default: /* loads, execute, MOVE_CALL, JF_CALL, FREE_CALL: the runtime's names */
      out[0] = profile_event(w, r, name_ref(w, r->name), false);
      return 1;
  }
}

/* The Int, Bool and Double tables: the value as their one field. */
static fbb_ref scalar_table(fbb *b, uint8_t tag, int64_t i, double v) {
  fbb_table_start(b);
  if (tag == PTE_TAG_INT) fbb_add_i64(b, 0, i);
  else if (tag == PTE_TAG_BOOL) fbb_add_u8(b, 0, (uint8_t)(i != 0));
  else fbb_add_f64(b, 0, v);
  return fbb_table_end(b);
}

static fbb_ref debug_event(writer *w, const etd_dbg *d) {
  fbb *b = &w->b;
  fbb_ref payload = 0, output = 0, dstr = 0;
  uint8_t type = VT_NULL;
  int slot = -1;
  switch (d->tag) {
    case PTE_TAG_TENSOR: {
      fbb_ref sizes = fbb_vec_scalars(b, 8, (size_t)d->dim, d->sizes);
      fbb_ref strides = fbb_vec_scalars(b, 8, (size_t)d->dim, d->strides);
      fbb_table_start(b);
      fbb_add_i64(b, TENSOR_OFFSET, (int64_t)d->offset);
      fbb_add_ref(b, TENSOR_SIZES, sizes);
      fbb_add_ref(b, TENSOR_STRIDES, strides);
      fbb_add_u8(b, TENSOR_SCALAR_TYPE, (uint8_t)d->dtype);
      payload = fbb_table_end(b);
      type = VT_TENSOR;
      slot = VAL_TENSOR;
      break;
    }
    /* A scalar's table is written below, with the others of its kind. */
    case PTE_TAG_INT:
      type = VT_INT;
      slot = VAL_INT;
      break;
    case PTE_TAG_BOOL:
      type = VT_BOOL;
      slot = VAL_BOOL;
      break;
    case PTE_TAG_DOUBLE:
      type = VT_DOUBLE;
      slot = VAL_DOUBLE;
      break;
    default: break;
  }
  if (slot >= 0 && d->tag != PTE_TAG_TENSOR) payload = scalar_table(b, d->tag, d->scalar.i, d->scalar.d);
  if (d->is_output) output = scalar_table(b, PTE_TAG_BOOL, 1, 0.0); /* output: Bool{true} */
  fbb_table_start(b);
  if (slot >= 0) fbb_add_ref(b, slot, payload);
  if (output) fbb_add_ref(b, VAL_OUTPUT, output);
  fbb_add_u8(b, VAL_TYPE, type);
  fbb_ref value = fbb_table_end(b);

  bool delegate = d->kind == PTE_EVENT_BACKEND;
  bool dint = delegate && d->debug_id >= 0 && d->debug_id <= INT32_MAX;
  if (delegate && !dint) dstr = name_ref(w, d->name);
  fbb_table_start(b);
  /* chain_index is a ulong here (an int in ProfileEvent): method outputs,
   * which belong to no chain, get 0 rather than a wrapped -1. */
  fbb_add_u64(b, DE_CHAIN, 0);
  fbb_add_i32(b, DE_INSTRUCTION, d->is_output ? -1 : d->instruction);
  fbb_add_ref(b, DE_ENTRY, value);
  if (dint) fbb_add_i32(b, DE_DELEGATE_INT, (int32_t)d->debug_id);
  if (dstr) fbb_add_ref(b, DE_DELEGATE_STR, dstr);
  /* No name for operator outputs: Inspector would rename the OPERATOR_CALL
   * row after it (ExecuTorch leaves it unset too). */
  return wrap_event(w, EVENT_DEBUG, fbb_table_end(b));
}

pte_status pte_etdump_serialize(const pte_etdump *e, void **data, size_t *size) {
  if (!e || !data || !size)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "etdump, data and size must not be NULL");
  *data = NULL;
  *size = 0;
  writer w;
  memset(&w, 0, sizeof w);
  w.e = e;
  fbb_init(&w.b);
  w.strings = (fbb_ref *)calloc((size_t)e->nnames + 1, sizeof(fbb_ref));
  /* Per run: events (two per record at most, plus the captured values). */
  size_t cap = 2 * (size_t)e->nrecs + (size_t)e->ndbg + 1;
  fbb_ref *events = (fbb_ref *)malloc(cap * sizeof(fbb_ref));
  fbb_ref *runs = (fbb_ref *)malloc(((size_t)e->nblocks + 1) * sizeof(fbb_ref));
  pte_status st = PTE_OK;
  if (!w.strings || !events || !runs) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: out of memory serializing");
    goto done;
  }
  int32_t ri = 0, di = 0;
  for (int32_t blk = 0; blk < e->nblocks; blk++) {
    size_t n = 0;
    /* Records in start order; each captured value after the records that
     * existed when it was taken (so after the instruction it belongs to). */
    while (ri < e->nrecs && e->recs[ri].block == blk) {
      const etd_rec *r = &e->recs[ri];
      if (r->end) n += (size_t)record_events(&w, r, events + n); /* still open: no span to report */
      ri++;
      while (di < e->ndbg && e->dbg[di].block == blk && e->dbg[di].after <= ri)
        events[n++] = debug_event(&w, &e->dbg[di++]);
    }
    while (di < e->ndbg && e->dbg[di].block == blk) events[n++] = debug_event(&w, &e->dbg[di++]);
    fbb_ref vec = fbb_vec_refs(&w.b, events, n);
    fbb_ref name = fixed_ref(&w, e->block_kind[blk] == ETD_BLOCK_EXECUTE ? S_EXECUTE : S_DEFAULT);
    fbb_table_start(&w.b);
    fbb_add_ref(&w.b, RUN_NAME, name);
    fbb_add_i32(&w.b, RUN_BUNDLED_INPUT_INDEX, -1);
    fbb_add_ref(&w.b, RUN_EVENTS, vec);
    runs[blk] = fbb_table_end(&w.b);
  }
  fbb_ref run_vec = fbb_vec_refs(&w.b, runs, (size_t)e->nblocks);
  fbb_table_start(&w.b);
  fbb_add_u32(&w.b, ETDUMP_VERSION_F, ETDUMP_VERSION);
  fbb_add_ref(&w.b, ETDUMP_RUN_DATA, run_vec);
  fbb_ref root = fbb_table_end(&w.b);
  size_t len = 0;
  const uint8_t *bytes = fbb_finish(&w.b, root, "ED00", true, &len);
  if (!bytes) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: out of memory serializing");
    goto done;
  }
  void *copy = malloc(len ? len : 1);
  if (!copy) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "etdump: out of memory serializing");
    goto done;
  }
  memcpy(copy, bytes, len);
  *data = copy;
  *size = len;
done:
  free(w.strings);
  free(events);
  free(runs);
  fbb_release(&w.b);
  return st;
}

pte_status pte_etdump_write(const pte_etdump *e, const char *path, const char *debug_buffer_path) {
  void *data;
  size_t size;
  pte_status st = pte_etdump_serialize(e, &data, &size);
  if (st) return st;
  st = etd_write_file(path, data, size);
  free(data);
  if (!st && debug_buffer_path) st = pte_etdump_write_debug_buffer(e, debug_buffer_path);
  return st;
}
