/* Method loading: values and tensors (with planned, constant and external
 * data), delegates, and kernels resolved through the registry. Everything a
 * method needs is allocated here, so execute never allocates. */
#include "method.h"

#include <stdio.h>
#include <string.h>

struct pte_block {
  pte_block *next;
  size_t size;
  size_t offset; /* of the payload: BLOCK_HEADER, or a page for zero pages */
  bool pages;    /* pte_pages_zeroed's (else the allocator's) */
};

#define BLOCK_HEADER 64 /* keeps the payload 64-byte aligned */

/* Zeroed blocks this big (64 KiB) come from the system's zero pages (the default
 * allocator only): they cost memory once written, not at load, so a plan
 * sized for a prefill of the longest prompt costs what the calls touch. */
#define ZERO_PAGES_MIN ((size_t)64 << 10)

static void block_free(const pte_allocator *a, pte_block *b) {
  if (b->pages) pte_pages_free(b, b->size);
  else pte_free(a, b);
}

static void *m_alloc_raw(pte_method *m, size_t size, bool zero) {
  size_t total, offset = BLOCK_HEADER;
  pte_block *b = NULL;
  if (zero && !m->allocator && size >= ZERO_PAGES_MIN) {
    /* the header on a page of its own: the payload's pages stay untouched */
    offset = pte_page_size();
    if (pte_add_ok(size, offset, &total)) b = (pte_block *)pte_pages_zeroed(total);
  }
  const bool pages = b != NULL;
  if (!b) {
    offset = BLOCK_HEADER;
    if (!pte_add_ok(size, offset, &total)) return NULL;
    b = (pte_block *)pte_alloc(m->allocator, total, 64);
  }
  if (!b) return NULL;
  b->next = m->blocks;
  b->size = total;
  b->offset = offset;
  b->pages = pages;
  m->blocks = b;
  m->memory_used += total;
  void *p = (uint8_t *)b + offset;
  if (zero && !pages) memset(p, 0, size);
  return p;
}

static void *m_alloc(pte_method *m, size_t size) { return m_alloc_raw(m, size, true); }

static void *m_array(pte_method *m, size_t count, size_t elem) {
  size_t n;
  if (!pte_mul_ok(count, elem, &n)) return NULL;
  return m_alloc(m, n);
}

#define OOM(what) pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory for %s", what)

/* ---- values ---- */

static pte_status bind_tensor_data(pte_method *m, const pte_tensor_desc *d, pte_tensor *t) {
  pte_program *p = m->program;
  pte_status st;
  size_t esize = pte_dtype_size(d->dtype);
  if (d->has_alloc) {
    if (d->memory_id == 0 || d->memory_id > (uint32_t)m->num_planned)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "memory_id %u is out of range (%d planned buffers)",
                       d->memory_id, (int)m->num_planned);
    size_t arena = m->planned_sizes[d->memory_id - 1];
    if (d->memory_offset > arena || d->nbytes > arena - d->memory_offset)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "planned range [%llu, +%zu) lies outside buffer %u (%zu bytes)",
                       (unsigned long long)d->memory_offset, d->nbytes, d->memory_id, arena);
    if (d->memory_offset % esize)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "planned offset %llu is misaligned for %s",
                       (unsigned long long)d->memory_offset, pte_dtype_name(d->dtype));
    t->data = m->planned[d->memory_id - 1] + d->memory_offset;
    t->flags |= PTE_TENSOR_PLANNED;
    if (d->external) { /* external mutable state: initial bytes from the .ptd */
      const void *src;
      size_t n;
      if ((st = pte_program_named(p, d->fqn, &src, &n))) return st;
      if (n < d->nbytes)
        return pte_error(PTE_ERR_INVALID_PROGRAM, "external data '%s' has %zu bytes, tensor needs %zu",
                         d->fqn, n, d->nbytes);
      memcpy(t->data, src, d->nbytes);
    } else if (d->data_buffer_idx > 0) { /* mutable state with initial bytes */
      const uint8_t *init;
      if ((st = pte_program_mutable_data(p, d->data_buffer_idx, d->nbytes, &init))) return st;
      memcpy(t->data, init, d->nbytes);
    }
    return PTE_OK;
  }
  const uint8_t *src = NULL;
  if (d->external) {
    size_t n;
    pte_tensor layout;
    bool found = false;
    for (int32_t i = 0; i < p->num_maps && !found; i++) {
      const void *ptr;
      if (pte_data_map_get(p->maps[i], d->fqn, &ptr, &n, &layout) == PTE_OK) {
        found = true;
        src = (const uint8_t *)ptr;
      }
    }
    if (!found) {
      const void *ptr;
      if (pte_program_named(p, d->fqn, &ptr, &n) != PTE_OK)
        return pte_error(PTE_ERR_NOT_FOUND,
                         "external weight '%s' was not found: load the program with its .ptd data file",
                         d->fqn);
      src = (const uint8_t *)ptr;
      layout.dtype = -1;
    }
    if (n < d->nbytes)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "external data '%s' has %zu bytes, tensor needs %zu", d->fqn,
                       n, d->nbytes);
    if (layout.dtype >= 0) {
      bool same = layout.dtype == d->dtype && layout.dim == d->dim;
      for (int32_t i = 0; same && i < d->dim; i++) same = layout.sizes[i] == d->sizes[i];
      if (!same)
        return pte_error(PTE_ERR_INVALID_PROGRAM,
                         "external data '%s' has layout %s rank %d, the program expects %s rank %d", d->fqn,
                         pte_dtype_name(layout.dtype), (int)layout.dim, pte_dtype_name(d->dtype),
                         (int)d->dim);
    }
  } else if (d->data_buffer_idx > 0) {
    if ((st = pte_program_constant(p, d->data_buffer_idx, d->nbytes, &src))) return st;
  } else {
    t->data = NULL; /* set by set_input, or by a kernel (et_view) */
    t->capacity = 0;
    return PTE_OK;
  }
  if ((uintptr_t)src % esize)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "constant data is misaligned for %s", pte_dtype_name(d->dtype));
  t->data = (void *)src; /* read-only: kernels refuse it as an output */
  t->flags |= PTE_TENSOR_READONLY;
  return PTE_OK;
}

static pte_status build_tensor(pte_method *m, uint32_t table, pte_tensor *t) {
  pte_tensor_desc d;
  pte_status st = pte_plan_tensor_desc(m->program, table, &d);
  if (st) return st;
  t->dtype = d.dtype;
  t->dim = d.dim;
  t->dynamism = d.dynamism;
  memcpy(t->sizes, d.sizes, sizeof t->sizes);
  memcpy(t->dim_order, d.dim_order, sizeof t->dim_order);
  t->capacity = d.nbytes;
  pte_tensor_compute_strides(t);
  if (d.has_alloc && (d.external || d.data_buffer_idx > 0)) m->mutable_tensor[t - m->tensors] = 1;
  return bind_tensor_data(m, &d, t);
}

