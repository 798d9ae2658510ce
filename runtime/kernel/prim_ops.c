/* Operators the runtime itself provides: symbolic-size queries, scalar
 * arithmetic on Int/Double values, and views of unplanned tensors. Each
 * writes its result into the trailing argument, as the exporter expects. */
#include "../core/internal.h"

#include <math.h>
#include <string.h>

/* Argument checks and failures as every kernel reports them (the kernel
 * layer's base group; the runtime links nothing else of it). */
#include "klayer.h"

static void set_int(pte_value *v, int64_t x) {
  v->tag = PTE_TAG_INT;
  v->u.i = x;
}
static void set_double(pte_value *v, double x) {
  v->tag = PTE_TAG_DOUBLE;
  v->u.d = x;
}
static void set_bool(pte_value *v, bool x) {
  v->tag = PTE_TAG_BOOL;
  v->u.b = x;
}

static bool is_intlike(const pte_value *v) { return v->tag == PTE_TAG_INT || v->tag == PTE_TAG_BOOL; }

static pte_status scalar_args(pte_kernel_ctx *ctx, pte_value **args, int32_t n, double *d) {
  for (int32_t i = 0; i < n; i++)
    if (!pte_value_to_double(args[i], &d[i]))
      return K_FAIL("argument %d is a %s, expected a scalar", (int)i, pte_tag_name(args[i]->tag));
  return PTE_OK;
}

