/* Program loading: the file header, the flatbuffer (verified before any
 * read), segments, constants and named data, and method metadata. */
#include "program.h"
#include "schema.h"

#include <stdio.h>
#include <string.h>

#define EH_MAGIC "eh00"
#define EH_MIN_LENGTH 24

static pte_status parse_header(pte_program *p, size_t *program_size) {
  const uint8_t *d = p->data;
  if (p->size < 8)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "file of %zu bytes is too small to be a program", p->size);
  if (memcmp(d + 4, "ET12", 4) != 0) {
    char got[5] = {0};
    for (int i = 0; i < 4; i++) got[i] = (d[4 + i] >= 32 && d[4 + i] < 127) ? (char)d[4 + i] : '?';
    if (d[4] == 'E' && d[5] == 'T')
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "program identifier '%s' is an incompatible version (this runtime reads 'ET12')", got);
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "not an ExecuTorch program: identifier at bytes 4..7 is '%s', expected 'ET12'", got);
  }
  *program_size = p->size;
  p->segment_base = 0;
  if (p->size < 8 + EH_MIN_LENGTH || memcmp(d + 8, EH_MAGIC, 4) != 0) return PTE_OK;
  uint32_t length = pte_fb_u32(d + 12);
  if (length < EH_MIN_LENGTH || length > p->size - 8)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "extended header length %u is invalid", length);
  uint64_t psize = pte_fb_u64(d + 16);
  uint64_t base = pte_fb_u64(d + 24);
  uint64_t data_size = length >= 32 ? pte_fb_u64(d + 32) : 0;
  if (psize < 8 + (uint64_t)length || psize > p->size)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "extended header: program size %llu is outside the file (%zu bytes)",
                     (unsigned long long)psize, p->size);
  if (base != 0) {
    if (base < psize || base > p->size)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "extended header: segment base offset %llu is outside [%llu, %zu]",
                       (unsigned long long)base, (unsigned long long)psize, p->size);
    if (data_size > p->size - base)
      return pte_error(
          PTE_ERR_INVALID_PROGRAM,
          "file is truncated: segments need %llu bytes after offset %llu but the file has %zu bytes",
          (unsigned long long)data_size, (unsigned long long)base, p->size);
  }
  *program_size = (size_t)psize;
  p->segment_base = base;
  return PTE_OK;
}

pte_status pte_segment_get(const pte_segments *s, uint64_t index, const uint8_t **data, size_t *size) {
  if (index >= (uint64_t)s->count)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "%ssegment index %llu is out of range (%d segments)", s->owner,
                     (unsigned long long)index, (int)s->count);
  uint32_t seg = pte_fb_vec_table(s->fb, s->vec, (uint32_t)index);
  uint64_t off = pte_fb_scalar(s->fb, seg, SEGMENT_OFFSET, 8, 0);
  uint64_t len = pte_fb_scalar(s->fb, seg, SEGMENT_SIZE, 8, 0);
  if (len != 0 && (off > s->avail || len > s->avail - off))
    return pte_error(
        PTE_ERR_INVALID_PROGRAM,
        "%ssegment %llu (offset %llu, %llu bytes) lies outside the file's segment data (%llu bytes)",
        s->owner, (unsigned long long)index, (unsigned long long)off, (unsigned long long)len,
        (unsigned long long)s->avail);
  *data = len ? s->base + off : s->base;
  *size = (size_t)len;
  return PTE_OK;
}

pte_status pte_program_segment(const pte_program *p, uint64_t index, const uint8_t **data, size_t *size) {
  return pte_segment_get(&p->segments, index, data, size);
}

static pte_status load_constants(pte_program *p) {
  uint32_t cs = pte_fb_ref(p->fb, p->root, PROGRAM_CONSTANT_SEGMENT);
  p->legacy_buffers = pte_fb_ref(p->fb, p->root, PROGRAM_CONSTANT_BUFFER);
  p->num_legacy_buffers = (int32_t)pte_fb_vec_len(p->fb, p->legacy_buffers);
  if (!cs) return PTE_OK;
  p->const_offsets = pte_fb_ref(p->fb, cs, SUBSEG_OFFSETS);
  p->num_const_offsets = (int32_t)pte_fb_vec_len(p->fb, p->const_offsets);
  if (p->num_const_offsets <= 1) return PTE_OK; /* only the placeholder: no constants */
  if (p->num_legacy_buffers > 1)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "program has both constant_segment offsets and legacy constant_buffer entries");
  uint64_t idx = pte_fb_scalar(p->fb, cs, SUBSEG_SEGMENT_INDEX, 4, 0);
  pte_status st = pte_program_segment(p, idx, &p->const_data, &p->const_size);
  if (st) pte_error_prefix("constant_segment");
  return st;
}

