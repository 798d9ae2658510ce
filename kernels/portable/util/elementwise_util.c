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

pte_status ew_operand_arg(pte_kernel_ctx *ctx, pte_value **args, int32_t i, bool scalar, ew_operand *o) {
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

/* Round computed values through the common dtype, so an output of another
 * dtype receives what ATen computes: the result in the common dtype, then
 * cast (e.g. uint8 arithmetic wraps before being stored to int64, float16
 * results are rounded to half before being stored to float32). */
static void round_through(void *buf, k_ctype ct, int32_t common, int64_t n) {
  if (ct == K_F32 && common == PTE_FLOAT16) {
    float *f = (float *)buf;
    for (int64_t j = 0; j < n; j++) f[j] = k_half_to_float(k_float_to_half(f[j]));
  } else if (ct == K_F32 && common == PTE_BFLOAT16) {
    float *f = (float *)buf;
    for (int64_t j = 0; j < n; j++) f[j] = k_bf16_to_float(k_float_to_bf16(f[j]));
  } else if (ct == K_I64) {
    int64_t *v = (int64_t *)buf;
    switch (common) {
      case PTE_UINT8:
        for (int64_t j = 0; j < n; j++) v[j] = (uint8_t)v[j];
        break;
      case PTE_INT8:
        for (int64_t j = 0; j < n; j++) v[j] = (int8_t)v[j];
        break;
      case PTE_INT16:
        for (int64_t j = 0; j < n; j++) v[j] = (int16_t)v[j];
        break;
      case PTE_INT32:
        for (int64_t j = 0; j < n; j++) v[j] = (int32_t)v[j];
        break;
      default: break;
    }
  }
}

#define EW_CHUNK 256

pte_status ew_run(pte_kernel_ctx *ctx, ew_operand *const *ops, int32_t n, pte_tensor *out, int32_t common,
                  k_ctype out_ct, const k_row_fns *fns, k_params *p) {
  const pte_tensor *ins[3] = {NULL, NULL, NULL};
  int32_t through[3] = {common, common, common};
  bool reduced = common == PTE_FLOAT16 || common == PTE_BFLOAT16;
  int32_t nin = 0;
  for (int32_t i = 0; i < n; i++) {
    if (!ops[i]) continue;
    if (nin == 3) return K_FAIL("internal: too many elementwise operands");
    if (reduced && ops[i]->keep_precision) through[nin] = ops[i]->t->dtype;
    ins[nin++] = ops[i]->t;
  }
  if (nin == 0) return K_FAIL("internal: no elementwise operands");
  k_params local;
  if (!p) {
    memset(&local, 0, sizeof local);
    p = &local;
  }
  p->i[EW_ERR_SLOT] = 0;

  /* validate everything before writing */
  if (!k_is_supported(common)) return K_FAIL("dtype %s is not supported", pte_dtype_name(common));
  k_ctype ct = k_ctype_of(common);
  k_row_fn fn = fns->fn[ct];
  if (!fn) return K_FAIL("not implemented for dtype %s", pte_dtype_name(common));
  for (int32_t i = 0; i < nin; i++) {
    if (!k_is_supported(ins[i]->dtype))
      return K_FAIL("input %d has unsupported dtype %s", (int)i, pte_dtype_name(ins[i]->dtype));
    K_CHECK(k_has_data(ctx, ins[i], "an input"));
  }
  if (!k_is_supported(out->dtype))
    return K_FAIL("output has unsupported dtype %s", pte_dtype_name(out->dtype));
  bool pred = out_ct == K_BOOL && ct != K_BOOL;
  if (!pred && out_ct != ct) return K_FAIL("internal: row output type mismatch");
  int32_t result = pred ? PTE_BOOL : common;
  if (!k_can_cast(result, out->dtype))
    return K_FAIL("result type %s can't be cast to the output dtype %s", pte_dtype_name(result),
                  pte_dtype_name(out->dtype));
  bool round = !pred && out->dtype != common;

  int32_t dim = 0;
  int64_t sizes[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ins, nin, &dim, sizes));
  K_CHECK(k_out(ctx, out, dim, sizes));
  if (pte_tensor_numel(out) == 0) return PTE_OK;

  int64_t strides[K_MAX_OPERANDS][PTE_MAX_DIM];
  for (int32_t i = 0; i < nin; i++) k_broadcast_strides(ins[i], dim, sizes, strides[i]);
  for (int32_t k = 0; k < dim; k++) strides[nin][k] = out->strides[k];
  k_iter it;
  k_iter_init(&it, dim, sizes, nin + 1, strides);
  int64_t istride[K_MAX_OPERANDS];
  for (int32_t o = 0; o <= nin; o++) istride[o] = k_iter_stride(&it, o);

  _Alignas(64) uint8_t buf[4][EW_CHUNK * 8];
  int64_t off[K_MAX_OPERANDS];
  int64_t len;
  while ((len = k_iter_row(&it, off)) > 0) {
    for (int64_t s = 0; s < len; s += EW_CHUNK) {
      int64_t m = len - s < EW_CHUNK ? len - s : EW_CHUNK;
      const void *in[3] = {NULL, NULL, NULL};
      for (int32_t i = 0; i < nin; i++) {
        k_load_row(buf[i], ct, through[i], ins[i]->data, ins[i]->dtype, off[i] + s * istride[i], istride[i],
                   m);
        in[i] = buf[i];
      }
      fn(in[0], in[1], in[2], buf[3], m, p);
      if (round) round_through(buf[3], ct, common, m);
      k_store_row(out->data, out->dtype, off[nin] + s * istride[nin], istride[nin], buf[3], out_ct, m);
    }
  }
  if (p->i[EW_ERR_SLOT] == EW_ERR_ZERO_DIV) return K_FAIL("ZeroDivisionError: integer division by zero");
  if (p->i[EW_ERR_SLOT])
    return K_FAIL("elementwise operation failed (code %lld)", (long long)p->i[EW_ERR_SLOT]);
  return PTE_OK;
}