/* Python's floor division and modulo for integers. */
static int64_t floordiv_i(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static int64_t mod_i(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

typedef enum { OP_ADD, OP_SUB, OP_MUL, OP_FLOORDIV, OP_TRUEDIV, OP_MOD, OP_MAX, OP_MIN } binop;

static pte_status binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, binop op) {
  pte_status st = k_nargs(ctx, nargs, 3);
  if (st) return st;
  double d[2];
  if ((st = scalar_args(ctx, args, 2, d))) return st;
  pte_value *out = args[2];
  if (is_intlike(args[0]) && is_intlike(args[1]) && op != OP_TRUEDIV) {
    int64_t a, b;
    pte_value_to_int(args[0], &a);
    pte_value_to_int(args[1], &b);
    if ((op == OP_FLOORDIV || op == OP_MOD) && b == 0) return K_FAIL("integer division by zero");
    int64_t r = 0;
    switch (op) {
      case OP_ADD: r = (int64_t)((uint64_t)a + (uint64_t)b); break;
      case OP_SUB: r = (int64_t)((uint64_t)a - (uint64_t)b); break;
      case OP_MUL: r = (int64_t)((uint64_t)a * (uint64_t)b); break;
      case OP_FLOORDIV: r = (a == INT64_MIN && b == -1) ? INT64_MIN : floordiv_i(a, b); break;
      case OP_MOD: r = (b == -1) ? 0 : mod_i(a, b); break;
      case OP_MAX: r = a > b ? a : b; break;
      case OP_MIN: r = a < b ? a : b; break;
      default: break;
    }
    set_int(out, r);
    return PTE_OK;
  }
  double r = 0;
  switch (op) {
    case OP_ADD: r = d[0] + d[1]; break;
    case OP_SUB: r = d[0] - d[1]; break;
    case OP_MUL: r = d[0] * d[1]; break;
    case OP_FLOORDIV: r = floor(d[0] / d[1]); break;
    case OP_TRUEDIV: r = d[0] / d[1]; break;
    case OP_MOD: r = d[0] - floor(d[0] / d[1]) * d[1]; break;
    case OP_MAX: r = d[0] > d[1] ? d[0] : d[1]; break;
    case OP_MIN: r = d[0] < d[1] ? d[0] : d[1]; break;
  }
  set_double(out, r);
  return PTE_OK;
}

#define BINARY(fn, op) \
  static pte_status fn(pte_kernel_ctx *ctx, pte_value **a, int32_t n) { return binary(ctx, a, n, op); }
BINARY(prim_add, OP_ADD)
BINARY(prim_sub, OP_SUB)
BINARY(prim_mul, OP_MUL)
BINARY(prim_floordiv, OP_FLOORDIV)
BINARY(prim_truediv, OP_TRUEDIV)
BINARY(prim_mod, OP_MOD)
BINARY(prim_max, OP_MAX)
BINARY(prim_min, OP_MIN)

static pte_status int_only(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, binop op) {
  pte_status st = k_nargs(ctx, nargs, 3);
  if (st) return st;
  if (args[0]->tag != PTE_TAG_INT || args[1]->tag != PTE_TAG_INT) return K_FAIL("expected two Int arguments");
  return binary(ctx, args, nargs, op);
}
static pte_status prim_floordiv_int(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  return int_only(c, a, n, OP_FLOORDIV);
}
static pte_status prim_mod_int(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  return int_only(c, a, n, OP_MOD);
}
static pte_status prim_add_int(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  return int_only(c, a, n, OP_ADD);
}
static pte_status prim_sub_int(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  return int_only(c, a, n, OP_SUB);
}
static pte_status prim_mul_int(pte_kernel_ctx *c, pte_value **a, int32_t n) {
  return int_only(c, a, n, OP_MUL);
}

typedef enum { CMP_EQ, CMP_GT, CMP_LT, CMP_GE, CMP_LE } cmpop;

static pte_status compare(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, cmpop op) {
  pte_status st = k_nargs(ctx, nargs, 3);
  if (st) return st;
  bool r;
  if (is_intlike(args[0]) && is_intlike(args[1])) {
    int64_t a, b;
    pte_value_to_int(args[0], &a);
    pte_value_to_int(args[1], &b);
    r = op == CMP_EQ ? a == b : op == CMP_GT ? a > b : op == CMP_LT ? a < b : op == CMP_GE ? a >= b : a <= b;
  } else {
    double d[2];
    if ((st = scalar_args(ctx, args, 2, d))) return st;
    r = op == CMP_EQ   ? d[0] == d[1]
        : op == CMP_GT ? d[0] > d[1]
        : op == CMP_LT ? d[0] < d[1]
        : op == CMP_GE ? d[0] >= d[1]
                       : d[0] <= d[1];
  }
  set_bool(args[2], r);
  return PTE_OK;
}

#define COMPARE(fn, op) \
  static pte_status fn(pte_kernel_ctx *ctx, pte_value **a, int32_t n) { return compare(ctx, a, n, op); }
COMPARE(prim_eq, CMP_EQ)
COMPARE(prim_gt, CMP_GT)
COMPARE(prim_lt, CMP_LT)
COMPARE(prim_ge, CMP_GE)
COMPARE(prim_le, CMP_LE)

typedef enum { U_NEG, U_CEIL, U_ROUND, U_TRUNC, U_FLOAT, U_INT, U_NOT } unop;

static pte_status unary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, unop op) {
  pte_status st = k_nargs(ctx, nargs, 2);
  if (st) return st;
  double d;
  if ((st = scalar_args(ctx, args, 1, &d))) return st;
  pte_value *out = args[1];
  int64_t i = 0;
  bool intlike = pte_value_to_int(args[0], &i);
  switch (op) {
    case U_NEG:
      if (intlike) set_int(out, (int64_t)(0 - (uint64_t)i));
      else set_double(out, -d);
      return PTE_OK;
    case U_CEIL:
    case U_ROUND:
    case U_TRUNC:
    case U_INT:
      if (intlike) {
        set_int(out, i);
        return PTE_OK;
      }
      if (!isfinite(d) || fabs(d) >= 9.2e18) return K_FAIL("cannot convert %g to an integer", d);
      /* round() follows Python: halves go to the even neighbour. */
      set_int(out, (int64_t)(op == U_CEIL ? ceil(d) : op == U_ROUND ? nearbyint(d) : trunc(d)));
      return PTE_OK;
    case U_FLOAT: set_double(out, d); return PTE_OK;
    case U_NOT: set_bool(out, d == 0); return PTE_OK;
  }
  return PTE_OK;
}

#define UNARY(fn, op) \
  static pte_status fn(pte_kernel_ctx *ctx, pte_value **a, int32_t n) { return unary(ctx, a, n, op); }
UNARY(prim_neg, U_NEG)
UNARY(prim_ceil, U_CEIL)
UNARY(prim_round, U_ROUND)
UNARY(prim_trunc, U_TRUNC)
UNARY(prim_sym_float, U_FLOAT)
UNARY(prim_sym_int, U_INT)
UNARY(prim_sym_not, U_NOT)

static pte_status prim_sym_ite(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_status st = k_nargs(ctx, nargs, 4);
  if (st) return st;
  double c;
  if ((st = scalar_args(ctx, args, 1, &c))) return st;
  *args[3] = c != 0 ? *args[1] : *args[2];
  return PTE_OK;
}

