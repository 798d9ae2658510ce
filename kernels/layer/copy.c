/* Strided copies of the kernel layer (see klayer.h). */
#include "simd.h"

#define TILE 32

typedef struct copy_plan {
  size_t es;
  int32_t dim;
  int64_t sizes[PTE_MAX_DIM], ds[PTE_MAX_DIM], ss[PTE_MAX_DIM];
  int32_t a, b; /* transpose: dim a contiguous in dst, dim b in src (else -1) */
  int32_t nouter;
  int32_t outer[PTE_MAX_DIM]; /* dims the outer index walks, outermost first */
  uint8_t *dst;
  const uint8_t *src;
} copy_plan;

#define STRIDED_ROW(T)                                         \
  do {                                                         \
    T *d_ = (T *)d;                                            \
    const T *s_ = (const T *)s;                                \
    if (ss == 0 && ds == 1) {                                  \
      T v_ = s_[0];                                            \
      for (int64_t i = 0; i < n; i++) d_[i] = v_;              \
    } else {                                                   \
      for (int64_t i = 0; i < n; i++) d_[i * ds] = s_[i * ss]; \
    }                                                          \
  } while (0)

static void copy_row(size_t es, uint8_t *d, int64_t ds, const uint8_t *s, int64_t ss, int64_t n) {
  if (ds == 1 && ss == 1) {
    /* memmove: a tensor may be copied onto itself */
    if (d != s) memmove(d, s, (size_t)n * es);
    return;
  }
  switch (es) {
    case 1: STRIDED_ROW(uint8_t); break;
    case 2: STRIDED_ROW(uint16_t); break;
    case 4: STRIDED_ROW(uint32_t); break;
    case 8: STRIDED_ROW(uint64_t); break;
    default:
      for (int64_t i = 0; i < n; i++) memcpy(d + i * ds * (int64_t)es, s + i * ss * (int64_t)es, es);
      break;
  }
}

#define TRANSPOSE(T)                                                                    \
  do {                                                                                  \
    T *d_ = (T *)d;                                                                     \
    const T *s_ = (const T *)s;                                                         \
    for (int64_t i0 = 0; i0 < R; i0 += TILE)                                            \
      for (int64_t j0 = 0; j0 < C; j0 += TILE) {                                        \
        int64_t i1 = i0 + TILE < R ? i0 + TILE : R, j1 = j0 + TILE < C ? j0 + TILE : C; \
        for (int64_t i = i0; i < i1; i++)                                               \
          for (int64_t j = j0; j < j1; j++) d_[i * dd + j] = s_[i + j * sc];            \
      }                                                                                 \
  } while (0)

/* dst[i*dd + j] = src[i + j*sc], an R x C block, in tiles so both sides
 * stay in cache (and in the TLB) instead of striding through one of them. */
static void transpose(size_t es, uint8_t *d, int64_t dd, const uint8_t *s, int64_t sc, int64_t R, int64_t C) {
  if (es == 4 && R >= 8 && C >= 8 && (k_isa_get() == K_ISA_AVX2 || k_isa_get() == K_ISA_AVX512)) {
    k_transpose4_avx2(s, sc, d, dd, R, C);
    return;
  }
  if (es == 4 && R >= 4 && C >= 4 && k_isa_get() == K_ISA_NEON) {
    k_transpose4_neon(s, sc, d, dd, R, C);
    return;
  }
  switch (es) {
    case 1: TRANSPOSE(uint8_t); break;
    case 2: TRANSPOSE(uint16_t); break;
    case 4: TRANSPOSE(uint32_t); break;
    default: TRANSPOSE(uint64_t); break;
  }
}

/* Outer items r0 .. r1: the first one's offsets by division, the rest by
 * an odometer. */
