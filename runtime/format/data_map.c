/* .ptd files (FlatTensor): named tensors stored outside the program. */
#include "program.h"
#include "schema.h"

#include <string.h>

static pte_status parse(pte_data_map *m) {
  const uint8_t *d = m->data;
  if (m->size < 48) return pte_error(PTE_ERR_INVALID_PROGRAM, "data file of %zu bytes is too small", m->size);
  if (memcmp(d + 4, "FT01", 4) != 0 || memcmp(d + 8, "FH01", 4) != 0)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "not a .ptd data file (expected identifier 'FT01' and header 'FH01')");
  uint32_t length = pte_fb_u32(d + 12);
  uint64_t fb_off = pte_fb_u64(d + 16);
  uint64_t fb_size = pte_fb_u64(d + 24);
  uint64_t base = pte_fb_u64(d + 32);
  uint64_t data_size = pte_fb_u64(d + 40);
  if (length < 40 || fb_off > m->size || fb_size > m->size - fb_off)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "data file header is invalid (length %u, flatbuffer %llu+%llu, file %zu)", length,
                     (unsigned long long)fb_off, (unsigned long long)fb_size, m->size);
  if (base > m->size || data_size > m->size - base)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "data file is truncated: segment data needs %llu bytes at offset %llu, file has %zu",
                     (unsigned long long)data_size, (unsigned long long)base, m->size);
  size_t total = (size_t)(fb_off + fb_size);
  pte_status st = pte_fb_verify(d, total, &pte_schema_flat_tensor, "FT01");
  if (st) {
    pte_error_prefix("data file");
    return st;
  }
  m->fb.buf = d;
  m->fb.size = total;
  uint32_t root = pte_fb_root(m->fb);
  m->segments.fb = m->fb;
  m->segments.vec = pte_fb_ref(m->fb, root, FT_SEGMENTS);
  m->segments.count = (int32_t)pte_fb_vec_len(m->fb, m->segments.vec);
  m->segments.base = d + base;
  m->segments.avail = m->size - base;
  m->segments.owner = "data file: ";
  m->named = pte_fb_ref(m->fb, root, FT_NAMED_DATA);
  m->num_named = (int32_t)pte_fb_vec_len(m->fb, m->named);
  for (int32_t i = 0; i < m->num_named; i++) {
    uint32_t nd = pte_fb_vec_table(m->fb, m->named, (uint32_t)i);
    if (!pte_fb_ref(m->fb, nd, FTND_KEY))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "data file: named_data[%d] has no key", (int)i);
    const uint8_t *sd;
    size_t ss;
    if ((st = pte_segment_get(&m->segments, pte_fb_scalar(m->fb, nd, FTND_SEGMENT_INDEX, 4, 0), &sd, &ss)))
      return st;
  }
  return PTE_OK;
}

static pte_data_map *map_new(const pte_allocator *a) {
  pte_data_map *m = (pte_data_map *)pte_alloc(a, sizeof *m, 16);
  if (!m) return NULL;
  memset(m, 0, sizeof *m);
  if (a) {
    m->allocator_copy = *a;
    m->allocator = &m->allocator_copy;
  }
  return m;
}

pte_status pte_data_map_load_file(const char *path, const pte_allocator *a, pte_data_map **out) {
  if (!path || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "path and out must not be NULL");
  *out = NULL;
  pte_data_map *m = map_new(a);
  if (!m) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  pte_status st = pte_file_map_open(path, 0, m->allocator, &m->map);
  if (st) {
    pte_free(m->allocator, m);
    return st;
  }
  m->data = (const uint8_t *)m->map.data;
  m->size = m->map.size;
  if ((st = parse(m))) {
    pte_error_prefix("%s", path);
    pte_data_map_free(m);
    return st;
  }
  *out = m;
  return PTE_OK;
}

pte_status pte_data_map_load_buffer(const void *data, size_t size, const pte_allocator *a,
                                    pte_data_map **out) {
  if (!data || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "data and out must not be NULL");
  *out = NULL;
  pte_data_map *m = map_new(a);
  if (!m) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory loading a data file");
  m->data = (const uint8_t *)data;
  m->size = size;
  pte_status st = parse(m);
  if (st) {
    pte_data_map_free(m);
    return st;
  }
  *out = m;
  return PTE_OK;
}

void pte_data_map_free(pte_data_map *m) {
  if (!m) return;
  pte_allocator copy;
  const pte_allocator *a = NULL;
  if (m->allocator) {
    copy = *m->allocator;
    a = &copy;
  }
  if (m->map.data) pte_file_map_close(&m->map, a);
  pte_free(a, m);
}

int32_t pte_data_map_count(const pte_data_map *m) { return m ? m->num_named : 0; }

const char *pte_data_map_key(const pte_data_map *m, int32_t i) {
  if (!m || i < 0 || i >= m->num_named) return NULL;
  uint32_t nd = pte_fb_vec_table(m->fb, m->named, (uint32_t)i);
  return pte_fb_str(m->fb, pte_fb_ref(m->fb, nd, FTND_KEY));
}

pte_status pte_data_map_get(const pte_data_map *m, const char *key, const void **data, size_t *size,
                            pte_tensor *layout) {
  if (!m || !key) return pte_error(PTE_ERR_INVALID_ARGUMENT, "map and key must not be NULL");
  for (int32_t i = 0; i < m->num_named; i++) {
    uint32_t nd = pte_fb_vec_table(m->fb, m->named, (uint32_t)i);
    const char *k = pte_fb_str(m->fb, pte_fb_ref(m->fb, nd, FTND_KEY));
    if (strcmp(k, key) != 0) continue;
    const uint8_t *d;
    size_t s;
    pte_status st = pte_segment_get(&m->segments, pte_fb_scalar(m->fb, nd, FTND_SEGMENT_INDEX, 4, 0), &d, &s);
    if (st) return st;
    if (layout) {
      memset(layout, 0, sizeof *layout);
      layout->dtype = -1;
      uint32_t l = pte_fb_ref(m->fb, nd, FTND_TENSOR_LAYOUT);
      if (l) {
        uint32_t sizes = pte_fb_ref(m->fb, l, FTLAYOUT_SIZES);
        uint32_t dim = pte_fb_vec_len(m->fb, sizes);
        if (dim > PTE_MAX_DIM)
          return pte_error(PTE_ERR_INVALID_PROGRAM, "data file: '%s' has rank %u", key, dim);
        layout->dtype = (int8_t)pte_fb_scalar(m->fb, l, FTLAYOUT_SCALAR_TYPE, 1, 0);
        layout->dim = (int32_t)dim;
        for (uint32_t j = 0; j < dim; j++)
          layout->sizes[j] = (int32_t)pte_fb_u32(pte_fb_vec_data(m->fb, sizes) + 4 * j);
        uint32_t order = pte_fb_ref(m->fb, l, FTLAYOUT_DIM_ORDER);
        for (uint32_t j = 0; j < dim; j++)
          layout->dim_order[j] =
              j < pte_fb_vec_len(m->fb, order) ? pte_fb_vec_data(m->fb, order)[j] : (uint8_t)j;
      }
    }
    *data = d;
    *size = s;
    return PTE_OK;
  }
  return pte_error(PTE_ERR_NOT_FOUND, "key '%s' is not in the data file", key);
}
