/* Saving parameters as a .ptd (FlatTensor) file, the format the runtime's
 * data maps read: a flatbuffer (identifier "FT01") whose first 8 bytes are
 * followed by the 40-byte "FH01" header (flatbuffer offset and size, segment
 * base and size), then the tensors' bytes, each an aligned segment. The
 * flatbuffer is written with the builder the etdump component uses. */
#include "fbb.h"
#include "training_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PTD_HEADER 40
#define PTD_ALIGN 64

/* flatbuffer slots of flat_tensor.fbs (declaration order) */
enum { FT_VERSION, FT_SEGMENTS, FT_NAMED_DATA };
enum { SEG_OFFSET, SEG_SIZE };
enum { ND_KEY, ND_SEGMENT_INDEX, ND_TENSOR_LAYOUT };
enum { TL_SCALAR_TYPE, TL_SIZES, TL_DIM_ORDER };

static size_t align_up(size_t v) { return (v + PTD_ALIGN - 1) & ~(size_t)(PTD_ALIGN - 1); }

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

pte_status pte_training_save_ptd(const pte_training_module *m, const char *path) {
  if (!m || !path) return pte_error(PTE_ERR_INVALID_ARGUMENT, "module and path must not be NULL");
  int32_t n = pte_training_parameter_count(m);
  pte_tensor *const *params = pte_training_parameters((pte_training_module *)m);
  fbb b;
  fbb_init(&b);
  fbb_ref *segs = (fbb_ref *)calloc((size_t)n + 1, sizeof *segs);
  fbb_ref *named = (fbb_ref *)calloc((size_t)n + 1, sizeof *named);
  size_t data_size = 0;
  pte_status st = PTE_OK;
  if (!segs || !named) st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  for (int32_t i = 0; i < n && !st; i++) {
    const pte_tensor *t = params[i];
    size_t bytes = pte_tensor_nbytes(t);
    fbb_table_start(&b);
    fbb_add_u64(&b, SEG_OFFSET, data_size);
    fbb_add_u64(&b, SEG_SIZE, bytes);
    segs[i] = fbb_table_end(&b);
    data_size = align_up(data_size + bytes);
    int32_t sizes[PTE_MAX_DIM];
    for (int32_t d = 0; d < t->dim; d++) sizes[d] = (int32_t)t->sizes[d];
    fbb_ref key = fbb_string(&b, pte_training_parameter_name(m, i));
    fbb_ref vs = fbb_vec_scalars(&b, 4, (size_t)t->dim, sizes);
    fbb_ref vo = fbb_vec_scalars(&b, 1, (size_t)t->dim, t->dim_order);
    fbb_table_start(&b);
    fbb_add_u8(&b, TL_SCALAR_TYPE, (uint8_t)t->dtype);
    fbb_add_ref(&b, TL_SIZES, vs);
    fbb_add_ref(&b, TL_DIM_ORDER, vo);
    fbb_ref layout = fbb_table_end(&b);
    fbb_table_start(&b);
    fbb_add_ref(&b, ND_KEY, key);
    fbb_add_u32(&b, ND_SEGMENT_INDEX, (uint32_t)i);
    fbb_add_ref(&b, ND_TENSOR_LAYOUT, layout);
    named[i] = fbb_table_end(&b);
  }
  uint8_t *file = NULL;
  size_t total = 0, base = 0;
  if (!st) {
    fbb_ref vseg = fbb_vec_refs(&b, segs, (size_t)n), vnamed = fbb_vec_refs(&b, named, (size_t)n);
    fbb_table_start(&b);
    fbb_add_u32(&b, FT_VERSION, 0);
    fbb_add_ref(&b, FT_SEGMENTS, vseg);
    fbb_add_ref(&b, FT_NAMED_DATA, vnamed);
    fbb_ref root = fbb_table_end(&b);
    size_t fb_size = 0;
    const uint8_t *fb = fbb_finish(&b, root, "FT01", false, &fb_size);
    if (!fbb_ok(&b) || !fb || fb_size < 8)
      st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory building the .ptd");
    if (!st) {
      /* The header goes after the root offset and identifier; everything
       * behind it moves by PTD_HEADER bytes (a multiple of 8, so alignment
       * holds), which only the root offset (from byte 0) has to follow. */
      size_t fb_total = fb_size + PTD_HEADER;
      base = align_up(fb_total);
      total = base + data_size;
      file = (uint8_t *)calloc(1, total ? total : 1);
      if (!file) st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory building the .ptd");
      if (!st) {
        memcpy(file, fb, 8);
        put_u32(file, (uint32_t)(fb[0] | fb[1] << 8 | fb[2] << 16 | (uint32_t)fb[3] << 24) + PTD_HEADER);
        memcpy(file + 8, "FH01", 4);
        put_u32(file + 12, PTD_HEADER);
        put_u64(file + 16, 8 + PTD_HEADER);
        put_u64(file + 24, fb_size - 8);
        put_u64(file + 32, base);
        put_u64(file + 40, data_size);
        memcpy(file + 8 + PTD_HEADER, fb + 8, fb_size - 8);
        size_t off = 0;
        for (int32_t i = 0; i < n; i++) {
          size_t bytes = pte_tensor_nbytes(params[i]);
          if (bytes) memcpy(file + base + off, params[i]->data, bytes);
          off = align_up(off + bytes);
        }
      }
    }
  }
  fbb_release(&b);
  free(segs);
  free(named);
  if (!st) {
    FILE *f = fopen(path, "wb");
    if (!f) st = pte_error(PTE_ERR_IO, "cannot write '%s'", path);
    else {
      bool ok = fwrite(file, 1, total, f) == total;
      if (fclose(f) != 0) ok = false;
      if (!ok) st = pte_error(PTE_ERR_IO, "writing '%s' failed", path);
    }
  }
  free(file);
  return st;
}