static pte_status build_values(pte_method *m, const pte_plan *plan) {
  pte_program *p = m->program;
  int32_t n = plan->num_values;
  m->num_values = n;
  m->values = (pte_value *)m_array(m, (size_t)n, sizeof(pte_value));
  if (!m->values) return OOM("values");
  int32_t ntensors = 0;
  for (int32_t i = 0; i < n; i++)
    if (pte_plan_value_tag(p, plan, i) == PTE_TAG_TENSOR) ntensors++;
  m->tensors = (pte_tensor *)m_array(m, (size_t)ntensors, sizeof(pte_tensor));
  m->mutable_tensor = (uint8_t *)m_alloc(m, (size_t)ntensors + 1);
  if ((!m->tensors && ntensors) || !m->mutable_tensor) return OOM("tensors");
  m->num_tensors = ntensors;
  int32_t ti = 0;
  for (int32_t i = 0; i < n; i++) {
    pte_value_view vv;
    pte_status st = pte_plan_value(p, plan, i, &vv);
    if (st) return st;
    uint8_t type = vv.tag;
    pte_value *v = &m->values[i];
    v->tag = type;
    uint32_t len = vv.items.len;
    switch (type) {
      case PTE_TAG_NONE: break;
      case PTE_TAG_INT: v->u.i = vv.i; break;
      case PTE_TAG_BOOL: v->u.b = vv.b; break;
      case PTE_TAG_DOUBLE: v->u.d = vv.d; break;
      case PTE_TAG_STRING:
        v->u.str = vv.str;
        v->len = (int32_t)len;
        break;
      case PTE_TAG_TENSOR:
        v->u.tensor = &m->tensors[ti++];
        if ((st = build_tensor(m, vv.tensor, v->u.tensor))) {
          pte_error_prefix("value %d (tensor)", (int)i);
          return st;
        }
        break;
      case PTE_TAG_DOUBLE_LIST: {
        double *dst = (double *)m_array(m, len, sizeof(double));
        if (!dst) return OOM("double list");
        if (len) memcpy(dst, vv.items.raw, (size_t)len * sizeof(double)); /* copied: may be unaligned */
        v->u.doubles = dst;
        v->len = (int32_t)len;
        break;
      }
      case PTE_TAG_BOOL_LIST:
        v->len = (int32_t)len;
        v->u.bools = vv.items.raw;
        break;
      case PTE_TAG_INT_LIST:
      case PTE_TAG_TENSOR_LIST:
      case PTE_TAG_OPTIONAL_TENSOR_LIST: {
        pte_value **dst = (pte_value **)m_array(m, len ? len : 1, sizeof(pte_value *));
        if (!dst) return OOM("list");
        for (uint32_t k = 0; k < len; k++) {
          int64_t idx = pte_items_get(&vv.items, k);
          if (type == PTE_TAG_OPTIONAL_TENSOR_LIST && idx == -1) {
            dst[k] = NULL;
            continue;
          }
          if (idx < 0 || idx >= n)
            return pte_error(PTE_ERR_INVALID_PROGRAM,
                             "value %d (%s): item %u refers to value %lld, out of range (%d values)", (int)i,
                             pte_tag_name(type), k, (long long)idx, (int)n);
          dst[k] = &m->values[idx];
        }
        v->u.items = dst;
        v->len = (int32_t)len;
        break;
      }
      default: return pte_error(PTE_ERR_INVALID_PROGRAM, "value %d has invalid type %u", (int)i, type);
    }
  }
  /* List items must have the right types once every value exists. */
  for (int32_t i = 0; i < n; i++) {
    pte_value *v = &m->values[i];
    if (v->tag != PTE_TAG_INT_LIST && v->tag != PTE_TAG_TENSOR_LIST && v->tag != PTE_TAG_OPTIONAL_TENSOR_LIST)
      continue;
    for (int32_t k = 0; k < v->len; k++) {
      pte_value **items = (pte_value **)v->u.items;
      if (!items[k]) continue;
      int32_t want = v->tag == PTE_TAG_INT_LIST ? PTE_TAG_INT : PTE_TAG_TENSOR;
      if (v->tag == PTE_TAG_OPTIONAL_TENSOR_LIST && items[k]->tag == PTE_TAG_NONE) {
        items[k] = NULL;
        continue;
      }
      if (items[k]->tag != want)
        return pte_error(PTE_ERR_INVALID_PROGRAM, "value %d (%s): item %d is a %s, expected %s", (int)i,
                         pte_tag_name(v->tag), (int)k, pte_tag_name(items[k]->tag), pte_tag_name(want));
    }
  }
  return PTE_OK;
}

/* ---- planned memory ---- */

static pte_status setup_planned(pte_method *m, const pte_plan *plan, const pte_method_options *o) {
  pte_program *p = m->program;
  int32_t n = plan->num_sizes;
  if (!plan->sizes) return pte_error(PTE_ERR_INVALID_PROGRAM, "execution plan has no non_const_buffer_sizes");
  pte_status dst = pte_plan_check_devices(p, plan);
  if (dst) return dst;
  m->num_planned = n > 1 ? n - 1 : 0;
  m->planned = (uint8_t **)m_array(m, (size_t)m->num_planned + 1, sizeof(uint8_t *));
  m->planned_sizes = (size_t *)m_array(m, (size_t)m->num_planned + 1, sizeof(size_t));
  if (!m->planned || !m->planned_sizes) return OOM("planned buffer table");
  bool caller = o && o->planned_buffers;
  if (caller && o->num_planned_buffers != m->num_planned)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' needs %d planned buffers, %d were given", m->name,
                     (int)m->num_planned, (int)o->num_planned_buffers);
  for (int32_t i = 0; i < m->num_planned; i++) {
    int64_t s = pte_plan_buffer_size(p, plan, i + 1);
    if (s < 0 || (uint64_t)s > (uint64_t)SIZE_MAX / 2)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "planned buffer %d has invalid size %lld", (int)i,
                       (long long)s);
    m->planned_sizes[i] = (size_t)s;
    if (caller) {
      if (!o->planned_buffers[i] || !o->planned_sizes || o->planned_sizes[i] < (size_t)s)
        return pte_error(PTE_ERR_INVALID_ARGUMENT, "planned buffer %d needs %lld bytes, the caller gave %zu",
                         (int)i, (long long)s, o->planned_sizes ? o->planned_sizes[i] : (size_t)0);
      if ((uintptr_t)o->planned_buffers[i] % 16)
        return pte_error(PTE_ERR_INVALID_ARGUMENT, "planned buffer %d must be 16-byte aligned", (int)i);
      m->planned[i] = (uint8_t *)o->planned_buffers[i];
    } else {
      /* Zeroed once, here: a program may read state whose initial value it
       * does not store (a mutable buffer ExecuTorch's planner leaves to the
       * runtime), and ExecuTorch's runtimes give it zeros. */
      m->planned[i] = (uint8_t *)m_alloc(m, (size_t)s);
      if (!m->planned[i])
        return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory for planned buffer %d (%lld bytes)", (int)i,
                         (long long)s);
    }
  }
  return PTE_OK;
}