static pte_status sym_size(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *t = NULL;
  pte_status st = k_nargs(ctx, nargs, 3);
  if (st || (st = k_tensor(ctx, args, 0, &t))) return st;
  int64_t dim;
  if (!pte_value_to_int(args[1], &dim)) return K_FAIL("dim must be an Int");
  if (dim < 0) dim += t->dim;
  if (dim < 0 || dim >= t->dim)
    return K_FAIL("dim %lld is out of range for a rank-%d tensor", (long long)dim, (int)t->dim);
  set_int(args[2], t->sizes[dim]);
  return PTE_OK;
}

static pte_status sym_numel(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *t = NULL;
  pte_status st = k_nargs(ctx, nargs, 2);
  if (st || (st = k_tensor(ctx, args, 0, &t))) return st;
  set_int(args[1], pte_tensor_numel(t));
  return PTE_OK;
}

static pte_status local_scalar_dense(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *t = NULL;
  pte_status st = k_nargs(ctx, nargs, 2);
  if (st || (st = k_tensor(ctx, args, 0, &t))) return st;
  if (pte_tensor_numel(t) != 1 || !t->data) return K_FAIL("expected a one-element tensor with data");
  const void *p = t->data;
  switch (t->dtype) {
    case PTE_FLOAT32: set_double(args[1], *(const float *)p); break;
    case PTE_FLOAT64: set_double(args[1], *(const double *)p); break;
    case PTE_INT64: set_int(args[1], *(const int64_t *)p); break;
    case PTE_INT32: set_int(args[1], *(const int32_t *)p); break;
    case PTE_INT16: set_int(args[1], *(const int16_t *)p); break;
    case PTE_INT8: set_int(args[1], *(const int8_t *)p); break;
    case PTE_UINT8: set_int(args[1], *(const uint8_t *)p); break;
    case PTE_BOOL: set_bool(args[1], *(const uint8_t *)p != 0); break;
    default: return K_FAIL("unsupported dtype %s", pte_dtype_name(t->dtype));
  }
  return PTE_OK;
}

/* et_view(self, size) -> out: out shares self's memory with a new shape. */
static pte_status et_view(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *self = NULL, *out = NULL;
  pte_status st = k_nargs(ctx, nargs, 3);
  if (st || (st = k_tensor(ctx, args, 0, &self)) || (st = k_tensor(ctx, args, 2, &out))) return st;
  int64_t sizes[PTE_MAX_DIM];
  int32_t dim = pte_value_int_list(args[1], sizes, PTE_MAX_DIM);
  if (dim < 0) return K_FAIL("size must be an int list of at most %d entries", PTE_MAX_DIM);
  if (out->dtype != self->dtype)
    return K_FAIL("view changes dtype from %s to %s", pte_dtype_name(self->dtype),
                  pte_dtype_name(out->dtype));
  int64_t numel = pte_tensor_numel(self), known = 1;
  int32_t infer = -1;
  for (int32_t i = 0; i < dim; i++) {
    if (sizes[i] == -1 && infer < 0) {
      infer = i;
      continue;
    }
    if (sizes[i] < 0) return K_FAIL("invalid view size %lld", (long long)sizes[i]);
    if (__builtin_mul_overflow(known, sizes[i], &known))
      return K_FAIL("view sizes overflow at dimension %d (size %lld)", (int)i, (long long)sizes[i]);
  }
  if (infer >= 0) {
    if (known == 0 || numel % known) return K_FAIL("cannot infer a view dimension");
    sizes[infer] = numel / known;
    known = numel;
  }
  if (known != numel)
    return K_FAIL("view of %lld elements as %lld elements", (long long)numel, (long long)known);
  if (!pte_tensor_is_contiguous(self)) return K_FAIL("view of a non-contiguous tensor");
  out->dim = dim;
  for (int32_t i = 0; i < dim; i++) {
    out->sizes[i] = sizes[i];
    out->dim_order[i] = (uint8_t)i;
  }
  pte_tensor_compute_strides(out);
  out->data = self->data;
  out->capacity = pte_tensor_nbytes(out);
  out->flags = (out->flags & ~(uint32_t)PTE_TENSOR_READONLY) | (self->flags & PTE_TENSOR_READONLY);
  return PTE_OK;
}

/* et_copy_index(copy_to, copy_from, index): copy_to[index] = copy_from, dim 0
 * set to index + 1 (as ExecuTorch's runtime does): a loop writes index 0
 * first, so copy_to ends at the run's length, not its upper bound or a
 * longer earlier run's. */
