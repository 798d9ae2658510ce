/* Reading and writing NumPy .npy files (format versions 1-3, little-endian). */
#ifndef PTERUN_NPY_H
#define PTERUN_NPY_H

#include <pterun/runtime.h>

typedef struct npy_array {
  int32_t dtype; /* pte_dtype */
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM];
  const void *data; /* points into the parsed buffer */
  size_t nbytes;
} npy_array;

/* Parse an in-memory .npy file. Errors are reported through pte_error. */
pte_status npy_parse(const void *buf, size_t size, npy_array *out);
/* Read a whole file into *owned (free() it) and parse it. */
pte_status npy_read_file(const char *path, npy_array *out, void **owned);
/* Write a contiguous tensor. */
pte_status npy_write_file(const char *path, const pte_tensor *t);

#endif