/* ---- delegates ---- */

static pte_status init_delegates(pte_method *m, const pte_plan *plan) {
  pte_program *p = m->program;
  m->num_delegates = plan->num_delegates;
  m->delegates = (pte_delegate *)m_array(m, (size_t)m->num_delegates + 1, sizeof(pte_delegate));
  if (!m->delegates) return OOM("delegates");
  for (int32_t i = 0; i < m->num_delegates; i++) {
    pte_delegate_view d;
    pte_plan_delegate(p, plan, i, &d);
    const char *id = d.id;
    if (!id) return pte_error(PTE_ERR_INVALID_PROGRAM, "delegate %d has no backend id", (int)i);
    const pte_backend *b = pte_backend_find(id);
    if (!b) {
      char names[256];
      size_t used = 0;
      names[0] = 0;
      for (int32_t k = 0; k < pte_backend_count() && used < sizeof names; k++)
        used +=
            (size_t)snprintf(names + used, sizeof names - used, "%s%s", k ? ", " : "", pte_backend_name(k));
      return pte_error(PTE_ERR_NOT_FOUND,
                       "delegate %d: backend '%s' is not registered (registered backends: %s)", (int)i, id,
                       used ? names : "none");
    }
    if (b->is_available && !b->is_available(b->user))
      return pte_error(PTE_ERR_NOT_SUPPORTED, "delegate %d: backend '%s' is not available on this machine",
                       (int)i, id);
    const uint8_t *data = NULL;
    size_t size = 0;
    pte_status st = pte_delegate_processed(p, &d, &data, &size);
    if (st) return st;
    uint32_t nspecs = (uint32_t)d.num_specs;
    pte_compile_spec *cs = (pte_compile_spec *)m_array(m, nspecs + 1, sizeof(pte_compile_spec));
    if (!cs) return OOM("compile specs");
    for (uint32_t k = 0; k < nspecs; k++) pte_delegate_spec(p, &d, (int32_t)k, &cs[k]);
    struct pte_backend_init_ctx ctx = {m};
    m->delegates[i].backend = b;
    m->delegates[i].id = id;
    pte_error(PTE_OK, "%s", "");
    st = b->init(b->user, &ctx, data, size, cs, (int32_t)nspecs, &m->delegates[i].handle);
    if (st) {
      pte_error_prefix("delegate %d (%s) init failed", (int)i, id);
      return st;
    }
    m->delegates[i].initialized = true;
  }
  return PTE_OK;
}

/* ---- instructions ---- */

static pte_status check_index(const pte_method *m, int64_t idx, const char *what) {
  if (idx < 0 || idx >= m->num_values)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "%s refers to value %lld, out of range (%d values)", what,
                     (long long)idx, (int)m->num_values);
  return PTE_OK;
}

static pte_status build_args(pte_method *m, const pte_items *args, pte_instr *in) {
  uint32_t n = args->len;
  in->nargs = (int32_t)n;
  in->args = (pte_value **)m_array(m, n ? n : 1, sizeof(pte_value *));
  if (!in->args) return OOM("instruction arguments");
  for (uint32_t k = 0; k < n; k++) {
    int32_t idx = (int32_t)pte_items_get(args, k);
    pte_status st = check_index(m, idx, "argument");
    if (st) return st;
    in->args[k] = &m->values[idx];
  }
  return PTE_OK;
}

/* "name.overload" of operator `op` (dot only when the overload is not empty). */
static const char *op_full_name(pte_method *m, const pte_plan *plan, int32_t op) {
  const char *ovl;
  const char *name = pte_plan_operator(m->program, plan, op, &ovl);
  if (!name) return NULL;
  size_t nl = strlen(name), ol = strlen(ovl);
  char *s = (char *)m_alloc(m, nl + ol + 2);
  if (!s) return NULL;
  memcpy(s, name, nl);
  if (ol) {
    s[nl] = '.';
    memcpy(s + nl + 1, ovl, ol);
  }
  return s;
}

/* A tensor value nothing has used yet (not an input, not a constant, not an
 * argument of an earlier instruction): the instruction it first appears in
 * writes it. */
static bool fresh_tensor(const pte_method *m, const uint8_t *seen, const pte_value *v) {
  if (v->tag != PTE_TAG_TENSOR) return false;
  size_t idx = (size_t)(v - m->values);
  return !seen[idx] && !(v->u.tensor->flags & PTE_TENSOR_READONLY);
}

/* How many trailing arguments of `in` are outputs. The program does not say
 * which arguments an out-variant writes; ATen puts them last (`*, out`, or
 * `out0, out1, out2` for native_layer_norm), the exporter appends the returns
 * after them (the same tensor, or a list of the outs), and they are values no
 * earlier instruction touched. Only debugging tracers use this: it lets them
 * see every output of multi-output operators, not just the last argument. */
static uint8_t count_outputs(const pte_method *m, uint8_t *seen, const pte_instr *in) {
  int32_t n = 0;
  for (int32_t k = in->nargs - 1; k >= 0 && n < 255; k--, n++) {
    const pte_value *v = in->args[k];
    bool out = false;
    for (int32_t j = k + 1; j < in->nargs && !out; j++) out = in->args[j] == v; /* a repeat */
    if (!out) out = fresh_tensor(m, seen, v);
    if (!out && v->tag == PTE_TAG_TENSOR_LIST) {
      out = v->len > 0 && !seen[(size_t)(v - m->values)];
      for (int32_t j = 0; out && j < v->len; j++) out = fresh_tensor(m, seen, v->u.items[j]);
    }
    if (!out) break;
  }
  for (int32_t k = 0; k < in->nargs; k++) {
    const pte_value *v = in->args[k];
    seen[(size_t)(v - m->values)] = 1;
    if (v->tag == PTE_TAG_TENSOR_LIST)
      for (int32_t j = 0; j < v->len; j++) seen[(size_t)(v->u.items[j] - m->values)] = 1;
  }
  return (uint8_t)(n > 0 ? n : (in->nargs > 0));
}