static void copy_items(void *ctx, size_t r0, size_t r1) {
  const copy_plan *p = ctx;
  int64_t pos[PTE_MAX_DIM], od = 0, os = 0, r = (int64_t)r0;
  for (int32_t q = p->nouter - 1; q >= 0; q--) {
    int32_t k = p->outer[q];
    pos[q] = r % p->sizes[k];
    r /= p->sizes[k];
    od += pos[q] * p->ds[k];
    os += pos[q] * p->ss[k];
  }
  const int64_t es = (int64_t)p->es;
  for (size_t it = r0; it < r1; it++) {
    uint8_t *d = p->dst + od * es;
    const uint8_t *s = p->src + os * es;
    if (p->a >= 0) transpose(p->es, d, p->ds[p->b], s, p->ss[p->a], p->sizes[p->b], p->sizes[p->a]);
    else copy_row(p->es, d, p->ds[p->dim - 1], s, p->ss[p->dim - 1], p->sizes[p->dim - 1]);
    for (int32_t q = p->nouter - 1; q >= 0; q--) {
      int32_t k = p->outer[q];
      od += p->ds[k];
      os += p->ss[k];
      if (++pos[q] < p->sizes[k]) break;
      od -= p->ds[k] * p->sizes[k];
      os -= p->ss[k] * p->sizes[k];
      pos[q] = 0;
    }
  }
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

void k_memory_order(int32_t dim, const int64_t *sizes, const int64_t *const *strides, int32_t nops,
                    int64_t *osizes, int64_t (*ostrides)[PTE_MAX_DIM]) {
  int32_t perm[PTE_MAX_DIM];
  for (int32_t i = 0; i < dim; i++) { /* stable insertion sort on |stride| of operand 0 */
    int32_t j = i;
    while (j > 0 && abs64(strides[0][perm[j - 1]]) < abs64(strides[0][i])) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = i;
  }
  for (int32_t k = 0; k < dim; k++) {
    osizes[k] = sizes[perm[k]];
    for (int32_t o = 0; o < nops; o++) ostrides[o][k] = strides[o][perm[k]];
  }
}

void k_copy(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
            const int64_t *sizes, size_t es, bool parallel) {
  copy_plan p;
  p.es = es;
  p.dst = dst;
  p.src = src;
  int64_t total = 1;
  for (int32_t k = 0; k < dim; k++) total *= sizes[k];
  if (total == 0) return;
  int64_t msizes[PTE_MAX_DIM], mstrides[2][PTE_MAX_DIM];
  const int64_t *in[2] = {ds, ss};
  k_memory_order(dim, sizes, in, 2, msizes, mstrides);
  /* coalesce neighbours whose strides chain on both sides (size-1 dims go) */
  p.dim = 0;
  for (int32_t k = 0; k < dim; k++) {
    int64_t n = msizes[k], d = mstrides[0][k], s = mstrides[1][k];
    if (n == 1) continue;
    if (p.dim > 0 && p.ds[p.dim - 1] == d * n && p.ss[p.dim - 1] == s * n) {
      p.sizes[p.dim - 1] *= n;
      p.ds[p.dim - 1] = d;
      p.ss[p.dim - 1] = s;
      continue;
    }
    p.sizes[p.dim] = n;
    p.ds[p.dim] = d;
    p.ss[p.dim] = s;
    p.dim++;
  }
  if (p.dim == 0) {
    if (dst != src) memmove(dst, src, es);
    return;
  }
  /* a transpose: one dim contiguous in dst, another in src (however small:
   * NCHW -> NHWC of 3 channels is 3-element rows, cheaper in tiles than as
   * strided rows) */
  p.a = p.b = -1;
  const int32_t last = p.dim - 1;
  if (p.ds[last] == 1 && p.ss[last] != 1 && (es == 1 || es == 2 || es == 4 || es == 8))
    for (int32_t k = 0; k < last; k++)
      if (p.ss[k] == 1) p.a = last, p.b = k;
  p.nouter = 0;
  int64_t items = 1;
  for (int32_t k = 0; k < p.dim; k++) {
    if (p.a >= 0 ? (k == p.a || k == p.b) : k == last) continue;
    p.outer[p.nouter++] = k;
    items *= p.sizes[k];
  }
  /* a copy moves bytes and computes nothing: split from 4 x K_PAR_MIN_OPS
   * floats, where it streams past L2 (smaller ones only moved their data
   * between the cores' caches) */
  if (parallel) k_parallel_for((size_t)items, (double)total * (double)es / 16.0, copy_items, &p);
  else copy_items(&p, 0, (size_t)items);
}

void k_copy_to_contiguous(void *dst, const void *src, const int64_t *ss, int32_t dim, const int64_t *sizes,
                          size_t es, bool parallel) {
  int64_t ds[PTE_MAX_DIM], s = 1;
  for (int32_t k = dim - 1; k >= 0; k--) {
    ds[k] = s;
    s *= sizes[k];
  }
  k_copy(dst, ds, src, ss, dim, sizes, es, parallel);
}
