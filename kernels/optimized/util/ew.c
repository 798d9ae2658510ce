/* Elementwise drivers (see ew.h). */
#include "ew.h"

/* A pass over memory (add, mul, relu: an operation or two per element) is
 * split from 4 x K_PAR_MIN_OPS elements only. Below that its operands fit
 * in one core's L2, and the split moved them between the cores' caches:
 * ViT's 151k-element mul took 19 us on 2 threads against 17.5 us on 1,
 * ResNet's 200k-element relus 0.9..1.2x. Larger passes, which stream from
 * L3 or memory anyway, still gain (ResNet's first relu 1.7x). */
#define STREAM_SCALE O_STREAM_SCALE

static bool is_number_tag(int32_t tag) {
  return tag == PTE_TAG_INT || tag == PTE_TAG_DOUBLE || tag == PTE_TAG_BOOL;
}

bool o_operand_ok(pte_value *const *args, int32_t nargs, int32_t i, bool other_has_dims) {
  if (i >= nargs || !args[i]) return false;
  if (is_number_tag(args[i]->tag)) return args[i]->tag != PTE_TAG_BOOL;
  const pte_tensor *t = k_arg_tensor(args, nargs, i);
  if (!t) return false;
  if (k_is_f32(t)) return true;
  /* A 0-dim tensor of another float or integer dtype against a float32
   * tensor with dims: ATen computes in float32 with the value cast. */
  return other_has_dims && t->dim == 0 &&
         (t->dtype == PTE_FLOAT64 || t->dtype == PTE_INT64 || t->dtype == PTE_INT32);
}

o_operand o_operand_get(pte_value *const *args, int32_t i) {
  o_operand o = {NULL, 0.0f};
  const pte_value *v = args[i];
  switch (v->tag) {
    case PTE_TAG_INT: o.value = (float)v->u.i; return o;
    case PTE_TAG_DOUBLE: o.value = (float)v->u.d; return o;
    case PTE_TAG_BOOL: o.value = v->u.b ? 1.0f : 0.0f; return o;
    default: break;
  }
  const pte_tensor *t = v->u.tensor;
  if (t->dtype == PTE_FLOAT32) {
    o.t = t;
  } else if (t->dtype == PTE_FLOAT64) {
    o.value = (float)*(const double *)t->data;
  } else if (t->dtype == PTE_INT64) {
    o.value = (float)*(const int64_t *)t->data;
  } else if (t->dtype == PTE_INT32) {
    o.value = (float)*(const int32_t *)t->data;
  }
  return o;
}

bool o_bcast_init(o_bcast *b, int n, const pte_tensor *const *ts) {
  int32_t dim = 0;
  for (int q = 0; q < n; q++)
    if (ts[q] && ts[q]->dim > dim) dim = ts[q]->dim;
  int64_t *sizes = b->out_sizes, st[O_BCAST_MAX][PTE_MAX_DIM];
  b->out_dim = dim;
  for (int32_t i = 0; i < dim; i++) sizes[i] = 1;
  for (int q = 0; q < n; q++) {
    for (int32_t i = 0; i < dim; i++) st[q][i] = 0;
    const pte_tensor *t = ts[q];
    if (!t) continue;
    for (int32_t i = 0; i < t->dim; i++) {
      int32_t d = dim - t->dim + i;
      int64_t s = t->sizes[i];
      if (s == 1) continue;
      if (sizes[d] != 1 && sizes[d] != s) return false;
      sizes[d] = s;
      st[q][d] = t->strides[i];
    }
  }
  b->dim = 0;
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] == 1) continue;
    if (b->dim > 0) {
      int32_t p = b->dim - 1;
      int64_t m = sizes[i];
      bool merge = true;
      for (int q = 0; q < n; q++) merge = merge && b->st[q][p] == st[q][i] * m;
      if (merge) {
        b->sizes[p] *= m;
        for (int q = 0; q < n; q++) b->st[q][p] = st[q][i];
        continue;
      }
    }
    b->sizes[b->dim] = sizes[i];
    for (int q = 0; q < n; q++) b->st[q][b->dim] = st[q][i];
    b->dim++;
  }
  if (b->dim == 0) {
    b->dim = 1;
    b->sizes[0] = 1;
    for (int q = 0; q < n; q++) b->st[q][0] = 0;
  }
  return true;
}

int64_t o_bcast_rows(const o_bcast *b) {
  int64_t rows = 1;
  for (int32_t i = 0; i + 1 < b->dim; i++) rows *= b->sizes[i];
  return rows;
}

void o_bcast_row(const o_bcast *b, int n, int64_t r, int64_t *off) {
  for (int q = 0; q < n; q++) off[q] = 0;
  for (int32_t k = b->dim - 2; k >= 0; k--) {
    int64_t idx = r % b->sizes[k];
    r /= b->sizes[k];
    for (int q = 0; q < n; q++) off[q] += idx * b->st[q][k];
  }
}

typedef struct bin_job {
  const float *a, *b;
  float *o;
  o_bcast bc; /* a's strides st[0], b's st[1] */
  o_binop op;
  float alpha;
  const o_kern_table *kt;
} bin_job;

static void bin_rows(void *ctx, size_t r0, size_t r1) {
  const bin_job *j = ctx;
  const int32_t d = j->bc.dim;
  const int64_t row = j->bc.sizes[d - 1];
  for (size_t r = r0; r < r1; r++) {
    int64_t off[2];
    o_bcast_row(&j->bc, 2, (int64_t)r, off);
    j->kt->binary(j->op, j->a + off[0], j->bc.st[0][d - 1], j->b + off[1], j->bc.st[1][d - 1],
                  j->o + (int64_t)r * row, row, j->alpha);
  }
}