pte_status pte_program_constant(const pte_program *p, uint32_t index, size_t nbytes, const uint8_t **data) {
  if (p->num_const_offsets > 1) {
    if (index >= (uint32_t)p->num_const_offsets)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "constant index %u is out of range (%d constants)", index,
                       (int)p->num_const_offsets - 1);
    uint64_t off = pte_fb_u64(pte_fb_vec_data(p->fb, p->const_offsets) + 8ull * index);
    if (off > p->const_size || nbytes > p->const_size - off)
      return pte_error(PTE_ERR_INVALID_PROGRAM,
                       "constant %u (offset %llu, %zu bytes) lies outside the constant segment (%zu bytes)",
                       index, (unsigned long long)off, nbytes, p->const_size);
    *data = p->const_data + off;
    return PTE_OK;
  }
  if (index < (uint32_t)p->num_legacy_buffers) {
    uint32_t buf = pte_fb_vec_table(p->fb, p->legacy_buffers, index);
    uint32_t storage = pte_fb_ref(p->fb, buf, BUFFER_STORAGE);
    uint32_t len = pte_fb_vec_len(p->fb, storage);
    if (nbytes > len)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "constant buffer %u holds %u bytes but the tensor needs %zu",
                       index, len, nbytes);
    *data = storage ? pte_fb_vec_data(p->fb, storage) : p->data;
    return PTE_OK;
  }
  return pte_error(PTE_ERR_INVALID_PROGRAM,
                   "constant index %u is out of range (program has no such constant)", index);
}

pte_status pte_program_named(const pte_program *p, const char *key, const void **data, size_t *size) {
  uint32_t n = pte_fb_vec_len(p->fb, p->named_data);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t nd = pte_fb_vec_table(p->fb, p->named_data, i);
    const char *k = pte_fb_str(p->fb, pte_fb_ref(p->fb, nd, NAMEDDATA_KEY));
    if (k && strcmp(k, key) == 0) {
      const uint8_t *d;
      size_t s;
      pte_status st = pte_program_segment(p, pte_fb_scalar(p->fb, nd, NAMEDDATA_SEGMENT_INDEX, 4, 0), &d, &s);
      if (st) {
        pte_error_prefix("named data '%s'", key);
        return st;
      }
      *data = d;
      *size = s;
      return PTE_OK;
    }
  }
  for (int32_t m = 0; m < p->num_maps; m++)
    if (pte_data_map_get(p->maps[m], key, data, size, NULL) == PTE_OK) return PTE_OK;
  return pte_error(PTE_ERR_NOT_FOUND,
                   "named data key '%s' is in neither the program nor %d attached data file(s)", key,
                   (int)p->num_maps);
}

static pte_status finish_load(pte_program *p, const pte_program_options *o) {
  size_t program_size = 0;
  pte_status st = parse_header(p, &program_size);
  if (st) return st;
  st = pte_fb_verify(p->data, program_size, &pte_schema_program, "ET12");
  if (st) return st;
  p->fb.buf = p->data;
  p->fb.size = program_size;
  p->root = pte_fb_root(p->fb);
  p->plans = pte_fb_ref(p->fb, p->root, PROGRAM_EXECUTION_PLAN);
  p->num_plans = (int32_t)pte_fb_vec_len(p->fb, p->plans);
  p->segments.fb = p->fb;
  p->segments.vec = pte_fb_ref(p->fb, p->root, PROGRAM_SEGMENTS);
  p->segments.count = (int32_t)pte_fb_vec_len(p->fb, p->segments.vec);
  /* Without an extended header there is no segment data: only empty segments. */
  p->segments.base = p->data + p->segment_base;
  p->segments.avail = p->segment_base ? p->size - p->segment_base : 0;
  p->segments.owner = "";
  p->mutable_segments = pte_fb_ref(p->fb, p->root, PROGRAM_MUTABLE_DATA_SEGMENTS);
  p->named_data = pte_fb_ref(p->fb, p->root, PROGRAM_NAMED_DATA);
  if (p->num_plans == 0)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "program has no execution plans (methods)");
  for (int32_t i = 0; i < p->segments.count; i++) {
    const uint8_t *d;
    size_t s;
    if ((st = pte_program_segment(p, (uint64_t)i, &d, &s))) return st;
  }
  for (int32_t i = 0; i < p->num_plans; i++) {
    uint32_t plan = pte_fb_vec_table(p->fb, p->plans, (uint32_t)i);
    if (!pte_fb_ref(p->fb, plan, PLAN_NAME))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "execution plan %d has no name", (int)i);
  }
  if ((st = load_constants(p))) return st;
  uint32_t n = pte_fb_vec_len(p->fb, p->named_data);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t nd = pte_fb_vec_table(p->fb, p->named_data, i);
    if (!pte_fb_ref(p->fb, nd, NAMEDDATA_KEY))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "named_data[%u] has no key", i);
    const uint8_t *d;
    size_t s;
    if ((st = pte_program_segment(p, pte_fb_scalar(p->fb, nd, NAMEDDATA_SEGMENT_INDEX, 4, 0), &d, &s))) {
      pte_error_prefix("named_data[%u]", i);
      return st;
    }
  }
  n = pte_fb_vec_len(p->fb, p->mutable_segments);
  for (uint32_t i = 0; i < n; i++) {
    uint32_t ms = pte_fb_vec_table(p->fb, p->mutable_segments, i);
    const uint8_t *d;
    size_t s;
    if ((st = pte_program_segment(p, pte_fb_scalar(p->fb, ms, SUBSEG_SEGMENT_INDEX, 4, 0), &d, &s))) {
      pte_error_prefix("mutable_data_segments[%u]", i);
      return st;
    }
  }
  if (o && o->num_data_maps > 0) {
    if (!o->data_maps)
      return pte_error(PTE_ERR_INVALID_ARGUMENT, "num_data_maps is %d but data_maps is NULL",
                       (int)o->num_data_maps);
    p->maps = (pte_data_map **)pte_alloc(p->allocator, sizeof(*p->maps) * (size_t)o->num_data_maps, 16);
    if (!p->maps) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory for data maps");
    for (int32_t i = 0; i < o->num_data_maps; i++) {
      if (!o->data_maps[i]) return pte_error(PTE_ERR_INVALID_ARGUMENT, "data_maps[%d] is NULL", (int)i);
      p->maps[i] = o->data_maps[i];
    }
    p->num_maps = o->num_data_maps;
  }
  return PTE_OK;
}