static pte_status build_instructions(pte_method *m, const pte_plan *plan, size_t *scratch) {
  pte_program *p = m->program;
  if (plan->num_chains != 1)
    return pte_error(PTE_ERR_NOT_SUPPORTED, "method has %u chains (exactly one is supported)",
                     (unsigned)plan->num_chains);
  if (!plan->instrs) return pte_error(PTE_ERR_INVALID_PROGRAM, "chain 0 has no instructions vector");
  int32_t nops = plan->num_operators;
  m->num_instrs = plan->num_instrs;
  m->instrs = (pte_instr *)m_array(m, (size_t)m->num_instrs + 1, sizeof(pte_instr));
  const char **names = (const char **)m_array(m, (size_t)nops + 1, sizeof(char *));
  uint8_t *seen = (uint8_t *)m_alloc(m, (size_t)m->num_values + 1);
  if (!m->instrs || !names || !seen) return OOM("instructions");
  for (int32_t i = 0; i < m->num_inputs; i++) seen[m->inputs[i]] = 1;
  for (int32_t i = 0; i < nops; i++) {
    names[i] = op_full_name(m, plan, i);
    if (!names[i]) return pte_error(PTE_ERR_INVALID_PROGRAM, "operator %d has no name", (int)i);
  }
  /* Unknown operators are collected so one error names them all. */
  char missing[768];
  size_t mlen = 0;
  int32_t nmissing = 0;
  missing[0] = 0;
  for (int32_t i = 0; i < m->num_instrs; i++) {
    pte_instr *in = &m->instrs[i];
    pte_instr_view iv;
    pte_status st = pte_plan_instruction(p, plan, i, &iv);
    if (st) return st;
    uint8_t kind = iv.kind;
    in->kind = kind;
    switch (kind) {
      case INSTR_KERNEL: {
        int32_t op = iv.a;
        if (op < 0 || op >= nops)
          return pte_error(PTE_ERR_INVALID_PROGRAM,
                           "instruction %d: operator index %d is out of range (%d operators)", (int)i,
                           (int)op, (int)nops);
        in->name = names[op];
        if ((st = build_args(m, &iv.args, in))) break;
        const pte_kernel *k = pte_operator_resolve(in->name, in->args, in->nargs, NULL);
        if (!k) {
          if (pte_operator_registered(in->name)) {
            char dt[128];
            size_t used = 0;
            dt[0] = 0;
            for (int32_t j = 0; j < in->nargs && used < sizeof dt; j++)
              if (in->args[j]->tag == PTE_TAG_TENSOR)
                used += (size_t)snprintf(dt + used, sizeof dt - used, "%s%s", used ? ", " : "",
                                         pte_dtype_name(in->args[j]->u.tensor->dtype));
            return pte_error(
                PTE_ERR_NOT_SUPPORTED,
                "instruction %d: no registered kernel for '%s' accepts these arguments (tensor dtypes: %s)",
                (int)i, in->name, dt);
          }
          /* Counted whether or not the name is listed yet: strstr finds an
           * empty name everywhere, which once let such a method load with no kernel. */
          if ((!in->name[0] || !strstr(missing, in->name)) && mlen < sizeof missing)
            mlen += (size_t)snprintf(missing + mlen, sizeof missing - mlen, "%s%s", nmissing ? ", " : "",
                                     in->name[0] ? in->name : "(unnamed)");
          nmissing++;
          break;
        }
        in->fn = k->fn;
        if (k->scratch_size) {
          size_t s = k->scratch_size(in->args, in->nargs);
          if (s > *scratch) *scratch = s;
        }
        break;
      }
      case INSTR_DELEGATE: {
        int32_t d = iv.a;
        if (d < 0 || d >= m->num_delegates)
          return pte_error(PTE_ERR_INVALID_PROGRAM,
                           "instruction %d: delegate index %d is out of range (%d delegates)", (int)i, (int)d,
                           (int)m->num_delegates);
        in->a = d;
        pte_delegate_view dv;
        pte_plan_delegate(p, plan, d, &dv);
        in->name = dv.id;
        st = build_args(m, &iv.args, in);
        break;
      }
      case INSTR_MOVE:
        in->a = iv.a;
        in->b = iv.b;
        in->name = "MOVE_CALL";
        if (!(st = check_index(m, in->a, "move source"))) st = check_index(m, in->b, "move destination");
        break;
      case INSTR_JUMP_FALSE:
        in->a = iv.a;
        in->b = iv.b;
        in->name = "JF_CALL";
        st = check_index(m, in->a, "jump condition");
        if (!st && (in->b < 0 || in->b > m->num_instrs))
          st = pte_error(PTE_ERR_INVALID_PROGRAM, "jump destination %d is out of range", (int)in->b);
        break;
      case INSTR_FREE:
        in->a = iv.a;
        in->name = "FREE_CALL";
        st = check_index(m, in->a, "free");
        if (!st && m->values[in->a].tag != PTE_TAG_TENSOR)
          st = pte_error(PTE_ERR_INVALID_PROGRAM, "free of value %d, which is not a tensor", (int)in->a);
        break;
    }
    if (st) {
      pte_error_prefix("instruction %d", (int)i);
      return st;
    }
    if (kind == INSTR_KERNEL || kind == INSTR_DELEGATE) in->nouts = count_outputs(m, seen, in);
  }
  if (nmissing)
    return pte_error(PTE_ERR_NOT_FOUND, "%s not registered: %s",
                     nmissing > 1 ? "operators are" : "operator is", missing);
  return PTE_OK;
}

/* An output tensor the plan gave no memory (ExecuTorch's
 * MemoryPlanningPass(alloc_graph_output=False)) and that is not an input
 * gets bytes of the method's own, at its upper bound, so that the kernel
 * writing it has somewhere to write; the caller may lend its own instead
 * (pte_method_set_output). */
static pte_status own_output(pte_method *m, const int32_t *ins, int32_t v, void **own) {
  pte_value *val = &m->values[v];
  if (val->tag != PTE_TAG_TENSOR) return PTE_OK;
  pte_tensor *t = val->u.tensor;
  if (t->data || (t->flags & (PTE_TENSOR_PLANNED | PTE_TENSOR_READONLY))) return PTE_OK;
  for (int32_t i = 0; i < m->num_inputs; i++)
    if (ins[i] == v) return PTE_OK;
  size_t n = pte_tensor_nbytes(t); /* sizes are the upper bounds until a run */
  *own = m_alloc(m, n ? n : 1);
  if (!*own) return OOM("an unplanned output");
  t->data = *own;
  t->capacity = n;
  return PTE_OK;
}