static pte_status binary(pte_kernel_ctx *ctx, o_operand a, o_operand b, pte_tensor *out, o_binop op,
                         float alpha) {
  bin_job j;
  const pte_tensor *ts[2] = {a.t, b.t};
  if (!o_bcast_init(&j.bc, 2, ts)) return K_FAIL("shapes do not broadcast");
  K_CHECK(k_out(ctx, out, j.bc.out_dim, j.bc.out_sizes));
  j.a = a.t ? (const float *)a.t->data : &a.value;
  j.b = b.t ? (const float *)b.t->data : &b.value;
  j.o = out->data;
  j.op = op;
  j.alpha = alpha;
  j.kt = o_kern();
  o_bcast *bc = &j.bc;
  int64_t row = bc->sizes[bc->dim - 1], rows = o_bcast_rows(bc);
  if (rows * row == 0) return PTE_OK;
  if (rows == 1 && row >= 65536 && k_threads() > 1) {
    /* one long row: split it (both inner strides are 0 or 1) */
    int32_t d = bc->dim;
    int64_t piece = 16384;
    int64_t sa = bc->st[0][d - 1], sb = bc->st[1][d - 1];
    bc->dim = 2;
    bc->sizes[1] = piece;
    bc->sizes[0] = (row + piece - 1) / piece;
    bc->st[0][1] = sa, bc->st[1][1] = sb, bc->st[0][0] = sa * piece, bc->st[1][0] = sb * piece;
    if (row % piece) {
      /* ragged tail on this thread after the full pieces */
      int64_t full = row / piece;
      bc->sizes[0] = full;
      k_parallel_for((size_t)full, (double)(full * piece) * STREAM_SCALE, bin_rows, &j);
      j.kt->binary(op, j.a + sa * full * piece, sa, j.b + sb * full * piece, sb, j.o + full * piece,
                   row - full * piece, alpha);
      return PTE_OK;
    }
    k_parallel_for((size_t)bc->sizes[0], (double)row * STREAM_SCALE, bin_rows, &j);
    return PTE_OK;
  }
  k_parallel_for((size_t)rows, (double)(rows * row) * STREAM_SCALE, bin_rows, &j);
  return PTE_OK;
}

typedef struct span_job {
  const float *x;
  float *y;
  int64_t n, piece;
  o_span_fn fn;
  const void *user;
} span_job;

static void span_run(void *ctx, size_t i0, size_t i1) {
  const span_job *j = ctx;
  for (size_t i = i0; i < i1; i++) {
    int64_t s = (int64_t)i * j->piece, e = s + j->piece < j->n ? s + j->piece : j->n;
    j->fn(j->x + s, j->y + s, e - s, j->user);
  }
}

void o_spans(const float *x, float *y, int64_t n, double cost_per_elem, o_span_fn fn, const void *user) {
  if (n <= 0) return;
  double cost = (double)n * (cost_per_elem <= 2.0 ? cost_per_elem * STREAM_SCALE : cost_per_elem);
  if (cost < K_PAR_MIN_OPS || k_threads() <= 1) {
    fn(x, y, n, user);
    return;
  }
  span_job j = {x, y, n, 4096, fn, user};
  k_parallel_for((size_t)((n + j.piece - 1) / j.piece), cost, span_run, &j);
}

bool o_unary_accepts(pte_value *const *args, int32_t nargs, int32_t want_nargs, int32_t out_index) {
  return nargs == want_nargs && k_arg_f32(args, nargs, 0) && k_arg_f32(args, nargs, out_index);
}

static bool has_alpha(o_binop op) { return op == O_ADD || op == O_SUB; }

bool o_arith_accepts(pte_value *const *args, int32_t nargs, o_binop op) {
  const int32_t out_index = has_alpha(op) ? 3 : 2;
  double alpha;
  /* the runtime passes the out tensor once more as the last argument */
  if (nargs != out_index + 2 || !k_arg_f32(args, nargs, out_index)) return false;
  if (has_alpha(op) && (!k_arg_num(args, nargs, 2, &alpha) || args[2]->tag == PTE_TAG_BOOL)) return false;
  const pte_tensor *a = k_arg_tensor(args, nargs, 0), *b = k_arg_tensor(args, nargs, 1);
  bool a_f32 = k_is_f32(a), b_f32 = k_is_f32(b);
  if (!a_f32 && !b_f32) return false;
  return o_operand_ok(args, nargs, 0, b_f32 && b->dim > 0) &&
         o_operand_ok(args, nargs, 1, a_f32 && a->dim > 0);
}

pte_status o_arith(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, o_binop op) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  double alpha = 1.0;
  if (has_alpha(op)) k_arg_num(args, nargs, 2, &alpha);
  return binary(ctx, o_operand_get(args, 0), o_operand_get(args, 1), args[has_alpha(op) ? 3 : 2]->u.tensor,
                op, (float)alpha);
}

pte_status o_map(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t out_index, double cost,
                 o_span_fn fn, const void *user) {
  K_CHECK(k_args_have_data(ctx, args, nargs));
  const pte_tensor *x = args[0]->u.tensor;
  pte_tensor *out = args[out_index]->u.tensor;
  K_CHECK(k_out_like(ctx, out, x));
  o_spans(x->data, out->data, o_numel(x), cost, fn, user);
  return PTE_OK;
}

typedef struct bounds {
  float lo, hi;
} bounds;

static void clamp_span(const float *x, float *y, int64_t n, const void *user) {
  const bounds *b = user;
  o_kern()->unary(O_CLAMP, x, y, n, b->lo, b->hi);
}

pte_status o_clamp(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, int32_t out_index, float lo,
                   float hi) {
  bounds b = {lo, hi};
  return o_map(ctx, args, nargs, out_index, 1.0, clamp_span, &b);
}