/* Versions are checked before any other field is read. */
static pte_status check_options(const pte_program_options *o) {
  if (!o) return PTE_OK;
  pte_status st = pte_abi_check(o->abi, "pte_program_options");
  if (!st && o->tracer) st = pte_abi_check(o->tracer->abi, "program tracer");
  return st;
}

static pte_program *program_new(const pte_program_options *o) {
  const pte_allocator *a = o ? o->allocator : NULL;
  pte_program *p = (pte_program *)pte_alloc(a, sizeof *p, 16);
  if (!p) return NULL;
  memset(p, 0, sizeof *p);
  p->flags = o ? o->flags : 0; /* PTE_LOAD_NO_FOLD is read when methods load */
  if (a) {
    p->allocator_copy = *a;
    p->allocator = &p->allocator_copy;
  }
  return p;
}

static pte_status load_traced(pte_program *p, const pte_program_options *o, const char *what) {
  const pte_tracer *tr = o ? o->tracer : NULL;
  pte_event ev = {PTE_EVENT_PROGRAM_LOAD, -1, -1, 0, -1, "Program::load", NULL};
  uint64_t tok = (tr && tr->begin) ? tr->begin(tr->user, &ev) : 0;
  pte_status st = finish_load(p, o);
  if (tr && tr->end) tr->end(tr->user, &ev, tok);
  if (st) pte_error_prefix("%s", what);
  return st;
}

pte_status pte_program_load_file(const char *path, const pte_program_options *o, pte_program **out) {
  if (!path || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "path and out must not be NULL");
  *out = NULL;
  pte_status st = check_options(o);
  if (st) return st;
  pte_program *p = program_new(o);
  if (!p) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory loading '%s'", path);
  st = pte_file_map_open(path, o ? o->flags : 0, p->allocator, &p->map);
  if (st) {
    pte_free(p->allocator, p);
    return st;
  }
  p->data = (const uint8_t *)p->map.data;
  p->size = p->map.size;
  st = load_traced(p, o, path);
  if (st) {
    pte_program_free(p);
    return st;
  }
  *out = p;
  return PTE_OK;
}

pte_status pte_program_load_buffer(const void *data, size_t size, const pte_program_options *o,
                                   pte_program **out) {
  if (!data || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "data and out must not be NULL");
  *out = NULL;
  pte_status st = check_options(o);
  if (st) return st;
  uint32_t flags = o ? o->flags : 0;
  if (!(flags & PTE_LOAD_COPY) && ((uintptr_t)data % 16) != 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT,
                     "program buffer must be 16-byte aligned (or pass PTE_LOAD_COPY)");
  pte_program *p = program_new(o);
  if (!p) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory loading a program");
  if (flags & PTE_LOAD_COPY) {
    p->owned = pte_alloc(p->allocator, size, 64);
    if (!p->owned) {
      pte_free(p->allocator, p);
      return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory copying a %zu-byte program", size);
    }
    memcpy(p->owned, data, size);
    data = p->owned;
  }
  p->data = (const uint8_t *)data;
  p->size = size;
  st = load_traced(p, o, "program buffer");
  if (st) {
    pte_program_free(p);
    return st;
  }
  *out = p;
  return PTE_OK;
}

void pte_program_free(pte_program *p) {
  if (!p) return;
  const pte_allocator *a = p->allocator;
  pte_allocator copy;
  if (a) {
    copy = *a;
    a = &copy;
  }
  if (p->map.data) pte_file_map_close(&p->map, a);
  pte_free(a, p->owned);
  pte_free(a, p->maps);
  pte_free(a, p);
}

int32_t pte_program_method_count(const pte_program *p) { return p ? p->num_plans : 0; }

const char *pte_program_method_name(const pte_program *p, int32_t i) {
  if (!p || i < 0 || i >= p->num_plans) return NULL;
  uint32_t plan = pte_fb_vec_table(p->fb, p->plans, (uint32_t)i);
  return pte_fb_str(p->fb, pte_fb_ref(p->fb, plan, PLAN_NAME));
}

