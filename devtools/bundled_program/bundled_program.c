/* BundledProgram (.bpte) files: verified with the runtime's flatbuffer
 * verifier against the schema below, then indexed once so that setting a
 * case's inputs and checking its outputs touch no flatbuffer again. */
#include <pterun/bundled_program.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bundled_program_schema.fbs (file identifier BP08), one slot per field. */
PTE_FB_TABLE_DEF(t_tensor, "Tensor", PTE_FB_SCALAR_F("scalar_type", 1), PTE_FB_VEC_SCALAR_F("sizes", 4),
                 PTE_FB_VEC_SCALAR_F("data", 1), PTE_FB_VEC_SCALAR_F("dim_order", 1));
PTE_FB_TABLE_DEF(t_int, "Int", PTE_FB_SCALAR_F("int_val", 8));
PTE_FB_TABLE_DEF(t_bool, "Bool", PTE_FB_SCALAR_F("bool_val", 1));
PTE_FB_TABLE_DEF(t_double, "Double", PTE_FB_SCALAR_F("double_val", 8));
static const pte_fb_table *const value_members[] = {&t_tensor, &t_int, &t_bool, &t_double};
PTE_FB_TABLE_DEF(t_value, "Value", PTE_FB_UNION_TYPE_F("val_type"), PTE_FB_UNION_F("val", value_members));
PTE_FB_TABLE_DEF(t_case, "BundledMethodTestCase", PTE_FB_VEC_TABLE_F("inputs", t_value),
                 PTE_FB_VEC_TABLE_F("expected_outputs", t_value));
PTE_FB_TABLE_DEF(t_suite, "BundledMethodTestSuite", PTE_FB_STRING_F("method_name"),
                 PTE_FB_VEC_TABLE_F("test_cases", t_case));
PTE_FB_TABLE_DEF(t_bundle, "BundledProgram", PTE_FB_SCALAR_F("version", 4),
                 PTE_FB_VEC_TABLE_F("method_test_suites", t_suite), PTE_FB_VEC_SCALAR_F("program", 1));

enum { U_TENSOR = 1, U_INT = 2, U_BOOL = 3, U_DOUBLE = 4 };

typedef struct {
  int32_t ninputs, noutputs;
  pte_value *inputs, *outputs; /* into bundle.values */
} bp_case;

typedef struct {
  const char *method;
  int32_t ncases;
  bp_case *cases;
} bp_suite;

struct pte_bundled_program {
  uint8_t *buf; /* the file, 32-byte aligned (the program vector asks for 32) */
  size_t size;
  const uint8_t *program;
  size_t program_size;
  int32_t nsuites;
  bp_suite *suites;
  bp_case *cases;
  pte_value *values;
  pte_tensor *tensors;
};

/* Counts first, so one allocation per kind serves every suite. */
typedef struct {
  size_t cases, values, tensors;
} bp_counts;

/* A hostile or broken file: the message names where in it. */
static pte_status bad(const char *where, const char *fmt, ...) PTE_PRINTF(2, 3);
static pte_status bad(const char *where, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pte_error(PTE_ERR_INVALID_PROGRAM, "bundled program: %s: %s", where, msg);
}

/* Strides from a dim order (outermost first), in elements. */
static void strides_from_order(pte_tensor *t) {
  int64_t s = 1;
  for (int32_t k = t->dim - 1; k >= 0; k--) {
    int d = t->dim_order[k];
    t->strides[d] = s;
    s *= t->sizes[d] ? t->sizes[d] : 1;
  }
}