static pte_status load_io(pte_method *m, const pte_plan *plan) {
  if (!plan->inputs || !plan->outputs)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "execution plan lacks inputs or outputs");
  m->num_inputs = plan->num_inputs;
  m->num_outputs = plan->num_outputs;
  int32_t *ins = (int32_t *)m_array(m, (size_t)m->num_inputs + 1, sizeof(int32_t));
  int32_t *outs = (int32_t *)m_array(m, (size_t)m->num_outputs + 1, sizeof(int32_t));
  m->input_set = (uint8_t *)m_alloc(m, (size_t)m->num_inputs + 1);
  m->input_bounds = (int64_t *)m_array(m, ((size_t)m->num_inputs + 1) * PTE_MAX_DIM, sizeof(int64_t));
  if (!ins || !outs || !m->input_set || !m->input_bounds) return OOM("inputs and outputs");
  for (int32_t i = 0; i < m->num_inputs; i++) {
    ins[i] = pte_plan_io(m->program, plan, false, i);
    pte_status st = check_index(m, ins[i], "method input");
    if (st) return st;
    if (m->values[ins[i]].tag == PTE_TAG_TENSOR) {
      pte_tensor *t = m->values[ins[i]].u.tensor;
      t->flags &= ~PTE_TENSOR_READONLY;
      memcpy(&m->input_bounds[(size_t)i * PTE_MAX_DIM], t->sizes, sizeof t->sizes);
    }
  }
  m->output_own = (void **)m_array(m, (size_t)m->num_outputs + 1, sizeof(void *));
  if (!m->output_own) return OOM("output table");
  for (int32_t i = 0; i < m->num_outputs; i++) {
    outs[i] = pte_plan_io(m->program, plan, true, i);
    pte_status st = check_index(m, outs[i], "method output");
    if (st) return st;
    if ((st = own_output(m, ins, outs[i], &m->output_own[i]))) return st;
  }
  m->inputs = ins;
  m->outputs = outs;
  return PTE_OK;
}

/* ---- constant folding ---- */

/* Operators never folded, matched as substrings of "namespace::name.overload":
 * their result is not a function of their inputs (random draws, dropout,
 * uninitialized memory, generator state), or they write an argument other
 * than the last (et_copy_index). */
static const char *const no_fold[] = {"rand",        "normal",  "bernoulli",    "dropout", "uniform",
                                      "multinomial", "poisson", "exponential",  "cauchy",  "geometric",
                                      "empty",       "seed",    "et_copy_index"};

static bool fold_denied(const char *name) {
  for (size_t i = 0; i < sizeof no_fold / sizeof *no_fold; i++)
    if (strstr(name, no_fold[i])) return true;
  return false;
}

/* ATen's in-place operators ("aten::add_.Tensor", "aten::copy_") write their
 * first argument, which is not where count_outputs looks. */
static bool writes_self(const char *name) {
  const char *dot = strchr(name, '.');
  size_t n = dot ? (size_t)(dot - name) : strlen(name);
  return (n > 0 && name[n - 1] == '_') || strstr(name, "et_copy_index");
}

/* How the instructions use one value: the first that refers to it, the one
 * that writes it (0: none; both 1-based), and whether something may change
 * it in a way folding cannot see (moves, frees, a second writer, in-place). */
typedef struct fold_use {
  int32_t first;
  int32_t writer;
  uint8_t bad;
  uint8_t io;    /* a method input or output: the caller reads or writes it */
  uint8_t last;  /* an instruction's last argument (or in it): surely written there */
  int32_t final; /* the last instruction that refers to it (1-based) */
} fold_use;

static void fold_note(fold_use *use, const pte_method *m, const pte_value *v, int32_t j, bool write,
                      bool bad) {
  fold_use *u = &use[v - m->values];
  if (!u->first) u->first = j + 1;
  u->final = j + 1;
  if (bad) u->bad = 1;
  if (write) {
    if (u->writer && u->writer != j + 1) u->bad = 1;
    u->writer = j + 1;
  }
  if (v->tag == PTE_TAG_TENSOR_LIST || v->tag == PTE_TAG_OPTIONAL_TENSOR_LIST || v->tag == PTE_TAG_INT_LIST)
    for (int32_t k = 0; k < v->len; k++)
      if (v->u.items[k]) fold_note(use, m, v->u.items[k], j, write, bad);
}

/* Whether argument `v` of a candidate is known at load: a constant tensor
 * (or one already folded), or a scalar nothing writes. Adds tensor bytes. */
static bool fold_known(const pte_method *m, const fold_use *use, const pte_value *v, size_t *bytes) {
  const fold_use *u = &use[v - m->values];
  if (u->bad || u->io) return false;
  if (u->writer && m->instrs[u->writer - 1].kind != INSTR_FOLDED) return false;
  switch (v->tag) {
    case PTE_TAG_TENSOR:
      if (!(v->u.tensor->flags & PTE_TENSOR_READONLY)) return false;
      *bytes += pte_tensor_nbytes(v->u.tensor);
      return true;
    case PTE_TAG_TENSOR_LIST:
    case PTE_TAG_OPTIONAL_TENSOR_LIST:
    case PTE_TAG_INT_LIST:
      for (int32_t k = 0; k < v->len; k++)
        if (v->u.items[k] && !fold_known(m, use, v->u.items[k], bytes)) return false;
      return true;
    default: return true;
  }
}

enum { ALIAS_NONE, ALIAS_MOVES, ALIAS_BLOCKS };

/* Whether value v may read the planned bytes [lo, hi) of instruction i's
 * output: the planner aliases views without an instruction (a tensor inside
 * those bytes that no instruction has as its last argument, used only after
 * i, with no tensor written over its bytes in between); such an alias moves
 * with the folded output. Tensors reaching outside the range, surely written,
 * used only before i or views of a later tensor merely reuse the bytes;
 * anything else keeps the instruction. */
static int fold_alias(const pte_method *m, const fold_use *use, int32_t v, int32_t i, const uint8_t *lo,
                      const uint8_t *hi) {
  const pte_value *val = &m->values[v];
  if (val->tag != PTE_TAG_TENSOR) return ALIAS_NONE;
  const pte_tensor *x = val->u.tensor;
  if (!x->data) return ALIAS_NONE; /* no bytes to share (a hostile program's tensor) */
  const uint8_t *xl = (const uint8_t *)x->data, *xh = xl + x->capacity;
  if (x == m->instrs[i].args[m->instrs[i].nargs - 1]->u.tensor || !(x->flags & PTE_TENSOR_PLANNED) ||
      xh <= lo || xl >= hi)
    return ALIAS_NONE;
  const fold_use *u = &use[v];
  if (xl < lo || xh > hi || u->last || !u->first || u->final <= i) return ALIAS_NONE;
  for (int32_t k = 0; k < m->num_inputs; k++)
    if (m->inputs[k] == v) return ALIAS_NONE; /* written by set_input */
  if (u->first <= i + 1) return ALIAS_BLOCKS;
  /* A view of a later tensor: one surely written over these bytes after i,
   * before v is first used. */
  for (int32_t w = 0; w < m->num_values; w++) {
    const pte_value *wv = &m->values[w];
    if (w == v || wv->tag != PTE_TAG_TENSOR || !use[w].last || use[w].first <= i + 1 ||
        use[w].first > u->first || !(wv->u.tensor->flags & PTE_TENSOR_PLANNED))
      continue;
    const uint8_t *yl = (const uint8_t *)wv->u.tensor->data;
    if (yl && yl < xh && yl + wv->u.tensor->capacity > xl) return ALIAS_NONE;
  }
  if (u->bad || u->io || m->mutable_tensor[x - m->tensors]) return ALIAS_BLOCKS;
  return ALIAS_MOVES;
}