static void plan_view(const pte_program *p, uint32_t t, pte_plan *v) {
  const pte_fb fb = p->fb;
  memset(v, 0, sizeof *v);
  v->table = t;
  v->values = pte_fb_ref(fb, t, PLAN_VALUES);
  v->inputs = pte_fb_ref(fb, t, PLAN_INPUTS);
  v->outputs = pte_fb_ref(fb, t, PLAN_OUTPUTS);
  v->operators = pte_fb_ref(fb, t, PLAN_OPERATORS);
  v->delegates = pte_fb_ref(fb, t, PLAN_DELEGATES);
  v->sizes = pte_fb_ref(fb, t, PLAN_NON_CONST_BUFFER_SIZES);
  v->devices = pte_fb_ref(fb, t, PLAN_NON_CONST_BUFFER_DEVICE);
  v->num_values = (int32_t)pte_fb_vec_len(fb, v->values);
  v->num_inputs = (int32_t)pte_fb_vec_len(fb, v->inputs);
  v->num_outputs = (int32_t)pte_fb_vec_len(fb, v->outputs);
  v->num_operators = (int32_t)pte_fb_vec_len(fb, v->operators);
  v->num_delegates = (int32_t)pte_fb_vec_len(fb, v->delegates);
  v->num_sizes = (int32_t)pte_fb_vec_len(fb, v->sizes);
  uint32_t chains = pte_fb_ref(fb, t, PLAN_CHAINS);
  v->num_chains = (int32_t)pte_fb_vec_len(fb, chains);
  if (v->num_chains > 0) {
    v->instrs = pte_fb_ref(fb, pte_fb_vec_table(fb, chains, 0), CHAIN_INSTRUCTIONS);
    v->num_instrs = (int32_t)pte_fb_vec_len(fb, v->instrs);
  }
}

pte_status pte_program_find_plan(const pte_program *p, const char *method, pte_plan *plan) {
  if (!p || !method) return pte_error(PTE_ERR_INVALID_ARGUMENT, "program and method must not be NULL");
  for (int32_t i = 0; i < p->num_plans; i++) {
    if (strcmp(pte_program_method_name(p, i), method) == 0) {
      plan_view(p, pte_fb_vec_table(p->fb, p->plans, (uint32_t)i), plan);
      return PTE_OK;
    }
  }
  char names[256];
  size_t used = 0;
  names[0] = 0;
  for (int32_t i = 0; i < p->num_plans && used < sizeof names; i++)
    used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", i ? ", " : "",
                             pte_program_method_name(p, i));
  return pte_error(PTE_ERR_NOT_FOUND, "method '%s' is not in the program (it has %s)", method, names);
}

uint8_t pte_plan_value_tag(const pte_program *p, const pte_plan *plan, int32_t index) {
  uint32_t ev = pte_fb_vec_table(p->fb, plan->values, (uint32_t)index);
  return (uint8_t)pte_fb_scalar(p->fb, ev, EVALUE_TYPE, 1, 0);
}

pte_status pte_plan_value(const pte_program *p, const pte_plan *plan, int64_t index, pte_value_view *v) {
  const pte_fb fb = p->fb;
  uint32_t n = (uint32_t)plan->num_values;
  memset(v, 0, sizeof *v);
  if (index < 0 || index >= (int64_t)n)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "value index %lld is out of range (%u values)",
                     (long long)index, n);
  uint32_t ev = pte_fb_vec_table(fb, plan->values, (uint32_t)index);
  uint8_t type = (uint8_t)pte_fb_scalar(fb, ev, EVALUE_TYPE, 1, 0);
  uint32_t val = pte_fb_ref(fb, ev, EVALUE_VAL);
  v->tag = type;
  if (type == 0 || type > PTE_TAG_OPTIONAL_TENSOR_LIST)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "value %lld has invalid type %u", (long long)index, type);
  if (!val && type != PTE_TAG_NONE)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "value %lld (%s) has no payload", (long long)index,
                     pte_tag_name(type));
  switch (type) {
    case PTE_TAG_INT: v->i = (int64_t)pte_fb_scalar(fb, val, SCALAR_VAL, 8, 0); break;
    case PTE_TAG_BOOL: v->b = pte_fb_scalar(fb, val, SCALAR_VAL, 1, 0) != 0; break;
    case PTE_TAG_DOUBLE: {
      uint64_t bits = pte_fb_scalar(fb, val, SCALAR_VAL, 8, 0);
      memcpy(&v->d, &bits, sizeof bits);
      break;
    }
    case PTE_TAG_STRING: {
      uint32_t str = pte_fb_ref(fb, val, SCALAR_VAL);
      v->str = str ? pte_fb_str(fb, str) : "";
      v->items.len = pte_fb_vec_len(fb, str);
      break;
    }
    case PTE_TAG_TENSOR: v->tensor = val; break;
    case PTE_TAG_NONE: break;
    default: { /* the lists */
      uint32_t items = pte_fb_ref(fb, val, LIST_ITEMS);
      v->items.len = pte_fb_vec_len(fb, items);
      v->items.raw = items ? pte_fb_vec_data(fb, items) : NULL;
      v->items.width = type == PTE_TAG_BOOL_LIST                                   ? 1
                       : (type == PTE_TAG_INT_LIST || type == PTE_TAG_DOUBLE_LIST) ? 8
                                                                                   : 4;
    }
  }
  return PTE_OK;
}