/* ATen's Scalar::to<T>() overflow check (c10 "overflows"): floats must lie
 * within the target's finite range (infinities are fine for float targets,
 * NaN is not for integer ones); negative integers may wrap into unsigned
 * targets down to -max. */
pte_status ew_scalar_check(pte_kernel_ctx *ctx, const k_scalar *s, int32_t dtype, const char *what) {
  double lo = 0, hi = 0;
  switch (dtype) {
    case PTE_BOOL: return PTE_OK;
    case PTE_UINT8:
      lo = 0;
      hi = 255;
      break;
    case PTE_INT8:
      lo = -128;
      hi = 127;
      break;
    case PTE_INT16:
      lo = -32768;
      hi = 32767;
      break;
    case PTE_INT32:
      lo = -2147483648.0;
      hi = 2147483647.0;
      break;
    case PTE_INT64:
      lo = -9223372036854775808.0;
      hi = 9223372036854775807.0;
      break;
    case PTE_FLOAT16:
      lo = -65504;
      hi = 65504;
      break;
    case PTE_BFLOAT16:
      lo = -3.3895313892515355e38;
      hi = 3.3895313892515355e38;
      break;
    case PTE_FLOAT32:
      lo = -3.4028234663852886e38;
      hi = 3.4028234663852886e38;
      break;
    default: return PTE_OK;
  }
  bool bad = false;
  if (s->dtype == PTE_FLOAT64) {
    double v = s->d;
    if (k_is_float(dtype)) bad = !isinf(v) && v == v && (v < lo || v > hi);
    else bad = v != v || v < lo || v > hi;
  } else if (s->dtype == PTE_INT64 && dtype != PTE_INT64) {
    int64_t v = s->i;
    if (dtype == PTE_UINT8) bad = v > 255 || v < -255;
    else bad = (double)v < lo || (double)v > hi;
  }
  if (bad) return K_FAIL("%s cannot be converted to type %s without overflow", what, pte_dtype_name(dtype));
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

/* A complex tensor seen as its parts: a trailing (re, im) dim, strides in parts. */
static pte_status complex_parts(pte_kernel_ctx *ctx, const pte_tensor *t, pte_tensor *v) {
  if (t->dim >= PTE_MAX_DIM) return K_FAIL("%d dims: no room for the (re, im) dim", (int)t->dim);
  *v = *t;
  v->dtype = k_complex_part(t->dtype);
  v->dim = t->dim + 1;
  for (int32_t i = 0; i < t->dim; i++) v->strides[i] = t->strides[i] * 2;
  v->sizes[t->dim] = 2;
  v->strides[t->dim] = 1;
  v->dim_order[t->dim] = (uint8_t)t->dim;
  return PTE_OK;
}

/* self ± alpha * other on complex tensors of one dtype: with a real alpha
 * that is the same sum on each part, so it runs on the parts' views. */
static pte_status complex_alpha_binary(pte_kernel_ctx *ctx, ew_operand *const *ops, pte_tensor *out,
                                       const k_scalar *alpha, const k_row_fns *fns) {
  const pte_tensor *ts[2] = {ops[0]->t, ops[1]->t};
  if (ops[0]->is_scalar || ops[1]->is_scalar || ts[0]->dtype != out->dtype || ts[1]->dtype != out->dtype ||
      !k_is_complex(out->dtype))
    return K_FAIL("complex inputs need complex tensors of out's dtype (%s)", pte_dtype_name(out->dtype));
  int32_t dim = 0;
  int64_t sizes[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ts, 2, &dim, sizes));
  K_CHECK(k_out(ctx, out, dim, sizes));
  pte_tensor pv[3];
  ew_operand po[2];
  ew_operand *pops[2] = {&po[0], &po[1]};
  for (int32_t i = 0; i < 2; i++) {
    K_CHECK(complex_parts(ctx, ts[i], &pv[i]));
    po[i] = *ops[i];
    po[i].t = &pv[i];
    po[i].keep_precision = false;
  }
  K_CHECK(complex_parts(ctx, out, &pv[2]));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = alpha->d;
  p.i[0] = alpha->i;
  return ew_run(ctx, pops, 2, &pv[2], pv[2].dtype, k_ctype_of(pv[2].dtype), fns, &p);
}

