/* Helpers for the shape, indexing, creation and copy/cast kernels: strided
 * block copies (memcpy where rows are contiguous), dtype conversion with
 * ATen's cast semantics, fills, Scalar → element conversion with ATen's
 * overflow checks, and the advanced-indexing planner shared by index and
 * index_put.
 *
 * Internal to kernels_portable (kc_ prefix). */
#ifndef PTERUN_COPY_UTIL_H
#define PTERUN_COPY_UTIL_H

#include "kernel_util.h"

/* Copy a block of `sizes` elements of `es` bytes from src (element strides
 * ss) to dst (strides ds), dim at most PTE_MAX_DIM: the layer's k_copy on
 * the calling thread. */
void kc_copy(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
             const int64_t *sizes, size_t es);
/* Copy self into out, same dtype, where both share their first nb (batch)
 * dims and the rest is walked as a view of nt dims given by sizes and
 * element strides into out (ds) and self (ss), nb + nt <= PTE_MAX_DIM
 * (pixel_shuffle's regrouping). */
void kc_copy_batched_view(pte_tensor *out, const pte_tensor *self, int32_t nb, int32_t nt,
                          const int64_t *sizes, const int64_t *ds, const int64_t *ss);

/* Same with a dtype conversion from sdt to ddt (ATen's static_cast semantics:
 * float → int truncates toward zero, anything → bool is `!= 0`, NaN → bool is
 * true). Same dtypes go through kc_copy. Both dtypes must be k_is_supported. */
void kc_convert(void *dst, int32_t ddt, const int64_t *ds, const void *src, int32_t sdt, const int64_t *ss,
                int32_t dim, const int64_t *sizes);

/* Copy `src` into `dst` (same shape, each with its own strides and dtype). */
void kc_copy_tensor(pte_tensor *dst, const pte_tensor *src);

/* Copy src into dst element by element in row-major (logical) order; the
 * shapes may differ but the element counts and dtypes must agree. */
void kc_copy_flat(pte_tensor *dst, const pte_tensor *src);

/* dst += src elementwise over a strided block (both of dtype dt), in the
 * dtype's own arithmetic (integers wrap, bool is `or`). */
void kc_accumulate(void *dst, const int64_t *ds, const void *src, const int64_t *ss, int32_t dim,
                   const int64_t *sizes, int32_t dt);

/* Fill a strided block with one element (es bytes at `elem`). */
void kc_fill(void *dst, const int64_t *ds, int32_t dim, const int64_t *sizes, const void *elem, size_t es);

/* Fill all of tensor t with `elem` (an element of t's dtype). */
static inline void kc_fill_tensor(pte_tensor *t, const void *elem) {
  kc_fill(t->data, t->strides, t->dim, t->sizes, elem, pte_dtype_size(t->dtype));
}

/* Copy one element of es bytes. */
static inline void kc_copy_elem(void *dst, const void *src, size_t es) {
  switch (es) {
    case 1: *(uint8_t *)dst = *(const uint8_t *)src; break;
    case 2: memcpy(dst, src, 2); break;
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    default: memcpy(dst, src, es); break;
  }
}

/* A Scalar as one element of `dtype` (up to 8 bytes at out). With `checked`,
 * values the dtype can't hold fail like ATen's checked_convert ("value cannot
 * be converted to type ... without overflow"); bool targets never overflow.
 * Without it, the value is cast like a tensor element. */
pte_status kc_scalar_to(pte_kernel_ctx *ctx, const k_scalar *s, int32_t dtype, bool checked, void *out);

/* One element of `src_dtype` at p converted to `dtype` at out. */
void kc_convert_elem(void *out, int32_t dtype, const void *p, int32_t src_dtype);

/* Fail unless `dt` is one of the dtypes the portable kernels handle. */
pte_status kc_supported(pte_kernel_ctx *ctx, int32_t dt, const char *what);
/* kc_supported, and the complex dtypes too: for kernels that only move or
 * convert elements (kc_copy, kc_convert), never compute on them. */
pte_status kc_movable(pte_kernel_ctx *ctx, int32_t dt, const char *what);
/* kc_movable for both sides of a kc_convert; complex → bool is refused (it
 * would need both parts). */
pte_status kc_movable_cast(pte_kernel_ctx *ctx, int32_t from, int32_t to);

/* Fail if out is the same tensor as one of the inputs (NULL entries are
 * skipped): the kernels resize out before reading their inputs, so a
 * hostile program passing one tensor as both must be refused. */
pte_status kc_no_alias(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *a, const pte_tensor *b,
                       const pte_tensor *c);