static pte_items int_vec(pte_fb fb, uint32_t vec, uint32_t width) {
  pte_items l = {vec ? pte_fb_vec_data(fb, vec) : NULL, pte_fb_vec_len(fb, vec), width};
  return l;
}

int32_t pte_plan_io(const pte_program *p, const pte_plan *plan, bool output, int32_t k) {
  return (int32_t)pte_fb_u32(pte_fb_vec_data(p->fb, output ? plan->outputs : plan->inputs) +
                             4ull * (uint32_t)k);
}

int64_t pte_plan_buffer_size(const pte_program *p, const pte_plan *plan, int32_t k) {
  return (int64_t)pte_fb_u64(pte_fb_vec_data(p->fb, plan->sizes) + 8ull * (uint32_t)k);
}

pte_status pte_plan_check_devices(const pte_program *p, const pte_plan *plan) {
  for (uint32_t i = 0; i < pte_fb_vec_len(p->fb, plan->devices); i++) {
    uint32_t e = pte_fb_vec_table(p->fb, plan->devices, i);
    if (pte_fb_scalar(p->fb, e, BUFDEVICE_TYPE, 1, 0) != 0)
      return pte_error(PTE_ERR_NOT_SUPPORTED,
                       "planned buffer %d is on device type %d, a non-CPU device: pterun plans memory on the "
                       "host only",
                       (int)pte_fb_scalar(p->fb, e, BUFDEVICE_IDX, 4, 0),
                       (int)pte_fb_scalar(p->fb, e, BUFDEVICE_TYPE, 1, 0));
  }
  return PTE_OK;
}

const char *pte_plan_operator(const pte_program *p, const pte_plan *plan, int32_t k, const char **overload) {
  uint32_t op = pte_fb_vec_table(p->fb, plan->operators, (uint32_t)k);
  const char *o = pte_fb_str(p->fb, pte_fb_ref(p->fb, op, OPERATOR_OVERLOAD));
  *overload = o ? o : "";
  return pte_fb_str(p->fb, pte_fb_ref(p->fb, op, OPERATOR_NAME));
}

void pte_plan_delegate(const pte_program *p, const pte_plan *plan, int32_t k, pte_delegate_view *d) {
  d->table = pte_fb_vec_table(p->fb, plan->delegates, (uint32_t)k);
  d->index = k;
  d->id = pte_fb_str(p->fb, pte_fb_ref(p->fb, d->table, DELEGATE_ID));
  d->specs = pte_fb_ref(p->fb, d->table, DELEGATE_COMPILE_SPECS);
  d->num_specs = (int32_t)pte_fb_vec_len(p->fb, d->specs);
}

pte_status pte_delegate_processed(const pte_program *p, const pte_delegate_view *d, const uint8_t **data,
                                  size_t *size) {
  const pte_fb fb = p->fb;
  int i = (int)d->index;
  uint32_t ref = pte_fb_ref(fb, d->table, DELEGATE_PROCESSED);
  if (!ref) return pte_error(PTE_ERR_INVALID_PROGRAM, "delegate %d has no processed data", i);
  int8_t loc = (int8_t)pte_fb_scalar(fb, ref, DATAREF_LOCATION, 1, 0);
  uint32_t index = (uint32_t)pte_fb_scalar(fb, ref, DATAREF_INDEX, 4, 0);
  if (loc == 0) {
    uint32_t inl = pte_fb_ref(fb, p->root, PROGRAM_BACKEND_DELEGATE_DATA);
    if (index >= pte_fb_vec_len(fb, inl))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "delegate %d: inline data index %u is out of range", i,
                       index);
    uint32_t bd = pte_fb_ref(fb, pte_fb_vec_table(fb, inl, index), INLINEDATA_DATA);
    *size = pte_fb_vec_len(fb, bd);
    *data = bd ? pte_fb_vec_data(fb, bd) : p->data;
    return PTE_OK;
  }
  if (loc == 1) {
    pte_status st = pte_program_segment(p, index, data, size);
    if (st) pte_error_prefix("delegate %d", i);
    return st;
  }
  return pte_error(PTE_ERR_INVALID_PROGRAM, "delegate %d: data location %d is invalid", i, (int)loc);
}

void pte_delegate_spec(const pte_program *p, const pte_delegate_view *d, int32_t k, pte_compile_spec *spec) {
  uint32_t s = pte_fb_vec_table(p->fb, d->specs, (uint32_t)k);
  uint32_t val = pte_fb_ref(p->fb, s, COMPILESPEC_VALUE);
  const char *key = pte_fb_str(p->fb, pte_fb_ref(p->fb, s, COMPILESPEC_KEY));
  spec->key = key ? key : "";
  spec->value = val ? pte_fb_vec_data(p->fb, val) : NULL;
  spec->size = pte_fb_vec_len(p->fb, val);
}