/* Run each instruction whose result is fixed at load once, into memory the
 * method owns, and skip it at execute (e.g. the permute of every Linear's
 * weight). Never an error: an instruction that cannot fold (no room in a
 * caller's arena, a kernel that fails) is left to run at execute. Methods
 * with jumps are left alone. */
/* The use table of fold_constants and fuse_pairs (NULL: none, no error
 * left behind). Methods with jumps get none: their order is not time. */
static fold_use *fold_uses(pte_method *m) {
  for (int32_t j = 0; j < m->num_instrs; j++)
    if (m->instrs[j].kind == INSTR_JUMP_FALSE) return NULL;
  fold_use *use = (fold_use *)m_array(m, (size_t)m->num_values + 1, sizeof(fold_use));
  if (!use) {
    pte_error(PTE_OK, "%s", "");
    return NULL;
  }
  for (int32_t i = 0; i < m->num_inputs; i++) use[m->inputs[i]].io = 1;
  for (int32_t i = 0; i < m->num_outputs; i++) use[m->outputs[i]].io = 1;
  for (int32_t j = 0; j < m->num_instrs; j++) {
    const pte_instr *in = &m->instrs[j];
    if (in->kind == INSTR_KERNEL || in->kind == INSTR_DELEGATE) {
      bool bad = in->kind == INSTR_KERNEL && writes_self(in->name);
      for (int32_t k = 0; k < in->nargs; k++)
        fold_note(use, m, in->args[k], j, k >= in->nargs - in->nouts, bad);
      if (in->nargs) {
        const pte_value *l = in->args[in->nargs - 1];
        use[l - m->values].last = 1;
        if (l->tag == PTE_TAG_TENSOR_LIST)
          for (int32_t k = 0; k < l->len; k++) use[l->u.items[k] - m->values].last = 1;
      }
    } else if (in->kind == INSTR_MOVE) {
      fold_note(use, m, &m->values[in->a], j, false, true);
      fold_note(use, m, &m->values[in->b], j, true, true);
    } else {
      fold_note(use, m, &m->values[in->a], j, false, in->kind == INSTR_FREE);
    }
  }
  return use;
}

static void fold_constants(pte_method *m, const fold_use *use) {
  struct pte_kernel_ctx kctx = {m, NULL, NULL};
  for (int32_t i = 0; i < m->num_instrs; i++) {
    pte_instr *in = &m->instrs[i];
    if (in->kind != INSTR_KERNEL || in->nouts < 1 || fold_denied(in->name)) continue;
    pte_value *out = in->args[in->nargs - 1];
    bool ok = out->tag == PTE_TAG_TENSOR;
    for (int32_t k = in->nargs - in->nouts; ok && k < in->nargs; k++)
      ok = in->args[k] == out; /* one output */
    const fold_use *u = &use[out - m->values];
    if (!ok || u->bad || u->io || u->first != i + 1 || u->writer != i + 1) continue;
    pte_tensor *t = out->u.tensor;
    if (!(t->flags & PTE_TENSOR_PLANNED) || (t->flags & PTE_TENSOR_READONLY) ||
        m->mutable_tensor[t - m->tensors] || !t->capacity || !t->data)
      continue;
    size_t bytes = 0;
    for (int32_t k = 0; ok && k < in->nargs - in->nouts; k++) ok = fold_known(m, use, in->args[k], &bytes);
    if (!ok || t->capacity > bytes) continue; /* bounded growth: no expand of a constant */
    const uint8_t *lo = (const uint8_t *)t->data, *hi = lo + t->capacity;
    for (int32_t v = 0; ok && v < m->num_values; v++) ok = fold_alias(m, use, v, i, lo, hi) != ALIAS_BLOCKS;
    if (!ok) continue;
    void *mem = m_alloc_raw(m, t->capacity, false);
    if (!mem) { /* an arena without room: run it at execute */
      pte_error(PTE_OK, "%s", "");
      continue;
    }
    pte_tensor saved = *t;
    t->data = mem;
    kctx.name = in->name;
    if (in->fn(&kctx, in->args, in->nargs) != PTE_OK) {
      *t = saved;
      pte_error(PTE_OK, "%s", "");
      continue;
    }
    for (int32_t v = 0; v < m->num_values; v++) {
      if (fold_alias(m, use, v, i, lo, hi) != ALIAS_MOVES) continue;
      pte_tensor *x = m->values[v].u.tensor;
      x->data = (uint8_t *)mem + ((const uint8_t *)x->data - lo);
      x->flags = (x->flags & ~(uint32_t)PTE_TENSOR_PLANNED) | PTE_TENSOR_READONLY;
    }
    t->flags = (t->flags & ~(uint32_t)PTE_TENSOR_PLANNED) | PTE_TENSOR_READONLY;
    in->kind = INSTR_FOLDED;
    m->num_folded++;
    /* Constants only this instruction read (a Linear's weight before its
     * permute) are not read again: their pages of a file mapping go back
     * (read again from the file if anything touches them), so the folded
     * copy is not resident twice. */
    const pte_program *p = m->program;
    for (int32_t k = 0; k < in->nargs - in->nouts; k++) {
      const pte_value *v = in->args[k];
      const fold_use *uv = &use[v - m->values];
      if (v->tag != PTE_TAG_TENSOR || uv->writer || uv->first != i + 1 || uv->final != i + 1) continue;
      const pte_tensor *x = v->u.tensor;
      if (!x->data || (x->flags & PTE_TENSOR_PLANNED)) continue;
      pte_file_map_release(&p->map, p->flags, x->data, pte_tensor_nbytes(x));
      for (int32_t d = 0; d < p->num_maps; d++)
        pte_file_map_release(&p->maps[d]->map, p->flags, x->data, pte_tensor_nbytes(x));
    }
  }
}

/* ---- load-time rewrites of instruction pairs (rules registered by components) ---- */

struct pte_rewrite {
  pte_method *m;
  const fold_use *use;
};

int32_t pte_rewrite_num_values(const pte_rewrite *rw) { return rw->m->num_values; }
pte_value *pte_rewrite_value(pte_rewrite *rw, int32_t index) {
  return index >= 0 && index < rw->m->num_values ? &rw->m->values[index] : NULL;
}
int32_t pte_rewrite_num_instructions(const pte_rewrite *rw) { return rw->m->num_instrs; }

pte_rewrite_use pte_rewrite_value_use(const pte_rewrite *rw, const pte_value *v) {
  pte_rewrite_use r = {-1, -1, -1, true, true};
  const pte_method *m = rw->m;
  if (!v || v < m->values || v >= m->values + m->num_values) return r; /* not the method's: opaque */
  const fold_use *u = &rw->use[v - m->values];
  r.first = u->first - 1, r.last = u->final - 1, r.writer = u->writer - 1;
  r.io = u->io, r.opaque = u->bad;
  return r;
}