/* One Value of the file into *v (tensors into *t, over the file's bytes). */
static pte_status read_value(pte_fb fb, uint32_t val, pte_value *v, pte_tensor *t, const char *where) {
  uint8_t tag = (uint8_t)pte_fb_scalar(fb, val, 0, 1, 0);
  uint32_t u = pte_fb_ref(fb, val, 1);
  if (!u) return bad(where, "value has no member (type %d)", (int)tag);
  memset(v, 0, sizeof *v);
  switch (tag) {
    case U_INT:
      v->tag = PTE_TAG_INT;
      v->u.i = (int64_t)pte_fb_scalar(fb, u, 0, 8, 0);
      return PTE_OK;
    case U_BOOL:
      v->tag = PTE_TAG_BOOL;
      v->u.b = pte_fb_scalar(fb, u, 0, 1, 0) != 0;
      return PTE_OK;
    case U_DOUBLE: {
      uint64_t bits = pte_fb_scalar(fb, u, 0, 8, 0);
      v->tag = PTE_TAG_DOUBLE;
      memcpy(&v->u.d, &bits, sizeof bits);
      return PTE_OK;
    }
    case U_TENSOR: break;
    default: return bad(where, "unknown value type %d", (int)tag);
  }
  int32_t dtype = (int32_t)(int8_t)pte_fb_scalar(fb, u, 0, 1, 0);
  size_t esize = pte_dtype_size(dtype);
  if (!esize) return bad(where, "tensor dtype %d is not one pterun knows", (int)dtype);
  uint32_t sv = pte_fb_ref(fb, u, 1), dv = pte_fb_ref(fb, u, 2), ov = pte_fb_ref(fb, u, 3);
  uint32_t dim = pte_fb_vec_len(fb, sv);
  if (dim > PTE_MAX_DIM) return bad(where, "tensor has %u dimensions (at most %d)", dim, PTE_MAX_DIM);
  int64_t sizes[PTE_MAX_DIM];
  uint64_t numel = 1;
  for (uint32_t k = 0; k < dim; k++) {
    int32_t s = (int32_t)pte_fb_u32(pte_fb_vec_data(fb, sv) + 4 * k);
    if (s < 0) return bad(where, "tensor size %u is negative (%d)", k, (int)s);
    sizes[k] = s;
    /* every size is below 2^31, so this only overflows past 2^62 elements */
    if (numel > ((uint64_t)1 << 62) / ((uint64_t)s + 1)) return bad(where, "tensor is too large");
    numel *= (uint64_t)s;
  }
  uint32_t nbytes = pte_fb_vec_len(fb, dv);
  if (numel * esize != nbytes)
    return bad(where, "tensor data holds %u bytes, its sizes need %llu", nbytes,
               (unsigned long long)(numel * esize));
  const uint8_t *data = dv ? pte_fb_vec_data(fb, dv) : NULL;
  /* kernels read elements in place: the schema aligns data to 16 */
  if (data && ((uintptr_t)data % esize) != 0) return bad(where, "tensor data is misaligned");
  pte_status st = pte_tensor_init(t, dtype, (int32_t)dim, sizes, nbytes ? (void *)data : NULL);
  if (st) return st;
  uint32_t nord = pte_fb_vec_len(fb, ov);
  if (nord) {
    if (nord != dim) return bad(where, "dim order has %u entries for %u dimensions", nord, dim);
    uint32_t seen = 0;
    for (uint32_t k = 0; k < dim; k++) {
      uint8_t d = pte_fb_vec_data(fb, ov)[k];
      if (d >= dim || (seen & (1u << d))) return bad(where, "dim order is not a permutation (entry %u)", k);
      seen |= 1u << d;
      t->dim_order[k] = d;
    }
    strides_from_order(t);
  }
  t->flags |= PTE_TENSOR_READONLY;
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
  return PTE_OK;
}

/* Walk every case: count (fill == NULL) or fill bp's tables. */
static pte_status walk(pte_fb fb, pte_bundled_program *bp, bp_counts *n) {
  uint32_t root = pte_fb_root(fb);
  uint32_t suites = pte_fb_ref(fb, root, 1);
  bp_counts at = {0, 0, 0};
  char where[160];
  for (uint32_t s = 0; s < pte_fb_vec_len(fb, suites); s++) {
    uint32_t st_ = pte_fb_vec_table(fb, suites, s);
    const char *name = pte_fb_str(fb, pte_fb_ref(fb, st_, 0));
    if (!name || !name[0]) return bad("method_test_suites", "suite %u has no method name", s);
    uint32_t cases = pte_fb_ref(fb, st_, 1);
    uint32_t ncases = pte_fb_vec_len(fb, cases);
    if (bp) {
      bp->suites[s].method = name;
      bp->suites[s].ncases = (int32_t)ncases;
      bp->suites[s].cases = bp->cases + at.cases;
    }
    for (uint32_t c = 0; c < ncases; c++, at.cases++) {
      uint32_t tc = pte_fb_vec_table(fb, cases, c);
      for (int io = 0; io < 2; io++) {
        uint32_t vals = pte_fb_ref(fb, tc, io);
        uint32_t nv = pte_fb_vec_len(fb, vals);
        if (nv > 4096) return bad(name, "case %u has %u values (at most 4096)", c, nv);
        if (bp) {
          bp_case *bc = &bp->cases[at.cases];
          if (io) bc->noutputs = (int32_t)nv, bc->outputs = bp->values + at.values;
          else bc->ninputs = (int32_t)nv, bc->inputs = bp->values + at.values;
        }
        for (uint32_t k = 0; k < nv; k++, at.values++) {
          uint32_t val = pte_fb_vec_table(fb, vals, k);
          if (pte_fb_scalar(fb, val, 0, 1, 0) == U_TENSOR) at.tensors++;
          if (!bp) continue;
          snprintf(where, sizeof where, "method '%s' case %u %s %u", name, c,
                   io ? "expected output" : "input", k);
          pte_tensor *t = pte_fb_scalar(fb, val, 0, 1, 0) == U_TENSOR ? &bp->tensors[at.tensors - 1] : NULL;
          pte_status st = read_value(fb, val, &bp->values[at.values], t, where);
          if (st) return st;
        }
      }
    }
  }
  if (n) *n = at;
  return PTE_OK;
}