/* Same for every tensor of a TensorList / OptionalTensorList. */
/* out = self, same dtype and shape (alias_copy, detach_copy, lift_fresh_copy):
 * args = (self, out, ret). */
pte_status kc_copy_op(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs);
/* The (self, *, out) arguments of a copying op: three arguments, two
 * tensors that do not overlap, self with data. */
pte_status kc_self_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, pte_tensor **self,
                       pte_tensor **out);
/* The inputs of cat and stack: every item a tensor of a supported dtype
 * with memory, their promoted dtype castable to out's (supported too). */
pte_status kc_list_inputs(pte_kernel_ctx *ctx, pte_value *const *items, int32_t n, const pte_tensor *out);
pte_status kc_no_alias_list(pte_kernel_ctx *ctx, const pte_tensor *out, pte_value *const *items, int32_t n);

/* Fail unless out has the same dtype as `like`. */
pte_status kc_same_dtype(pte_kernel_ctx *ctx, const pte_tensor *out, const pte_tensor *like);

/* An optional MemoryFormat argument: None, contiguous (0) or preserve (1) are
 * accepted; channels_last (2) / channels_last_3d (3) only if `allow_cl`. The
 * out tensor's dim order decides the actual layout. */
pte_status kc_memory_format(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool allow_cl);

/* Check an optional dim_order argument against out: it must be a
 * permutation of out's rank and equal out's dim order. None accepts any. */
pte_status kc_check_dim_order(pte_kernel_ctx *ctx, pte_value **args, int32_t i, const pte_tensor *out);

/* Wrap and clamp a slice like ATen (start/end optional, step > 0): returns
 * the start and the number of elements. */
pte_status kc_slice_range(pte_kernel_ctx *ctx, int64_t size, bool has_start, int64_t start, bool has_end,
                          int64_t end, int64_t step, int64_t *first, int64_t *len);

/* scatter / scatter_add: out = self, then for every position i of index,
 * out[i with dim replaced by index[i]] = src[i] (or `value`, an element of
 * self's dtype, when src is NULL); with `add`, src is added instead. */
pte_status kc_scatter(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t dim, const pte_tensor *index,
                      const pte_tensor *src, const void *value, bool add, pte_tensor *out);

/* tril (upper=false) / triu (upper=true) of the last two dims of self into
 * out: keeps j <= i + diagonal (tril) or j >= i + diagonal (triu), zeroes
 * the rest. */
pte_status kc_triangle(pte_kernel_ctx *ctx, const pte_tensor *self, int64_t diagonal, bool upper,
                       pte_tensor *out);

/* ---------------------------------------------------------------------- */
/* Advanced indexing (aten::index.Tensor, aten::index_put)                */
/* ---------------------------------------------------------------------- */

typedef struct kc_index_entry {
  const pte_tensor *t; /* int64/int32 index tensor, or bool/uint8 mask */
  bool mask;
  int32_t self_dim;              /* first dim of self it indexes */
  int32_t ndims;                 /* dims of self it covers (1, or the mask's rank) */
  int64_t nnz;                   /* mask: number of true elements */
  int64_t bstrides[PTE_MAX_DIM]; /* strides over the broadcast index shape */
  /* mask cursor: the true element number cur_p sits at linear index cur_lin */
  int64_t cur_p, cur_lin;
} kc_index_entry;

typedef struct kc_index_plan {
  int32_t nentries;
  kc_index_entry e[PTE_MAX_DIM];
  int32_t bdim; /* broadcast shape of the index tensors */
  int64_t bsizes[PTE_MAX_DIM];
  bool covered[PTE_MAX_DIM]; /* self dims consumed by an index */
  int32_t out_dim;           /* shape of self[indices] */
  int64_t out_sizes[PTE_MAX_DIM];
  int32_t bstart; /* first out dim holding the broadcast index dims */
  /* the dims of self that are not indexed (the "slice" block), in order,
   * and the out dims they land in */
  int32_t nslice;
  int32_t slice_self[PTE_MAX_DIM];
  int32_t slice_out[PTE_MAX_DIM];
} kc_index_plan;

/* Build the plan for self[indices] (items of an OptionalTensorList). */
pte_status kc_index_plan_init(pte_kernel_ctx *ctx, kc_index_plan *p, const pte_tensor *self,
                              pte_value *const *items, int32_t n);

/* Element offset into a tensor of self's shape with `strides` for the index
 * position bpos (over p->bsizes); fails on out-of-range indices. */
pte_status kc_index_offset(pte_kernel_ctx *ctx, kc_index_plan *p, const pte_tensor *self,
                           const int64_t *strides, const int64_t *bpos, int64_t *off);

#endif