const char *pte_rewrite_op(const pte_rewrite *rw, int32_t i) {
  if (i < 0 || i >= rw->m->num_instrs || rw->m->instrs[i].kind != INSTR_KERNEL) return NULL;
  return rw->m->instrs[i].name;
}

pte_value **pte_rewrite_args(pte_rewrite *rw, int32_t i, int32_t *nargs) {
  *nargs = 0;
  if (!pte_rewrite_op(rw, i)) return NULL;
  *nargs = rw->m->instrs[i].nargs;
  return rw->m->instrs[i].args;
}

pte_value **pte_rewrite_delegate_args(pte_rewrite *rw, int32_t i, int32_t *nargs, int32_t *nouts) {
  *nargs = *nouts = 0;
  if (i < 0 || i >= rw->m->num_instrs || rw->m->instrs[i].kind != INSTR_DELEGATE) return NULL;
  *nargs = rw->m->instrs[i].nargs;
  *nouts = rw->m->instrs[i].nouts;
  return rw->m->instrs[i].args;
}

bool pte_rewrite_constant(const pte_rewrite *rw, const pte_value *v) {
  size_t bytes = 0;
  const pte_method *m = rw->m;
  return v && v >= m->values && v < m->values + m->num_values && fold_known(m, rw->use, v, &bytes);
}

void *pte_rewrite_alloc(pte_rewrite *rw, size_t size) {
  void *p = m_alloc_raw(rw->m, size, false);
  if (!p) pte_error(PTE_OK, "%s", ""); /* a declined rule is no error */
  return p;
}

void pte_rewrite_free(pte_rewrite *rw, void *p) {
  if (!p) return;
  pte_method *m = rw->m;
  /* a temporary is freed soon after it was had: near the list's head */
  for (pte_block **at = &m->blocks; *at; at = &(*at)->next)
    if ((uint8_t *)*at + (*at)->offset == (uint8_t *)p) {
      pte_block *b = *at;
      *at = b->next;
      m->memory_used -= b->size;
      block_free(m->allocator, b);
      return;
    }
}

pte_value *pte_rewrite_new_constant(pte_rewrite *rw, const pte_tensor *like, void *data) {
  pte_value *v = (pte_value *)m_alloc(rw->m, sizeof *v);
  pte_tensor *t = (pte_tensor *)m_alloc(rw->m, sizeof *t);
  if (!v || !t) {
    pte_error(PTE_OK, "%s", "");
    return NULL;
  }
  *t = *like;
  t->data = data;
  t->capacity = pte_tensor_nbytes(like);
  t->flags = (like->flags & ~(uint32_t)PTE_TENSOR_PLANNED) | PTE_TENSOR_READONLY;
  v->tag = PTE_TAG_TENSOR;
  v->u.tensor = t;
  return v;
}

bool pte_rewrite_resolve(pte_rewrite *rw, int32_t i) {
  pte_method *m = rw->m;
  if (!pte_rewrite_op(rw, i)) return false;
  pte_instr *in = &m->instrs[i];
  const pte_kernel *k = pte_operator_resolve(in->name, in->args, in->nargs, NULL);
  size_t need = k && k->scratch_size ? k->scratch_size(in->args, in->nargs) : 0;
  void *scratch = k && need > m->scratch_size ? m_alloc(m, need) : m->scratch;
  if (!k || (need > m->scratch_size && !scratch)) {
    pte_error(PTE_OK, "%s", "");
    return false;
  }
  if (need > m->scratch_size) m->scratch = scratch, m->scratch_size = need;
  if (in->state) m->num_prepared--; /* a registered kernel has no rule's state */
  in->fn = k->fn;
  in->state = NULL;
  return true;
}

bool pte_rewrite_set_kernel(pte_rewrite *rw, int32_t i, const pte_kernel *k, const void *state) {
  pte_method *m = rw->m;
  if (!pte_rewrite_op(rw, i) || !k || !k->fn) return false;
  pte_instr *in = &m->instrs[i];
  size_t need = k->scratch_size ? k->scratch_size(in->args, in->nargs) : 0;
  void *scratch = need > m->scratch_size ? m_alloc(m, need) : m->scratch;
  if (need > m->scratch_size && !scratch) {
    pte_error(PTE_OK, "%s", "");
    return false;
  }
  if (need > m->scratch_size) m->scratch = scratch, m->scratch_size = need;
  m->num_prepared += (state != NULL) - (in->state != NULL);
  in->fn = k->fn;
  in->state = state;
  return true;
}

void pte_rewrite_skip(pte_rewrite *rw, int32_t i) {
  if (!pte_rewrite_op(rw, i)) return;
  rw->m->instrs[i].kind = INSTR_FOLDED;
  rw->m->num_folded++;
}

static bool refers(const pte_value *a, const pte_value *v) {
  if (a == v) return true;
  if (a->tag == PTE_TAG_TENSOR_LIST || a->tag == PTE_TAG_OPTIONAL_TENSOR_LIST)
    for (int32_t k = 0; k < a->len; k++)
      if (a->u.items[k] == v) return true;
  return false;
}

bool pte_rewrite_refers(const pte_rewrite *rw, int32_t i, const pte_value *v) {
  const pte_method *m = rw->m;
  if (i < 0 || i >= m->num_instrs) return false;
  const pte_instr *in = &m->instrs[i];
  if (in->kind == INSTR_FOLDED) return false; /* it no longer runs */
  if (in->kind == INSTR_KERNEL || in->kind == INSTR_DELEGATE) {
    for (int32_t k = 0; k < in->nargs; k++)
      if (refers(in->args[k], v)) return true;
    return false;
  }
  if (v < m->values || v >= m->values + m->num_values) return false;
  const int32_t idx = (int32_t)(v - m->values);
  return in->a == idx || (in->kind == INSTR_MOVE && in->b == idx);
}

static void release_pages(const pte_program *p, const void *data, size_t size) {
  pte_file_map_release(&p->map, p->flags, data, size);
  for (int32_t i = 0; i < p->num_maps; i++) pte_file_map_release(&p->maps[i]->map, p->flags, data, size);
}

void pte_rewrite_release(pte_rewrite *rw, const void *data, size_t size) {
  release_pages(rw->m->program, data, size);
}

static void rewrite(pte_method *m, const fold_use *use) {
  const pte_rewrite_rule *rules[PTE_MAX_REWRITE_RULES];
  const int32_t n = pte_rewrite_rules(rules, PTE_MAX_REWRITE_RULES);
  pte_rewrite rw = {m, use};
  for (int32_t i = 0; n && i < m->num_instrs; i++) {
    const pte_instr *a = &m->instrs[i], *b = i + 1 < m->num_instrs ? &m->instrs[i + 1] : NULL;
    if (a->kind != INSTR_KERNEL) continue;
    for (int32_t r = 0; r < n; r++) {
      const char *second = rules[r]->second;
      if (strcmp(a->name, rules[r]->first)) continue;
      if (second && (!b || b->kind != INSTR_KERNEL || strcmp(b->name, second))) continue;
      if (rules[r]->apply(&rw, i)) break;
    }
  }
}

