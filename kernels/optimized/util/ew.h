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