pte_status pte_plan_instruction(const pte_program *p, const pte_plan *plan, int32_t k, pte_instr_view *v) {
  const pte_fb fb = p->fb;
  uint32_t t = pte_fb_vec_table(fb, plan->instrs, (uint32_t)k);
  uint8_t kind = (uint8_t)pte_fb_scalar(fb, t, INSTR_ARGS_TYPE, 1, 0);
  uint32_t a = pte_fb_ref(fb, t, INSTR_ARGS);
  memset(v, 0, sizeof *v);
  v->kind = kind;
  if (!a || kind < INSTR_KERNEL || kind > INSTR_FREE)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "instruction %d has invalid type %u", (int)k, kind);
  /* The argument tables share a layout: an int32 first (operator, delegate,
   * source, condition, value), then the args vector or a second int32. */
  _Static_assert(KERNELCALL_OP_INDEX == 0 && DELEGATECALL_DELEGATE_INDEX == 0 && MOVECALL_FROM == 0 &&
                     JUMPFALSE_COND == 0 && FREECALL_VALUE == 0 && DELEGATECALL_ARGS == 1 &&
                     KERNELCALL_ARGS == 1 && MOVECALL_TO == 1 && JUMPFALSE_DEST == 1,
                 "instruction argument slots");
  v->a = (int32_t)pte_fb_scalar(fb, a, KERNELCALL_OP_INDEX, 4, 0);
  if (kind == INSTR_KERNEL || kind == INSTR_DELEGATE)
    v->args = int_vec(fb, pte_fb_ref(fb, a, KERNELCALL_ARGS), 4);
  else if (kind != INSTR_FREE) v->b = (int32_t)pte_fb_scalar(fb, a, MOVECALL_TO, 4, 0);
  return PTE_OK;
}

pte_status pte_program_mutable_data(const pte_program *p, uint32_t index, size_t nbytes,
                                    const uint8_t **data) {
  uint32_t ms =
      pte_fb_vec_len(p->fb, p->mutable_segments) ? pte_fb_vec_table(p->fb, p->mutable_segments, 0) : 0;
  if (!ms)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "tensor has initial data but the program has no mutable data segment");
  uint32_t offs = pte_fb_ref(p->fb, ms, SUBSEG_OFFSETS);
  if (index >= pte_fb_vec_len(p->fb, offs))
    return pte_error(PTE_ERR_INVALID_PROGRAM, "mutable data index %u is out of range", index);
  const uint8_t *seg;
  size_t seg_size;
  pte_status st =
      pte_program_segment(p, pte_fb_scalar(p->fb, ms, SUBSEG_SEGMENT_INDEX, 4, 0), &seg, &seg_size);
  if (st) return st;
  uint64_t off = pte_fb_u64(pte_fb_vec_data(p->fb, offs) + 8ull * index);
  if (off > seg_size || nbytes > seg_size - off)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "mutable data %u lies outside its segment", index);
  *data = seg + off;
  return PTE_OK;
}

