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
  int32_t dim; /* coalesced dims; the last one is the row */
  int64_t sizes[PTE_MAX_DIM];
  int64_t st[3][PTE_MAX_DIM]; /* element strides of condition, self, other */
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
  const int32_t d = j->dim;
  const int64_t row = j->sizes[d - 1];
  for (size_t r = r0; r < r1; r++) {
    int64_t off[3] = {0, 0, 0}, rem = (int64_t)r;
    for (int32_t k = d - 2; k >= 0; k--) {
      int64_t idx = rem % j->sizes[k];
      rem /= j->sizes[k];
      for (int q = 0; q < 3; q++) off[q] += idx * j->st[q][k];
    }
    where_row(j->c + off[0], j->st[0][d - 1], j->a + off[1], j->st[1][d - 1], j->b + off[2], j->st[2][d - 1],
              j->o + (int64_t)r * row, row);
  }
}

static pte_status where_out(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *ts[3] = {args[0]->u.tensor, args[1]->u.tensor, args[2]->u.tensor};
  pte_tensor *out = args[3]->u.tensor;
  int32_t dim = 0;
  for (int q = 0; q < 3; q++)
    if (ts[q]->dim > dim) dim = ts[q]->dim;
  int64_t sizes[PTE_MAX_DIM], st[3][PTE_MAX_DIM];
  for (int32_t i = 0; i < dim; i++) sizes[i] = 1;
  for (int q = 0; q < 3; q++) {
    for (int32_t i = 0; i < dim; i++) st[q][i] = 0;
    for (int32_t i = 0; i < ts[q]->dim; i++) {
      int32_t d = dim - ts[q]->dim + i;
      int64_t s = ts[q]->sizes[i];
      if (s == 1) continue;
      if (sizes[d] != 1 && sizes[d] != s) return K_FAIL("where: shapes do not broadcast");
      sizes[d] = s;
      st[q][d] = ts[q]->strides[i];
    }
  }
  K_CHECK(k_out(ctx, out, dim, sizes));
  where_job j;
  j.c = ts[0]->data;
  j.a = ts[1]->data;
  j.b = ts[2]->data;
  j.o = out->data;
  /* Coalesce: drop size-1 dims, merge a dim into the one before when every
   * operand steps through both as one. */
  j.dim = 0;
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] == 1) continue;
    if (j.dim > 0) {
      int32_t p = j.dim - 1;
      int64_t n = sizes[i];
      bool merge = true;
      for (int q = 0; q < 3; q++) merge = merge && j.st[q][p] == st[q][i] * n;
      if (merge) {
        j.sizes[p] *= n;
        for (int q = 0; q < 3; q++) j.st[q][p] = st[q][i];
        continue;
      }
    }
    j.sizes[j.dim] = sizes[i];
    for (int q = 0; q < 3; q++) j.st[q][j.dim] = st[q][i];
    j.dim++;
  }
  if (j.dim == 0) {
    j.dim = 1;
    j.sizes[0] = 1;
    for (int q = 0; q < 3; q++) j.st[q][0] = 0;
  }
  int64_t row = j.sizes[j.dim - 1], rows = 1;
  for (int32_t i = 0; i + 1 < j.dim; i++) rows *= j.sizes[i];
  if (rows * row == 0) return PTE_OK;
  /* a pass over memory like the arithmetic ops: split only when large
   * (ew.c's STREAM_SCALE) */
  k_parallel_for((size_t)rows, (double)(rows * row) * 0.25, where_rows, &j);
  return PTE_OK;
}

PTE_OPT_KERNEL(where_out, "aten::where.self_out", where_accepts, NULL)