pte_status pte_bundled_program_load_buffer(const void *data, size_t size, pte_bundled_program **out) {
  if (!out || (!data && size)) return pte_error(PTE_ERR_INVALID_ARGUMENT, "bundled program: NULL argument");
  *out = NULL;
  if (size < 8 || size > (size_t)INT32_MAX)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "bundled program: %zu bytes is not a BundledProgram file",
                     size);
  if (memcmp((const uint8_t *)data + 4, "BP08", 4) != 0)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "bundled program: file identifier is not BP08 (not a .bpte, or another schema version)");
  pte_bundled_program *bp = calloc(1, sizeof *bp);
  if (!bp) return pte_error(PTE_ERR_OUT_OF_MEMORY, "bundled program: out of memory");
  bp->buf = aligned_alloc(32, (size + 31) & ~(size_t)31);
  if (!bp->buf) {
    free(bp);
    return pte_error(PTE_ERR_OUT_OF_MEMORY, "bundled program: out of memory for %zu bytes", size);
  }
  memcpy(bp->buf, data, size);
  bp->size = size;
  pte_fb fb = {bp->buf, size};
  pte_status st = pte_fb_verify(bp->buf, size, &t_bundle, "BP08");
  if (st) { /* say which file kind the verifier's path is in */
    char why[512];
    snprintf(why, sizeof why, "%s", pte_last_error());
    st = pte_error(st, "bundled program: %s", why);
  }
  bp_counts n;
  if (!st) st = walk(fb, NULL, &n);
  if (st) goto fail;
  uint32_t root = pte_fb_root(fb);
  uint32_t prog = pte_fb_ref(fb, root, 2);
  if (!pte_fb_vec_len(fb, prog)) {
    st = pte_error(PTE_ERR_INVALID_PROGRAM, "bundled program: it holds no program");
    goto fail;
  }
  bp->program = pte_fb_vec_data(fb, prog);
  bp->program_size = pte_fb_vec_len(fb, prog);
  bp->nsuites = (int32_t)pte_fb_vec_len(fb, pte_fb_ref(fb, root, 1));
  bp->suites = calloc((size_t)bp->nsuites + 1, sizeof *bp->suites);
  bp->cases = calloc(n.cases + 1, sizeof *bp->cases);
  bp->values = calloc(n.values + 1, sizeof *bp->values);
  bp->tensors = calloc(n.tensors + 1, sizeof *bp->tensors);
  if (!bp->suites || !bp->cases || !bp->values || !bp->tensors) {
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "bundled program: out of memory");
    goto fail;
  }
  if ((st = walk(fb, bp, NULL))) goto fail;
  *out = bp;
  return PTE_OK;
fail:
  pte_bundled_program_free(bp);
  return st;
}

pte_status pte_bundled_program_load_file(const char *path, pte_bundled_program **out) {
  if (!path || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "bundled program: NULL argument");
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return pte_error(PTE_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  void *data = NULL;
  long len = -1;
  if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
  if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (data = malloc((size_t)len + 1)) != NULL &&
      fread(data, 1, (size_t)len, f) == (size_t)len) {
    fclose(f);
    pte_status st = pte_bundled_program_load_buffer(data, (size_t)len, out);
    free(data);
    return st;
  }
  fclose(f);
  free(data);
  return pte_error(PTE_ERR_IO, "cannot read %s", path);
}