pte_status pte_plan_tensor_desc(const pte_program *p, uint32_t t, pte_tensor_desc *d) {
  memset(d, 0, sizeof *d);
  d->dtype = (int8_t)pte_fb_scalar(p->fb, t, TENSOR_SCALAR_TYPE, 1, 0);
  size_t esize = pte_dtype_size(d->dtype);
  if (esize == 0)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor has unknown scalar type %d", (int)d->dtype);
  if ((int32_t)pte_fb_scalar(p->fb, t, TENSOR_STORAGE_OFFSET, 4, 0) != 0)
    return pte_error(PTE_ERR_NOT_SUPPORTED, "tensor has a nonzero storage offset");
  d->dynamism = (int8_t)pte_fb_scalar(p->fb, t, TENSOR_SHAPE_DYNAMISM, 1, 0);
  if (d->dynamism < 0 || d->dynamism > PTE_SHAPE_DYNAMIC_UNBOUND)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor has invalid shape dynamism %d", (int)d->dynamism);
  if (d->dynamism == PTE_SHAPE_DYNAMIC_UNBOUND)
    return pte_error(PTE_ERR_NOT_SUPPORTED, "tensors with unbounded dynamic shapes are not supported");
  uint32_t sizes = pte_fb_ref(p->fb, t, TENSOR_SIZES);
  uint32_t dim = pte_fb_vec_len(p->fb, sizes);
  if (dim > PTE_MAX_DIM)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor rank %u exceeds %d", dim, PTE_MAX_DIM);
  d->dim = (int32_t)dim;
  size_t nbytes = esize;
  for (uint32_t i = 0; i < dim; i++) {
    int32_t s = (int32_t)pte_fb_u32(pte_fb_vec_data(p->fb, sizes) + 4 * i);
    if (s < 0) return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor size %d of dim %u is negative", (int)s, i);
    if (!pte_mul_ok(nbytes, (size_t)s, &nbytes))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor byte size overflows");
    d->sizes[i] = s;
  }
  d->nbytes = nbytes;
  uint32_t order = pte_fb_ref(p->fb, t, TENSOR_DIM_ORDER);
  uint32_t olen = pte_fb_vec_len(p->fb, order);
  if (order && olen != dim)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "dim_order has %u entries for a rank-%u tensor", olen, dim);
  uint32_t seen = 0;
  for (uint32_t i = 0; i < dim; i++) {
    uint8_t o = order ? pte_fb_vec_data(p->fb, order)[i] : (uint8_t)i;
    if (o >= dim || (seen & (1u << o)))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "dim_order is not a permutation of 0..%u", dim - 1);
    seen |= 1u << o;
    d->dim_order[i] = o;
  }
  d->data_buffer_idx = (uint32_t)pte_fb_scalar(p->fb, t, TENSOR_DATA_BUFFER_IDX, 4, 0);
  uint32_t alloc = pte_fb_ref(p->fb, t, TENSOR_ALLOCATION_INFO);
  if (alloc) {
    d->has_alloc = true;
    d->memory_id = (uint32_t)pte_fb_scalar(p->fb, alloc, ALLOC_MEMORY_ID, 4, 0);
    d->memory_offset = pte_fb_scalar(p->fb, alloc, ALLOC_OFFSET_LOW, 4, 0) |
                       (pte_fb_scalar(p->fb, alloc, ALLOC_OFFSET_HIGH, 4, 0) << 32);
  }
  uint32_t extra = pte_fb_ref(p->fb, t, TENSOR_EXTRA_INFO);
  if (extra) {
    d->fqn = pte_fb_str(p->fb, pte_fb_ref(p->fb, extra, EXTRA_FQN));
    int8_t loc = (int8_t)pte_fb_scalar(p->fb, extra, EXTRA_LOCATION, 1, 0);
    if (loc != 0 && loc != 1)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "tensor data location %d is invalid", (int)loc);
    d->external = loc == 1;
    if (d->external && (!d->fqn || !d->fqn[0]))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "external tensor has no fully qualified name");
    int8_t dev = (int8_t)pte_fb_scalar(p->fb, extra, EXTRA_DEVICE_TYPE, 1, 0);
    if (dev != 0)
      return pte_error(PTE_ERR_NOT_SUPPORTED, "tensor on device type %d (only CPU is supported)", (int)dev);
  }
  return PTE_OK;
}

/* ---- method metadata without loading ---- */

static pte_status value_io(const pte_program *p, const pte_plan *plan, int64_t vi, pte_io_info *out,
                           const char **fqn);

static pte_status plan_io(const pte_program *p, const char *method, int32_t index, bool output,
                          pte_io_info *out) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (!out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "out must not be NULL");
  int32_t n = output ? plan.num_outputs : plan.num_inputs;
  const char *what = output ? "output" : "input";
  if (index < 0 || index >= n)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' has %u %ss; index %d is out of range", method,
                     (unsigned)n, what, (int)index);
  if ((st = value_io(p, &plan, pte_plan_io(p, &plan, output, index), out, NULL)))
    pte_error_prefix("method '%s' %s %d", method, what, (int)index);
  return st;
}

/* What a value of the plan is, as an io slot; its tensor's name if it has one. */
static pte_status value_io(const pte_program *p, const pte_plan *plan, int64_t vi, pte_io_info *out,
                           const char **fqn) {
  pte_value_view v;
  memset(out, 0, sizeof *out);
  if (fqn) *fqn = NULL;
  pte_status st = pte_plan_value(p, plan, vi, &v);
  if (st) return st;
  out->tag = v.tag;
  if (v.tag != PTE_TAG_TENSOR) return PTE_OK;
  pte_tensor_desc d;
  if ((st = pte_plan_tensor_desc(p, v.tensor, &d))) return st;
  if (fqn) *fqn = d.fqn;
  out->dtype = d.dtype;
  out->dim = d.dim;
  out->dynamism = d.dynamism;
  memcpy(out->sizes, d.sizes, sizeof out->sizes);
  memcpy(out->dim_order, d.dim_order, sizeof out->dim_order);
  out->planned = d.has_alloc || d.data_buffer_idx != 0;
  out->nbytes = d.nbytes;
  return PTE_OK;
}

pte_status pte_program_method_input(const pte_program *p, const char *method, int32_t index,
                                    pte_io_info *out) {
  return plan_io(p, method, index, false, out);
}

pte_status pte_program_method_output(const pte_program *p, const char *method, int32_t index,
                                     pte_io_info *out) {
  return plan_io(p, method, index, true, out);
}

/* Attribute `index` (its value index in *value), or with index < 0 only the
 * count: tensors that carry a fully qualified name, in value order. */
