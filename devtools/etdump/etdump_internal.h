/* Internal layout of a pte_etdump: what the tracer callbacks record and the
 * writers read. Everything lives in one block reserved at create. */
#ifndef PTERUN_ETDUMP_INTERNAL_H
#define PTERUN_ETDUMP_INTERNAL_H

#include <pterun/etdump.h>

#define ETD_MAX_DEPTH 64 /* nesting of open events tracked for parents */
#define ETD_NO_TOKEN UINT64_MAX

enum { ETD_BLOCK_DEFAULT = 0, ETD_BLOCK_EXECUTE = 1 };

/* One traced event (begin..end). */
typedef struct etd_rec {
  uint64_t start;
  uint64_t end; /* 0 while open */
  int64_t debug_id;
  int32_t name; /* interned ids; -1 = none */
  int32_t method;
  int32_t instruction;
  int32_t parent; /* enclosing record, -1 at top level */
  int32_t block;  /* run block index */
  int16_t chain;
  uint8_t kind; /* pte_event_kind */
  uint8_t depth;
} etd_rec;

/* One captured value: an instruction output or a method output. */
typedef struct etd_dbg {
  int64_t after; /* profile records that existed when captured (orders the two lists) */
  int64_t debug_id;
  int32_t block;
  int32_t instruction;
  int32_t name;
  int32_t method;
  int32_t index;     /* k-th output of its event */
  uint8_t kind;      /* of its event */
  uint8_t tag;       /* PTE_TAG_TENSOR, INT, DOUBLE, BOOL, NONE */
  uint8_t is_output; /* a method output (EXECUTE event) */
  uint8_t has_data;
  int32_t dtype;
  int32_t dim;
  uint64_t offset; /* into the debug buffer */
  uint64_t nbytes;
  union {
    int64_t i;
    double d;
  } scalar;
  int64_t sizes[PTE_MAX_DIM];
  int64_t strides[PTE_MAX_DIM];
} etd_dbg;

typedef struct etd_pslot {
  const char *ptr;
  int32_t id;
  uint32_t epoch; /* top-level event in which ptr was last checked */
} etd_pslot;

struct pte_etdump {
  pte_tracer tracer;
  void *owned; /* the block we allocated, NULL when the caller gave memory */

  etd_rec *recs;
  int32_t max_recs;
  int32_t nrecs;
  int64_t dropped;

  uint8_t *block_kind; /* per block: ETD_BLOCK_* */
  int32_t nblocks;
  int32_t executes;
  bool block_ok; /* the current block exists (its first event was not dropped) */

  int32_t stack[ETD_MAX_DEPTH]; /* open records (-1 for dropped ones) */
  int32_t depth;
  int32_t overflow; /* opens beyond ETD_MAX_DEPTH, not on the stack */

  etd_dbg *dbg;
  int32_t max_dbg;
  int32_t ndbg;
  int64_t dropped_dbg;
  uint8_t *dbuf;
  size_t dbuf_cap;
  size_t dbuf_used;

  char *names;
  size_t names_cap;
  size_t names_used;
  int32_t *name_off;
  int32_t max_names;
  int32_t nnames;
  int32_t *htab;     /* content hash -> name id, -1 empty */
  etd_pslot *pcache; /* pointer -> name id, checked with strcmp */
  uint32_t hmask;
  uint32_t epoch; /* counts top-level events (loads, executes) */
};

static inline const char *etd_name(const pte_etdump *e, int32_t id) {
  return id >= 0 && id < e->nnames ? e->names + e->name_off[id] : "";
}

/* Intern `s` outside the hot path too (writers use it for fixed names). */
int32_t etd_intern(pte_etdump *e, const char *s);

/* Write helpers shared by the writers. */
pte_status etd_write_file(const char *path, const void *data, size_t size);
const char *etd_kind_name(int32_t kind);
#include <stdio.h>
/* A JSON string literal for `s`. */
void etd_json_str(FILE *f, const char *s);

#endif