void pte_bundled_program_free(pte_bundled_program *bp) {
  if (!bp) return;
  free(bp->suites);
  free(bp->cases);
  free(bp->values);
  free(bp->tensors);
  free(bp->buf);
  free(bp);
}

const void *pte_bundled_program_program(const pte_bundled_program *bp, size_t *size) {
  if (size) *size = bp ? bp->program_size : 0;
  return bp ? bp->program : NULL;
}

int32_t pte_bundled_program_suite_count(const pte_bundled_program *bp) { return bp ? bp->nsuites : 0; }

const char *pte_bundled_program_suite_method(const pte_bundled_program *bp, int32_t suite) {
  return bp && suite >= 0 && suite < bp->nsuites ? bp->suites[suite].method : NULL;
}

static const bp_suite *find_suite(const pte_bundled_program *bp, const char *method) {
  for (int32_t s = 0; bp && method && s < bp->nsuites; s++)
    if (strcmp(bp->suites[s].method, method) == 0) return &bp->suites[s];
  return NULL;
}

int32_t pte_bundled_program_case_count(const pte_bundled_program *bp, const char *method) {
  const bp_suite *s = find_suite(bp, method);
  return s ? s->ncases : 0;
}

static pte_status find_case(const pte_bundled_program *bp, const char *method, int32_t index,
                            const bp_case **out) {
  const bp_suite *s = find_suite(bp, method);
  if (!s) return pte_error(PTE_ERR_NOT_FOUND, "bundled program: no test suite for method '%s'", method);
  if (index < 0 || index >= s->ncases)
    return pte_error(PTE_ERR_NOT_FOUND, "bundled program: method '%s' has %d test cases; %d is out of range",
                     method, (int)s->ncases, (int)index);
  *out = &s->cases[index];
  return PTE_OK;
}

pte_status pte_bundled_program_set_inputs(pte_bundled_program *bp, pte_method *method, int32_t index) {
  if (!bp || !method) return pte_error(PTE_ERR_INVALID_ARGUMENT, "bundled program: NULL argument");
  const char *name = pte_method_name(method);
  const bp_case *c;
  pte_status st = find_case(bp, name, index, &c);
  if (st) return st;
  if (c->ninputs != pte_method_num_inputs(method))
    return pte_error(PTE_ERR_INVALID_ARGUMENT,
                     "bundled program: method '%s' case %d has %d inputs, the method takes %d", name,
                     (int)index, (int)c->ninputs, (int)pte_method_num_inputs(method));
  for (int32_t i = 0; i < c->ninputs; i++)
    if ((st = pte_method_set_input(method, i, &c->inputs[i]))) return st;
  return PTE_OK;
}

/* ---- comparison ---- */

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 0x1f;
  double m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Element `off` (in elements) of a tensor of `dtype` as a double; false for
 * dtypes with no numeric reading (compared bit for bit instead). */
static bool element(const uint8_t *data, int32_t dtype, int64_t off, double *out) {
  const uint8_t *p = data + (size_t)off * pte_dtype_size(dtype);
  union {
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double d;
  } u;
  memcpy(&u, p, pte_dtype_size(dtype));
  switch (dtype) {
    case PTE_UINT8:
    case PTE_BOOL: *out = p[0]; return true;
    case PTE_INT8: *out = u.i8; return true;
    case PTE_INT16: *out = u.i16; return true;
    case PTE_INT32: *out = u.i32; return true;
    case PTE_INT64: *out = (double)u.i64; return true;
    case PTE_UINT16: *out = u.u16; return true;
    case PTE_UINT32: *out = u.u32; return true;
    case PTE_UINT64: *out = (double)u.u64; return true;
    case PTE_FLOAT16: *out = half_to_double(u.u16); return true;
    case PTE_BFLOAT16: {
      uint32_t bits = (uint32_t)u.u16 << 16;
      float f;
      memcpy(&f, &bits, 4);
      *out = f;
      return true;
    }
    case PTE_FLOAT32: *out = u.f; return true;
    case PTE_FLOAT64: *out = u.d; return true;
    default: return false;
  }
}

/* Offset in elements of row-major element `flat`, whatever the strides. */
static int64_t offset_of(const pte_tensor *t, int64_t flat) {
  int64_t off = 0;
  for (int32_t d = t->dim - 1; d >= 0; d--) {
    off += (flat % t->sizes[d]) * t->strides[d];
    flat /= t->sizes[d];
  }
  return off;
}