static pte_status plan_attribute(const pte_program *p, const pte_plan *plan, int32_t index, int32_t *count,
                                 int64_t *value, pte_io_info *out, const char **name) {
  int32_t n = 0;
  for (int32_t i = 0; i < plan->num_values; i++) {
    const char *fqn;
    pte_status st = value_io(p, plan, i, out, &fqn);
    if (st) {
      pte_error_prefix("value %d", (int)i);
      return st;
    }
    if (!fqn) continue;
    if (n++ == index) {
      *name = fqn;
      *value = i;
      return PTE_OK;
    }
  }
  *count = n;
  if (index < 0) return PTE_OK;
  return pte_error(PTE_ERR_INVALID_ARGUMENT, "index %d is out of range: the method has %d attributes",
                   (int)index, (int)n);
}

pte_status pte_program_method_attribute(const pte_program *p, const char *method, int32_t index,
                                        const char **name, pte_io_info *out) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (!name || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "name and out must not be NULL");
  if (index < 0)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s': attribute index %d is negative", method,
                     (int)index);
  int32_t n;
  int64_t v;
  if ((st = plan_attribute(p, &plan, index, &n, &v, out, name))) pte_error_prefix("method '%s'", method);
  return st;
}

pte_status pte_program_method_num_attributes(const pte_program *p, const char *method, int32_t *count) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (!count) return pte_error(PTE_ERR_INVALID_ARGUMENT, "count must not be NULL");
  pte_io_info io;
  int64_t v;
  const char *name;
  if ((st = plan_attribute(p, &plan, -1, count, &v, &io, &name))) pte_error_prefix("method '%s'", method);
  return st;
}

/* The value index of the method's attribute `name`, or -1. */
int64_t pte_plan_attribute_value(const pte_program *p, const pte_plan *plan, const char *name) {
  pte_io_info io;
  const char *fqn;
  for (int32_t i = 0; i < plan->num_values; i++)
    if (!value_io(p, plan, i, &io, &fqn) && fqn && !strcmp(fqn, name)) return i;
  return -1;
}

pte_status pte_program_method_info(const pte_program *p, const char *method, pte_method_info *out) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (!out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "out must not be NULL");
  memset(out, 0, sizeof *out);
  out->name = pte_fb_str(p->fb, pte_fb_ref(p->fb, plan.table, PLAN_NAME));
  out->num_inputs = plan.num_inputs;
  out->num_outputs = plan.num_outputs;
  out->num_values = plan.num_values;
  out->num_operators = plan.num_operators;
  out->num_delegates = plan.num_delegates;
  uint32_t chains = pte_fb_ref(p->fb, plan.table, PLAN_CHAINS);
  for (uint32_t c = 0; c < pte_fb_vec_len(p->fb, chains); c++) {
    uint32_t chain = pte_fb_vec_table(p->fb, chains, c);
    out->num_instructions += (int32_t)pte_fb_vec_len(p->fb, pte_fb_ref(p->fb, chain, CHAIN_INSTRUCTIONS));
  }
  out->num_planned_buffers = plan.num_sizes > 1 ? plan.num_sizes - 1 : 0;
  for (int32_t i = 1; i < plan.num_sizes; i++) {
    int64_t s = pte_plan_buffer_size(p, &plan, i);
    if (s < 0)
      return pte_error(PTE_ERR_INVALID_PROGRAM, "method '%s': planned buffer %u has negative size %lld",
                       method, (unsigned)i - 1, (long long)s);
    if (__builtin_add_overflow(out->planned_bytes, s, &out->planned_bytes))
      return pte_error(PTE_ERR_INVALID_PROGRAM, "method '%s': planned buffer sizes overflow", method);
  }
  return PTE_OK;
}

pte_status pte_program_method_planned_size(const pte_program *p, const char *method, int32_t index,
                                           int64_t *bytes) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (index < 0 || index + 1 >= plan.num_sizes)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' has %u planned buffers; index %d is out of range",
                     method, plan.num_sizes > 1 ? (unsigned)plan.num_sizes - 1 : 0, (int)index);
  *bytes = pte_plan_buffer_size(p, &plan, index + 1);
  return PTE_OK;
}

pte_status pte_program_method_operator(const pte_program *p, const char *method, int32_t index,
                                       const char **name, const char **overload) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (index < 0 || index >= plan.num_operators)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "operator index %d is out of range", (int)index);
  const char *o;
  const char *n = pte_plan_operator(p, &plan, index, &o);
  if (!n) return pte_error(PTE_ERR_INVALID_PROGRAM, "operator %d has no name", (int)index);
  if (name) *name = n;
  if (overload) *overload = o;
  return PTE_OK;
}

pte_status pte_program_method_delegate(const pte_program *p, const char *method, int32_t index,
                                       const char **backend_id) {
  pte_plan plan;
  pte_status st = pte_program_find_plan(p, method, &plan);
  if (st) return st;
  if (index < 0 || index >= plan.num_delegates)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "delegate index %d is out of range", (int)index);
  pte_delegate_view d;
  pte_plan_delegate(p, &plan, index, &d);
  if (!d.id) return pte_error(PTE_ERR_INVALID_PROGRAM, "delegate %d has no id", (int)index);
  *backend_id = d.id;
  return PTE_OK;
}
