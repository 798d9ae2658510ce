/* A small flatbuffer builder: enough of the format to write ETDump files.
 *
 * Like the reference builders it writes back to front, children before their
 * parents, so every offset points forward. An object is named by its distance
 * from the end of the buffer (fbb_ref), which stays valid as the buffer grows.
 * Allocation failures are sticky: check fbb_ok() once at the end. */
#ifndef PTERUN_FBB_H
#define PTERUN_FBB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FBB_MAX_FIELDS 16
#define FBB_VTABLE_CACHE 32

typedef uint32_t fbb_ref;

typedef struct fbb {
  uint8_t *buf;
  size_t cap;
  size_t size; /* bytes in use, at the end of buf */
  size_t minalign;
  bool oom;
  size_t table_start;
  uint32_t field[FBB_MAX_FIELDS]; /* size after each field was written, 0 = absent */
  int nfields;
  fbb_ref vtables[FBB_VTABLE_CACHE]; /* recent vtables, shared when identical */
  int nvtables;
} fbb;

void fbb_init(fbb *b);
void fbb_release(fbb *b);
static inline bool fbb_ok(const fbb *b) { return !b->oom; }

fbb_ref fbb_string(fbb *b, const char *s);
/* A vector of `count` little-endian scalars of `elem` bytes each (1, 4 or 8). */
fbb_ref fbb_vec_scalars(fbb *b, size_t elem, size_t count, const void *data);
fbb_ref fbb_vec_refs(fbb *b, const fbb_ref *refs, size_t count);

void fbb_table_start(fbb *b);
void fbb_add_u8(fbb *b, int slot, uint8_t v);
void fbb_add_i32(fbb *b, int slot, int32_t v);
void fbb_add_u32(fbb *b, int slot, uint32_t v);
void fbb_add_i64(fbb *b, int slot, int64_t v);
void fbb_add_u64(fbb *b, int slot, uint64_t v);
void fbb_add_f64(fbb *b, int slot, double v);
void fbb_add_ref(fbb *b, int slot, fbb_ref ref);
fbb_ref fbb_table_end(fbb *b);

/* Finish with `root`, a 4-character file identifier (may be NULL) and, when
 * size_prefixed, a leading u32 length. Returns the finished bytes (inside the
 * builder) and their size. */
const uint8_t *fbb_finish(fbb *b, fbb_ref root, const char *identifier, bool size_prefixed, size_t *size);

#endif
