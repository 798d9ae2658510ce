/* Elementwise drivers of the optimized kernels: float32 binary arithmetic
 * with broadcasting, and a parallel split of contiguous unary loops.
 * Internal to kernels_optimized. */
#ifndef PTERUN_OPT_EW_H
#define PTERUN_OPT_EW_H

#include "kern.h"

/* An operand: a float32 tensor, or a number that takes the float32
 * computation's type (0-dim tensors of other dtypes, Scalars). */
typedef struct o_operand {
  const pte_tensor *t; /* NULL: use `value` */
  float value;
} o_operand;

/* Accept-time: argument i is an operand a float32 op can take, given that
 * the other operand is a float32 tensor with dims (ATen's result type stays
 * float32): a float32 tensor, a 0-dim float/int tensor, or a Scalar. */
bool o_operand_ok(pte_value *const *args, int32_t nargs, int32_t i, bool other_has_dims);
/* Execute-time: read it. */
o_operand o_operand_get(pte_value *const *args, int32_t i);

/* A pass over memory (an operation or two per element) splits over the
 * pool from 4 x K_PAR_MIN_OPS elements only (see ew.c): the cost factor
 * given to k_parallel_for per element. */
#define O_STREAM_SCALE 0.25

/* Up to O_BCAST_MAX operands broadcast against each other (trailing dims
 * aligned) and coalesced for row loops: size-1 dims dropped, a dim merged
 * into the one before when every operand steps through both as one. */
#define O_BCAST_MAX 3
typedef struct o_bcast {
  int32_t out_dim; /* the broadcast shape, for the output */
  int64_t out_sizes[PTE_MAX_DIM];
  int32_t dim; /* coalesced dims, at least one; the last one is the row */
  int64_t sizes[PTE_MAX_DIM];
  int64_t st[O_BCAST_MAX][PTE_MAX_DIM]; /* element strides; 0 where broadcast */
} o_bcast;
/* n operands; a NULL one is a number (strides 0). False: they do not broadcast. */
bool o_bcast_init(o_bcast *b, int n, const pte_tensor *const *ts);
/* Rows of the coalesced shape, and the offsets of row r in each operand. */
int64_t o_bcast_rows(const o_bcast *b);
void o_bcast_row(const o_bcast *b, int n, int64_t r, int64_t *off);

/* The four arithmetic ops, op(Tensor self, Tensor|Scalar other,
 * [Scalar alpha (add, sub),] *, Tensor(a!) out): out = self op alpha*other,
 * broadcasting; one operand may be a number (above). */
bool o_arith_accepts(pte_value *const *args, int32_t nargs, o_binop op);
pte_status o_arith(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, o_binop op);

/* Run fn(x + i, y + i, len) over [0, n) in pieces, on the pool when n*cost
 * is large. */
typedef void (*o_span_fn)(const float *x, float *y, int64_t n, const void *user);
void o_spans(const float *x, float *y, int64_t n, double cost_per_elem, o_span_fn fn, const void *user);

/* A float32 map self (args[0]) -> out (args[out_index]): out resized like
 * self, then fn over the contiguous data in spans (o_spans, `cost` per
 * element). */
pte_status o_map(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t out_index, double cost,
                 o_span_fn fn, const void *user);
/* o_map of min(max(x, lo), hi), NaN kept: clamp and hardtanh. */
pte_status o_clamp(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t out_index, float lo,
                   float hi);

/* Shared accept for ops of the form op(Tensor self, <scalars>, *, Tensor out):
 * self and out float32, nargs as given. */
bool o_unary_accepts(pte_value *const *args, int32_t nargs, int32_t want_nargs, int32_t out_index);

#endif
