/* Strided copies (see copy.h). */
#include "copy.h"

typedef struct copy_job {
  size_t es;
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM], strides[PTE_MAX_DIM];
  const uint8_t *src;
  uint8_t *dst;
  int64_t rows, row; /* outer rows and elements per row */
  bool transpose;    /* last two dims transposed (src stride of dim-2 is 1) */
} copy_job;

#define TILE 16

#define STRIDED_ROW(T)                                                        \
  do {                                                                        \
    const T *s_ = (const T *)s;                                               \
    T *d_ = (T *)d;                                                           \
    if (st == 0) {                                                            \
      T v_ = s_[0];                                                           \
      for (int64_t i = 0; i < n; i++) d_[i] = v_;                             \
    } else {                                                                  \
      for (int64_t i = 0; i < n; i++) d_[i] = s_[i * st];                     \
    }                                                                         \
  } while (0)

static void copy_row(size_t es, const uint8_t *s, int64_t st, uint8_t *d, int64_t n) {
  if (st == 1) {
    memcpy(d, s, (size_t)n * es);
    return;
  }
  switch (es) {
    case 1: STRIDED_ROW(uint8_t); break;
    case 2: STRIDED_ROW(uint16_t); break;
    case 4: STRIDED_ROW(uint32_t); break;
    default: STRIDED_ROW(uint64_t); break;
  }
}

#define TRANSPOSE(T)                                                                        \
  do {                                                                                      \
    const T *s_ = (const T *)s;                                                             \
    T *d_ = (T *)d;                                                                         \
    for (int64_t i0 = 0; i0 < R; i0 += TILE)                                                \
      for (int64_t j0 = 0; j0 < Cn; j0 += TILE) {                                           \
        int64_t i1 = i0 + TILE < R ? i0 + TILE : R, j1 = j0 + TILE < Cn ? j0 + TILE : Cn;   \
        for (int64_t i = i0; i < i1; i++)                                                   \
          for (int64_t j = j0; j < j1; j++) d_[i * Cn + j] = s_[i + j * sc];                \
      }                                                                                     \
  } while (0)

/* dst[i][j] = src[i + j*sc], an R x Cn block, in tiles so both sides stay in cache. */
static void transpose(size_t es, const uint8_t *s, int64_t sc, uint8_t *d, int64_t R, int64_t Cn) {
  if (es == 4 && R >= 8 && Cn >= 8 && k_isa_get() >= K_ISA_AVX2) {
    o_transpose4_avx2(s, sc, d, R, Cn);
    return;
  }
  switch (es) {
    case 1: TRANSPOSE(uint8_t); break;
    case 2: TRANSPOSE(uint16_t); break;
    case 4: TRANSPOSE(uint32_t); break;
    default: TRANSPOSE(uint64_t); break;
  }
}

static int64_t src_offset(const copy_job *j, int32_t ndims, int64_t r) {
  int64_t off = 0;
  for (int32_t k = ndims - 1; k >= 0; k--) {
    off += (r % j->sizes[k]) * j->strides[k];
    r /= j->sizes[k];
  }
  return off;
}

static void copy_rows(void *ctx, size_t r0, size_t r1) {
  const copy_job *j = ctx;
  if (j->transpose) {
    const int64_t R = j->sizes[j->dim - 2], Cn = j->sizes[j->dim - 1];
    for (size_t r = r0; r < r1; r++)
      transpose(j->es, j->src + src_offset(j, j->dim - 2, (int64_t)r) * (int64_t)j->es, j->strides[j->dim - 1],
                j->dst + (int64_t)r * R * Cn * (int64_t)j->es, R, Cn);
    return;
  }
  for (size_t r = r0; r < r1; r++)
    copy_row(j->es, j->src + src_offset(j, j->dim - 1, (int64_t)r) * (int64_t)j->es, j->strides[j->dim - 1],
             j->dst + (int64_t)r * j->row * (int64_t)j->es, j->row);
}

void o_copy_strided(size_t esize, int32_t dim, const int64_t *sizes, const int64_t *strides, const void *src,
                    void *dst) {
  copy_job j;
  j.es = esize;
  j.src = src;
  j.dst = dst;
  j.dim = 0;
  int64_t total = 1;
  for (int32_t i = 0; i < dim; i++) total *= sizes[i];
  if (total == 0) return;
  /* coalesce: skip size-1 dims; merge when the outer stride is the inner
   * stride times the inner size */
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] == 1) continue;
    if (j.dim > 0 && j.strides[j.dim - 1] == strides[i] * sizes[i]) {
      j.sizes[j.dim - 1] *= sizes[i];
      j.strides[j.dim - 1] = strides[i];
      continue;
    }
    j.sizes[j.dim] = sizes[i];
    j.strides[j.dim] = strides[i];
    j.dim++;
  }
  if (j.dim == 0) {
    memcpy(dst, src, esize);
    return;
  }
  j.transpose = j.dim >= 2 && j.strides[j.dim - 1] != 1 && j.strides[j.dim - 2] == 1 && j.sizes[j.dim - 1] >= 4 &&
                j.sizes[j.dim - 2] >= 4;
  int32_t row_dims = j.transpose ? 2 : 1;
  j.row = 1;
  for (int32_t k = j.dim - row_dims; k < j.dim; k++) j.row *= j.sizes[k];
  j.rows = total / j.row;
  if (j.rows == 1 && !j.transpose && j.strides[j.dim - 1] == 1) {
    memcpy(dst, src, (size_t)total * esize);
    return;
  }
  k_parallel_for((size_t)j.rows, (double)total * (double)esize / 4.0, copy_rows, &j);
}
