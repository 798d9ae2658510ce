/* Argument readers of the kernel layer (see klayer.h). */
#include "klayer.h"

pte_status k_int(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out) {
  if (!pte_value_to_int(args[i], out)) return k_wrong_tag(ctx, i, args[i], "an Int");
  return PTE_OK;
}

pte_status k_opt_int(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, bool *present) {
  *present = args[i]->tag != PTE_TAG_NONE;
  if (!*present) return PTE_OK;
  return k_int(ctx, args, i, out);
}

pte_status k_double(pte_kernel_ctx *ctx, pte_value **args, int32_t i, double *out) {
  if (!pte_value_to_double(args[i], out)) return k_wrong_tag(ctx, i, args[i], "a number");
  return PTE_OK;
}

pte_status k_opt_double(pte_kernel_ctx *ctx, pte_value **args, int32_t i, double *out, bool *present) {
  *present = args[i]->tag != PTE_TAG_NONE;
  if (!*present) return PTE_OK;
  return k_double(ctx, args, i, out);
}

pte_status k_bool(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool *out) {
  if (args[i]->tag != PTE_TAG_BOOL) return k_wrong_tag(ctx, i, args[i], "a Bool");
  *out = args[i]->u.b;
  return PTE_OK;
}

pte_status k_int_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, int32_t max,
                      int32_t *n) {
  if (args[i]->tag != PTE_TAG_INT_LIST) return k_wrong_tag(ctx, i, args[i], "an IntList");
  int32_t got = pte_value_int_list(args[i], out, max);
  if (got < 0)
    return K_FAIL("argument %d: int list of %d entries (at most %d supported)", (int)i, (int)args[i]->len,
                  (int)max);
  *n = got;
  return PTE_OK;
}

pte_status k_opt_int_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int64_t *out, int32_t max,
                          int32_t *n) {
  if (args[i]->tag == PTE_TAG_NONE) {
    *n = -1;
    return PTE_OK;
  }
  return k_int_list(ctx, args, i, out, max, n);
}

pte_status k_string(pte_kernel_ctx *ctx, pte_value **args, int32_t i, const char **out) {
  if (args[i]->tag != PTE_TAG_STRING) return k_wrong_tag(ctx, i, args[i], "a String");
  *out = args[i]->u.str;
  return PTE_OK;
}

pte_status k_tensor_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_value *const **items,
                         int32_t *n) {
  if (args[i]->tag != PTE_TAG_TENSOR_LIST) return k_wrong_tag(ctx, i, args[i], "a TensorList");
  *items = args[i]->u.items;
  *n = args[i]->len;
  return PTE_OK;
}

pte_status k_opt_tensor_list(pte_kernel_ctx *ctx, pte_value **args, int32_t i, pte_value *const **items,
                             int32_t *n) {
  if (args[i]->tag != PTE_TAG_TENSOR_LIST && args[i]->tag != PTE_TAG_OPTIONAL_TENSOR_LIST)
    return k_wrong_tag(ctx, i, args[i], "a TensorList");
  *items = args[i]->u.items;
  *n = args[i]->len;
  return PTE_OK;
}

pte_status k_opt_dtype(pte_kernel_ctx *ctx, pte_value **args, int32_t i, int32_t *dtype, bool *present) {
  int64_t v = 0;
  K_CHECK(k_opt_int(ctx, args, i, &v, present));
  if (*present) {
    if (v < 0 || v >= PTE_DTYPE_COUNT || pte_dtype_size((int32_t)v) == 0)
      return K_FAIL("argument %d: invalid dtype code %lld", (int)i, (long long)v);
    *dtype = (int32_t)v;
  }
  return PTE_OK;
}

pte_status k_scalar_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, k_scalar *out) {
  const pte_value *v = args[i];
  memset(out, 0, sizeof *out);
  switch (v->tag) {
    case PTE_TAG_INT:
      out->dtype = PTE_INT64;
      out->i = v->u.i;
      out->d = (double)v->u.i;
      return PTE_OK;
    case PTE_TAG_DOUBLE:
      out->dtype = PTE_FLOAT64;
      out->d = v->u.d;
      out->i = 0;
      return PTE_OK;
    case PTE_TAG_BOOL:
      out->dtype = PTE_BOOL;
      out->i = v->u.b;
      out->d = v->u.b;
      return PTE_OK;
    default: return k_wrong_tag(ctx, i, v, "a Scalar");
  }
}

void k_scalar_tensor(const k_scalar *s, pte_tensor *t) {
  pte_tensor_init(t, s->dtype, 0, NULL, NULL);
  t->data = (void *)(s->dtype == PTE_FLOAT64 ? (const void *)&s->d : (const void *)&s->i);
  if (s->dtype == PTE_BOOL) {
    /* bool storage is one byte: point at the low byte of i (little-endian). */
    t->data = (void *)&s->i;
  }
  t->flags |= PTE_TENSOR_READONLY;
}

int32_t k_wrap_dim(int64_t dim, int32_t rank) {
  int32_t r = rank > 0 ? rank : 1;
  if (dim < -r || dim >= r) return -1;
  return (int32_t)(dim < 0 ? dim + r : dim);
}

pte_status k_dim(pte_kernel_ctx *ctx, int64_t dim, int32_t rank, int32_t *out) {
  int32_t w = k_wrap_dim(dim, rank);
  if (w < 0) return K_FAIL("dim %lld is out of range for a rank-%d tensor", (long long)dim, (int)rank);
  *out = w;
  return PTE_OK;
}

/* ---- accept time ---- */

bool k_arg_num(pte_value *const *args, int32_t nargs, int32_t i, double *out) {
  if (i >= nargs || !args[i]) return false;
  const pte_value *v = args[i];
  switch (v->tag) {
    case PTE_TAG_INT: *out = (double)v->u.i; return true;
    case PTE_TAG_DOUBLE: *out = v->u.d; return true;
    case PTE_TAG_BOOL: *out = v->u.b ? 1.0 : 0.0; return true;
    default: return false;
  }
}

int32_t k_arg_ints(pte_value *const *args, int32_t nargs, int32_t i, int64_t *out, int32_t max) {
  if (i >= nargs || !args[i]) return -1;
  return pte_value_int_list(args[i], out, max);
}

bool k_default_order(const pte_tensor *t) {
  for (int32_t i = 0; i < t->dim; i++)
    if (t->dim_order[i] != i) return false;
  return true;
}