pte_status ew_alpha_binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool other_scalar,
                           const k_row_fns *fns, unsigned flags) {
  ew_operand self, other;
  k_scalar alpha;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 5));
  K_CHECK(ew_operand_arg(ctx, args, 0, false, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, other_scalar, &other));
  K_CHECK(k_scalar_arg(ctx, args, 2, &alpha));
  K_CHECK(k_tensor(ctx, args, 3, &out));
  if ((flags & EW_SUBTRACT) && self.t->dtype == PTE_BOOL && other.t->dtype == PTE_BOOL)
    return K_FAIL("subtraction with two bool tensors is not supported (use logical_xor)");
  if ((flags & EW_SUBTRACT) && (self.t->dtype == PTE_BOOL || other.t->dtype == PTE_BOOL))
    return K_FAIL("subtraction with a bool tensor is not supported (use ~ or logical_not)");
  ew_operand *ops[2] = {&self, &other};
  if (flags & EW_SWAP) ops[0] = &other, ops[1] = &self;
  if (k_is_complex(self.t->dtype) || k_is_complex(other.t->dtype))
    return complex_alpha_binary(ctx, ops, out, &alpha, fns);
  int32_t common = ew_result_type(ops, 2);
  if (common < 0) return K_FAIL("unsupported input dtype");
  if (alpha.dtype == PTE_BOOL && common != PTE_BOOL)
    return K_FAIL("boolean alpha is only supported for boolean results");
  if (!k_is_float(common) && alpha.dtype == PTE_FLOAT64)
    return K_FAIL("alpha must not be a floating point number for %s inputs", pte_dtype_name(common));
  k_params p;
  memset(&p, 0, sizeof p);
  p.d[0] = alpha.d;
  p.i[0] = alpha.i;
  return ew_run(ctx, ops, 2, out, common, k_ctype_of(common), fns, &p);
}

pte_status ew_binary(pte_kernel_ctx *ctx, pte_value **args, int32_t nargs, bool self_scalar,
                     bool other_scalar, const k_row_fns *fns, unsigned flags, k_params *p) {
  ew_operand self, other;
  pte_tensor *out = NULL;
  K_CHECK(k_nargs(ctx, nargs, 4));
  K_CHECK(ew_operand_arg(ctx, args, 0, self_scalar, &self));
  K_CHECK(ew_operand_arg(ctx, args, 1, other_scalar, &other));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (flags & EW_KEEP_SCALAR) ew_keep_scalar_precision(&other);
  ew_operand *ops[2] = {&self, &other};
  /* loading as bool turns every element into its truth value */
  int32_t common = (flags & EW_TRUTH) ? PTE_BOOL : ew_result_type(ops, 2);
  K_CHECK(check_common(ctx, common, flags));
  if (flags & EW_FLOAT) common = ew_int_to_float(common);
  return ew_run(ctx, ops, 2, out, common, (flags & EW_PRED) ? K_BOOL : k_ctype_of(common), fns, p);
}

pte_status ew_complex_binary(pte_kernel_ctx *ctx, pte_value **args, ew_complex_fn op) {
  pte_tensor *a, *b, *out;
  K_CHECK(k_tensor(ctx, args, 0, &a));
  K_CHECK(k_tensor(ctx, args, 1, &b));
  K_CHECK(k_tensor(ctx, args, 2, &out));
  if (a->dtype != out->dtype || b->dtype != out->dtype)
    return K_FAIL("complex inputs need tensors of out's dtype (%s)", pte_dtype_name(out->dtype));
  K_CHECK(k_has_data(ctx, a, "self"));
  K_CHECK(k_has_data(ctx, b, "other"));
  const pte_tensor *ts[2] = {a, b};
  int32_t dim = 0;
  int64_t sizes[PTE_MAX_DIM], sa[PTE_MAX_DIM], sb[PTE_MAX_DIM];
  K_CHECK(k_broadcast_shape(ctx, ts, 2, &dim, sizes));
  K_CHECK(k_out(ctx, out, dim, sizes));
  k_broadcast_strides(a, dim, sizes, sa);
  k_broadcast_strides(b, dim, sizes, sb);
  const int32_t part = k_complex_part(out->dtype);
  const int64_t n = pte_tensor_numel(out);
  for (int64_t i = 0; i < n; i++) {
    int64_t ia = 2 * k_offset(dim, sizes, sa, i), ib = 2 * k_offset(dim, sizes, sb, i);
    int64_t io = 2 * k_offset(dim, sizes, out->strides, i);
    double cr, ci;
    op(k_get_d(a->data, part, ia), k_get_d(a->data, part, ia + 1), k_get_d(b->data, part, ib),
       k_get_d(b->data, part, ib + 1), &cr, &ci);
    k_set_d(out->data, part, io, cr);
    k_set_d(out->data, part, io + 1, ci);
  }
  return PTE_OK;
}