static pte_status et_copy_index(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs) {
  pte_tensor *to = NULL, *from = NULL;
  if (nargs < 3) return K_FAIL("expected at least 3 arguments, got %d", (int)nargs);
  pte_status st;
  if ((st = k_tensor(ctx, args, 0, &to)) || (st = k_tensor(ctx, args, 1, &from))) return st;
  int64_t index;
  if (!pte_value_to_int(args[2], &index) || index < 0) return K_FAIL("index must be a non-negative Int");
  if (to->dtype != from->dtype || to->dim != from->dim + 1)
    return K_FAIL("copy_to must be copy_from with a leading dimension");
  if (to->flags & PTE_TENSOR_READONLY) return K_FAIL("copy_to is read-only");
  int64_t sizes[PTE_MAX_DIM];
  sizes[0] = index + 1;
  for (int32_t i = 0; i < from->dim; i++) {
    if (to->sizes[i + 1] != from->sizes[i]) return K_FAIL("copy_to and copy_from shapes disagree");
    sizes[i + 1] = from->sizes[i];
  }
  if ((st = pte_tensor_resize(to, to->dim, sizes))) return pte_kernel_fail(ctx, st, "%s", pte_last_error());
  size_t nbytes = pte_tensor_nbytes(from);
  if (!to->data || (nbytes && !from->data)) return K_FAIL("tensor has no data");
  memmove((uint8_t *)to->data + (size_t)index * nbytes, from->data, nbytes);
  return PTE_OK;
}

static const pte_kernel prim_kernels[] = {
    {"aten::sym_size.int", sym_size, 0, 0},
    {"aten::sym_numel", sym_numel, 0, 0},
    {"aten::_local_scalar_dense", local_scalar_dense, 0, 0},
    {"executorch_prim::et_view.default", et_view, 0, 0},
    {"executorch_prim::et_copy_index.tensor", et_copy_index, 0, 0},
    {"executorch_prim::add.Scalar", prim_add, 0, 0},
    {"executorch_prim::sub.Scalar", prim_sub, 0, 0},
    {"executorch_prim::mul.Scalar", prim_mul, 0, 0},
    {"executorch_prim::floordiv.Scalar", prim_floordiv, 0, 0},
    {"executorch_prim::truediv.Scalar", prim_truediv, 0, 0},
    {"executorch_prim::mod.Scalar", prim_mod, 0, 0},
    {"executorch_prim::sym_max.Scalar", prim_max, 0, 0},
    {"executorch_prim::sym_min.Scalar", prim_min, 0, 0},
    {"executorch_prim::eq.Scalar", prim_eq, 0, 0},
    {"executorch_prim::gt.Scalar", prim_gt, 0, 0},
    {"executorch_prim::lt.Scalar", prim_lt, 0, 0},
    {"executorch_prim::ge.Scalar", prim_ge, 0, 0},
    {"executorch_prim::le.Scalar", prim_le, 0, 0},
    {"executorch_prim::neg.Scalar", prim_neg, 0, 0},
    {"executorch_prim::ceil.Scalar", prim_ceil, 0, 0},
    {"executorch_prim::round.Scalar", prim_round, 0, 0},
    {"executorch_prim::trunc.Scalar", prim_trunc, 0, 0},
    {"executorch_prim::sym_float.Scalar", prim_sym_float, 0, 0},
    {"executorch_prim::sym_int.Scalar", prim_sym_int, 0, 0},
    {"executorch_prim::sym_not.Scalar", prim_sym_not, 0, 0},
    {"executorch_prim::sym_ite.Scalar", prim_sym_ite, 0, 0},
    {"executorch_prim::floordiv.int", prim_floordiv_int, 0, 0},
    {"executorch_prim::mod.int", prim_mod_int, 0, 0},
    {"executorch_prim::add.int", prim_add_int, 0, 0},
    {"executorch_prim::sub.int", prim_sub_int, 0, 0},
    {"executorch_prim::mul.int", prim_mul_int, 0, 0},
};

static const pte_kernel_library prim_library =
    PTE_KERNEL_LIBRARY_INIT("runtime_prim_ops", PTE_PRIORITY_PORTABLE, prim_kernels,
                            (int32_t)(sizeof prim_kernels / sizeof prim_kernels[0]));

const pte_kernel_library *pte_prim_ops_library(void) { return &prim_library; }