static double excess_of(double a, double e, double rtol, double atol) {
  if (isnan(a) && isnan(e)) return -atol;
  if (isnan(a) || isnan(e)) return INFINITY;
  if (a == e) return -(atol + rtol * fabs(e)); /* equal infinities too */
  return fabs(a - e) - (atol + rtol * fabs(e));
}

pte_status pte_bundled_program_check_outputs(const pte_bundled_program *bp, const pte_method *method,
                                             int32_t index, double rtol, double atol,
                                             pte_bundled_mismatch *worst) {
  pte_bundled_mismatch w = {-1, 0, 0, 0, -INFINITY};
  if (worst) *worst = w;
  if (!bp || !method) return pte_error(PTE_ERR_INVALID_ARGUMENT, "bundled program: NULL argument");
  const char *name = pte_method_name(method);
  const bp_case *c;
  pte_status st = find_case(bp, name, index, &c);
  if (st) return st;
  if (c->noutputs != pte_method_num_outputs(method))
    return pte_error(PTE_ERR_INVALID_STATE, "method '%s' case %d: %d expected outputs, the method has %d",
                     name, (int)index, (int)c->noutputs, (int)pte_method_num_outputs(method));
  for (int32_t o = 0; o < c->noutputs; o++) {
    const pte_value *e = &c->outputs[o], *a = pte_method_output(method, o);
    if (!a || a->tag != e->tag)
      return pte_error(PTE_ERR_INVALID_STATE, "method '%s' case %d output %d: expected a %s, got a %s", name,
                       (int)index, (int)o, pte_tag_name(e->tag), a ? pte_tag_name(a->tag) : "nothing");
    if (e->tag == PTE_TAG_INT || e->tag == PTE_TAG_BOOL || e->tag == PTE_TAG_DOUBLE) {
      double av = 0, ev = 0;
      pte_value_to_double(a, &av);
      pte_value_to_double(e, &ev);
      double x = excess_of(av, ev, e->tag == PTE_TAG_DOUBLE ? rtol : 0, e->tag == PTE_TAG_DOUBLE ? atol : 0);
      if (e->tag != PTE_TAG_DOUBLE && av != ev) x = INFINITY;
      if (x > w.excess) w = (pte_bundled_mismatch){o, 0, av, ev, x};
      continue;
    }
    if (e->tag != PTE_TAG_TENSOR) continue;
    const pte_tensor *et = e->u.tensor, *at = a->u.tensor;
    char es[96], as[96];
    bool same = at->dtype == et->dtype && at->dim == et->dim;
    for (int32_t d = 0; same && d < et->dim; d++) same = at->sizes[d] == et->sizes[d];
    if (!same)
      return pte_error(PTE_ERR_INVALID_STATE, "method '%s' case %d output %d: expected %s %s, got %s %s",
                       name, (int)index, (int)o, pte_dtype_name(et->dtype),
                       pte_shape_str(et->dim, et->sizes, es, sizeof es), pte_dtype_name(at->dtype),
                       pte_shape_str(at->dim, at->sizes, as, sizeof as));
    int64_t numel = pte_tensor_numel(et);
    if (numel && !at->data)
      return pte_error(PTE_ERR_INVALID_STATE, "method '%s' case %d output %d has no data", name, (int)index,
                       (int)o);
    size_t esz = pte_dtype_size(et->dtype);
    for (int64_t i = 0; i < numel; i++) {
      int64_t ao = offset_of(at, i), eo = offset_of(et, i);
      double av, ev, x;
      if (element(at->data, at->dtype, ao, &av) && element(et->data, et->dtype, eo, &ev)) {
        x = excess_of(av, ev, rtol, atol);
      } else { /* bit for bit */
        av = ev = 0;
        x = memcmp((const uint8_t *)at->data + (size_t)ao * esz, (const uint8_t *)et->data + (size_t)eo * esz,
                   esz)
                ? INFINITY
                : -atol;
      }
      if (x > w.excess) w = (pte_bundled_mismatch){o, i, av, ev, x};
    }
  }
  if (worst) *worst = w;
  if (w.excess > 0)
    return pte_error(PTE_ERR_INVALID_STATE,
                     "method '%s' case %d: output %d element %lld is %.9g, expected %.9g (rtol %g, atol %g)",
                     name, (int)index, (int)w.output, (long long)w.element, w.actual, w.expected, rtol, atol);
  return PTE_OK;
}
