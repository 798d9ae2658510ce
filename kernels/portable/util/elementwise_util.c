/* Helpers for the elementwise operator family (see elementwise_util.h). */
#include "elementwise_util.h"

void ew_operand_tensor(const pte_tensor *t, ew_operand *o) {
  memset(o, 0, sizeof *o);
  o->t = t;
  o->op = k_tensor_operand(t);
  o->is_scalar = false;
}

void ew_operand_scalar(const k_scalar *s, ew_operand *o) {
  memset(o, 0, sizeof *o);
  o->s = *s;
  /* the wrapped tensor points into o->s, which stays put (no copies) */
  k_scalar_tensor(&o->s, &o->wrapped);
  o->t = &o->wrapped;
  o->op = k_scalar_operand(&o->s);
  o->is_scalar = true;
}

pte_status ew_operand_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool scalar,
                          ew_operand *o) {
  if (scalar) {
    k_scalar s;
    K_CHECK(k_scalar_arg(ctx, args, i, &s));
    ew_operand_scalar(&s, o);
    return PTE_OK;
  }
  pte_tensor *t = NULL;
  K_CHECK(k_tensor(ctx, args, i, &t));
  ew_operand_tensor(t, o);
  return PTE_OK;
}

int32_t ew_result_type(ew_operand *const *ops, int32_t n) {
  k_operand kops[K_MAX_OPERANDS];
  int32_t m = 0;
  for (int32_t i = 0; i < n && m < K_MAX_OPERANDS; i++)
    if (ops[i]) kops[m++] = ops[i]->op;
  return k_result_type(kops, m);
}

/* Convert through the same row loader tensors use, so scalars and tensor
 * elements round identically. */
double ew_scalar_d(const k_scalar *s, int32_t common) {
  pte_tensor t;
  k_scalar_tensor(s, &t);
  switch (k_ctype_of(common)) {
    case K_F32: {
      float f = 0;
      k_load_row(&f, K_F32, common, t.data, t.dtype, 0, 1, 1);
      return f;
    }
    case K_F64: {
      double d = 0;
      k_load_row(&d, K_F64, common, t.data, t.dtype, 0, 1, 1);
      return d;
    }
    case K_I64: {
      int64_t v = 0;
      k_load_row(&v, K_I64, common, t.data, t.dtype, 0, 1, 1);
      return (double)v;
    }
    case K_BOOL: {
      uint8_t b = 0;
      k_load_row(&b, K_BOOL, common, t.data, t.dtype, 0, 1, 1);
      return b;
    }
  }
  return 0;
}

int64_t ew_scalar_i(const k_scalar *s, int32_t common) {
  pte_tensor t;
  k_scalar_tensor(s, &t);
  if (k_ctype_of(common) == K_I64) {
    int64_t v = 0;
    k_load_row(&v, K_I64, common, t.data, t.dtype, 0, 1, 1);
    return v;
  }
  if (k_ctype_of(common) == K_BOOL) {
    uint8_t b = 0;
    k_load_row(&b, K_BOOL, common, t.data, t.dtype, 0, 1, 1);
    return b;
  }
  /* float common: callers use ew_scalar_d; keep a defined value anyway */
  double d = ew_scalar_d(s, common);
  if (d != d) return 0;
  if (d >= 9223372036854775807.0) return INT64_MAX;
  if (d <= -9223372036854775808.0) return INT64_MIN;
  return (int64_t)d;
}

pte_status ew_run(pte_kernel_ctx *ctx, ew_operand *const *ops, int32_t n, pte_tensor *out,
                  int32_t common, k_ctype out_ct, const k_row_fns *fns, k_params *p) {
  const pte_tensor *ins[3] = {NULL, NULL, NULL};
  int32_t m = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!ops[i]) continue;
    if (m == 3) return K_FAIL("internal: too many elementwise operands");
    ins[m++] = ops[i]->t;
  }
  k_params local;
  if (!p) {
    memset(&local, 0, sizeof local);
    p = &local;
  }
  p->i[EW_ERR_SLOT] = 0;
  K_CHECK(k_elementwise(ctx, ins, m, out, common, out_ct, fns, p));
  if (p->i[EW_ERR_SLOT] == EW_ERR_ZERO_DIV) return K_FAIL("ZeroDivisionError: integer division by zero");
  if (p->i[EW_ERR_SLOT]) return K_FAIL("elementwise operation failed (code %lld)", (long long)p->i[EW_ERR_SLOT]);
  return PTE_OK;
}

static pte_status check_common(pte_kernel_ctx *ctx, int32_t common, unsigned flags) {
  if (common < 0) return K_FAIL("unsupported input dtype");
  if ((flags & EW_NO_BOOL) && common == PTE_BOOL) return K_FAIL("not implemented for dtype bool");
  return PTE_OK;
}

pte_status ew_unary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, const k_row_fns *fns,
                    unsigned flags, k_params *p) {
  ew_operand self;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 3));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(k_tensor(ctx, args, 1, &out));
  int32_t common = self.t->dtype;
  if (!k_is_supported(common)) return K_FAIL("input has unsupported dtype %s", pte_dtype_name(common));
  K_CHECK(check_common(ctx, common, flags));
  if (flags & EW_FLOAT) common = ew_int_to_float(common);
  ew_operand *ops[1] = {&self};
  return ew_run(ctx, ops, 1, out, common, (flags & EW_PRED) ? K_BOOL : k_ctype_of(common), fns, p);
}

pte_status ew_binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool self_scalar,
                     bool other_scalar, const k_row_fns *fns, unsigned flags, k_params *p) {
  ew_operand self, other;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(ew_operand_arg(ctx, args, 0, self_scalar, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, other_scalar, &other));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  ew_operand *ops[2] = {&self, &other};
  int32_t common = ew_result_type(ops, 2);
  K_CHECK(check_common(ctx, common, flags));
  if (flags & EW_FLOAT) common = ew_int_to_float(common);
  return ew_run(ctx, ops, 2, out, common, (flags & EW_PRED) ? K_BOOL : k_ctype_of(common), fns, p);
}
