/* aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
 * A bool condition choosing between float32 tensors (any of the three may
 * broadcast; GPT-2's causal mask [1, 1, T, T] over scores [1, H, T, T]
 * with a 0-dim fill value): dims coalesced like the arithmetic ops, then a
 * select per row that the compiler vectorizes (the portable kernel's
 * per-element broadcast indexing took 25 us of 16k elements). Rows split
 * over the pool. Other dtypes (and uint8 conditions) stay portable. */
#include "util/ew.h"

#include <string.h>

static bool where_accepts(pte_value *const *args, int32_t nargs) {
  const pte_tensor *c = k_arg_tensor(args, nargs, 0);
  return nargs == 5 && c && c->dtype == PTE_BOOL && k_default_order(c) && k_arg_f32(args, nargs, 1) &&
         k_arg_f32(args, nargs, 2) && k_arg_f32(args, nargs, 3);
}

typedef struct where_job {
  const uint8_t *c;
  const float *a, *b;
  float *o;
  o_bcast bc; /* condition, self, other */
} where_job;

/* One row; inner strides 0 or 1 (contiguous operands). A bool byte other than 0 counts as true
 * (hostile data), as in the portable kernel. The loops are written
 * separately so each one vectorizes. */
static void where_row(const uint8_t *c, int64_t sc, const float *a, int64_t sa, const float *b, int64_t sb,
                      float *o, int64_t n) {
  if ((sc | sa | sb) & ~(int64_t)1) {
    /* not a unit or broadcast stride (a tensor's own strides disagreeing
     * with its dim order): the plain strided loop */
    for (int64_t i = 0; i < n; i++) o[i] = c[i * sc] ? a[i * sa] : b[i * sb];
    return;
  }
  if (sc == 0) {
    const float *src = *c ? a : b;
    const int64_t s = *c ? sa : sb;
    if (s == 0)
      for (int64_t i = 0; i < n; i++) o[i] = src[0];
    else if (o != src) memmove(o, src, (size_t)n * sizeof(float));
    return;
  }
  /* both sides loaded unconditionally (a select, not a branch) and the
   * broadcast value read once (o may alias it): so each loop vectorizes */
  const float av = a[0], bv = b[0];
  if (sa == 1 && sb == 1)
    for (int64_t i = 0; i < n; i++) {
      const float x = a[i], y = b[i];
      o[i] = c[i] ? x : y;
    }
  else if (sa == 1)
    for (int64_t i = 0; i < n; i++) {
      const float x = a[i];
      o[i] = c[i] ? x : bv;
    }
  else if (sb == 1)
    for (int64_t i = 0; i < n; i++) {
      const float y = b[i];
      o[i] = c[i] ? av : y;
    }
  else
    for (int64_t i = 0; i < n; i++) o[i] = c[i] ? av : bv;
}

static void where_rows(void *ctx, size_t r0, size_t r1) {
  const where_job *j = ctx;
  const int32_t d = j->bc.dim;
  const int64_t row = j->bc.sizes[d - 1];
  for (size_t r = r0; r < r1; r++) {
    int64_t off[3];
    o_bcast_row(&j->bc, 3, (int64_t)r, off);
    where_row(j->c + off[0], j->bc.st[0][d - 1], j->a + off[1], j->bc.st[1][d - 1], j->b + off[2],
              j->bc.st[2][d - 1], j->o + (int64_t)r * row, row);
  }
}

static pte_status where_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *ts[3] = {args[0]->u.tensor, args[1]->u.tensor, args[2]->u.tensor};
  pte_tensor *out = args[3]->u.tensor;
  where_job j;
  if (!o_bcast_init(&j.bc, 3, ts)) return K_FAIL("where: shapes do not broadcast");
  K_CHECK(k_out(ctx, out, j.bc.out_dim, j.bc.out_sizes));
  j.c = ts[0]->data;
  j.a = ts[1]->data;
  j.b = ts[2]->data;
  j.o = out->data;
  int64_t row = j.bc.sizes[j.bc.dim - 1], rows = o_bcast_rows(&j.bc);
  if (rows * row == 0) return PTE_OK;
  /* a pass over memory like the arithmetic ops: split only when large */
  k_parallel_for((size_t)rows, (double)(rows * row) * O_STREAM_SCALE, where_rows, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(where_out, "aten::where.self_out", where_accepts, NULL)