static pte_status load(pte_method *m, const char *name, const pte_method_options *o) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(m->program, name, &plan);
  if (st) return st;
  size_t nl = strlen(name);
  char *nm = (char *)m_alloc(m, nl + 1);
  if (!nm) return OOM("method name");
  memcpy(nm, name, nl);
  m->name = nm;
  if (!plan.values) return pte_error(PTE_ERR_INVALID_PROGRAM, "execution plan has no values");
  if ((st = setup_planned(m, &plan, o))) return st;
  if ((st = build_values(m, &plan))) return st;
  if ((st = load_io(m, &plan))) return st;
  m->num_delegates = plan.num_delegates;
  size_t scratch = 0;
  /* Kernels first: a missing operator fails before any delegate is built. */
  if ((st = build_instructions(m, &plan, &scratch))) return st;
  if ((st = init_delegates(m, &plan))) return st;
  /* one scratch for kernels and delegates: they never run at once */
  if (m->backend_scratch > scratch) scratch = m->backend_scratch;
  if (o && !pte_add_ok(scratch, o->extra_scratch, &scratch))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "scratch size overflows");
  if (scratch) {
    m->scratch = m_alloc(m, scratch);
    if (!m->scratch) return OOM("kernel scratch memory");
    m->scratch_size = scratch;
  }
  if (!(m->program->flags & PTE_LOAD_NO_FOLD)) {
    fold_use *use = fold_uses(m);
    if (use) {
      fold_constants(m, use);
      if (!(m->program->flags & PTE_LOAD_NO_FUSE)) rewrite(m, use);
    }
  }
  return PTE_OK;
}

pte_status pte_method_load(pte_program *program, const char *name, const pte_method_options *o,
                           pte_method **out) {
  if (!program || !name || !out)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "program, name and out must not be NULL");
  *out = NULL;
  if (o) { /* versions first: no other field of another ABI's struct can be trusted */
    pte_status st = pte_abi_check(o->abi, "pte_method_options");
    if (!st && o->tracer) st = pte_abi_check(o->tracer->abi, "method tracer");
    if (st) return st;
  }
  const pte_allocator *a = o ? o->allocator : NULL;
  pte_method *m = (pte_method *)pte_alloc(a, sizeof *m, 64);
  if (!m) return OOM("a method");
  memset(m, 0, sizeof *m);
  m->program = program;
  if (a) {
    m->allocator_copy = *a;
    m->allocator = &m->allocator_copy;
  }
  m->memory_used = sizeof *m;
  m->tracer = o ? o->tracer : NULL;
  m->max_instructions = (o && o->max_instructions > 0) ? o->max_instructions : 10000000;
  pte_event ev = {PTE_EVENT_METHOD_LOAD, -1, -1, 0, -1, "Method::init", name};
  const pte_tracer *tr = m->tracer;
  uint64_t tok = (tr && tr->begin) ? tr->begin(tr->user, &ev) : 0;
  pte_status st = load(m, name, o);
  if (tr && tr->end) tr->end(tr->user, &ev, tok);
  if (st) {
    pte_error_prefix("loading method '%s'", name);
    pte_method_free(m);
    return st;
  }
  *out = m;
  return PTE_OK;
}

void pte_method_free(pte_method *m) {
  if (!m) return;
  for (int32_t i = 0; m->delegates && i < m->num_delegates; i++) {
    pte_delegate *d = &m->delegates[i];
    if (d->initialized && d->backend->destroy) d->backend->destroy(d->backend->user, d->handle);
  }
  pte_allocator copy;
  const pte_allocator *a = NULL;
  if (m->allocator) {
    copy = *m->allocator;
    a = &copy;
  }
  pte_block *b = m->blocks;
  while (b) {
    pte_block *next = b->next;
    block_free(a, b);
    b = next;
  }
  pte_free(a, m);
}

const char *pte_method_name(const pte_method *m) { return m ? m->name : NULL; }
int32_t pte_method_num_inputs(const pte_method *m) { return m ? m->num_inputs : 0; }
int32_t pte_method_num_outputs(const pte_method *m) { return m ? m->num_outputs : 0; }
size_t pte_method_memory_used(const pte_method *m) { return m ? m->memory_used : 0; }
int32_t pte_method_num_folded(const pte_method *m) { return m ? m->num_folded : 0; }
int32_t pte_method_num_prepared(const pte_method *m) { return m ? m->num_prepared : 0; }
const char *pte_method_instruction_folded(const pte_method *m, int32_t i) {
  return m && i >= 0 && i < m->num_instrs && m->instrs[i].kind == INSTR_FOLDED ? m->instrs[i].name : NULL;
}

const pte_value *pte_method_attribute(const pte_method *m, const char *name) {
  pte_plan plan;
  if (!m || !name || pte_program_find_plan(m->program, m->name, &plan)) return NULL;
  int64_t v = pte_plan_attribute_value(m->program, &plan, name);
  return v < 0 || v >= m->num_values ? NULL : &m->values[v];
}

pte_status pte_method_set_tracer(pte_method *m, const pte_tracer *tracer) {
  if (!m) return pte_error(PTE_ERR_INVALID_ARGUMENT, "method must not be NULL");
  if (tracer) {
    pte_status st = pte_abi_check(tracer->abi, "tracer");
    if (st) return st;
  }
  m->tracer = tracer;
  return PTE_OK;
}

/* ---- backend contexts ---- */

pte_status pte_backend_named_data(pte_backend_init_ctx *ctx, const char *key, const void **data,
                                  size_t *size) {
  if (!ctx || !key || !data || !size)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "named data lookup needs a context, key and outputs");
  return pte_program_named(ctx->method->program, key, data, size);
}

void *pte_backend_alloc(pte_backend_init_ctx *ctx, size_t size, size_t alignment) {
  if (!ctx || alignment > BLOCK_HEADER) return NULL;
  return m_alloc(ctx->method, size);
}

pte_status pte_backend_reserve_scratch(pte_backend_init_ctx *ctx, size_t size) {
  if (!ctx) return pte_error(PTE_ERR_INVALID_ARGUMENT, "no init context");
  if (size > ctx->method->backend_scratch) ctx->method->backend_scratch = size;
  return PTE_OK;
}

void pte_backend_release(pte_backend_init_ctx *ctx, const void *data, size_t size) {
  if (ctx && data) release_pages(ctx->method->program, data, size);
}

const char *pte_backend_init_method(const pte_backend_init_ctx *ctx) {
  return ctx ? ctx->method->name : NULL;
}
