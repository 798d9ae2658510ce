/* Inputs, execution and outputs. Nothing here allocates or does I/O. */
#include "method.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *dyn_name(int32_t d) {
  return d == PTE_SHAPE_STATIC          ? "static"
         : d == PTE_SHAPE_DYNAMIC_BOUND ? "dynamic, upper bounds"
                                        : "unbounded";
}

/* Shapes are formatted only on the error path: set_input runs before every
 * execute, so its common case must stay cheap. */
static pte_status input_mismatch(pte_method *m, int32_t index, const pte_tensor *slot, const int64_t *bound,
                                 const pte_tensor *t) {
  char want[192], got[192];
  pte_shape_str(slot->dim, bound, want, sizeof want);
  pte_shape_str(t->dim, t->sizes, got, sizeof got);
  if (t->dtype != slot->dtype)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' input %d: expected dtype %s, got %s (shape %s)",
                     m->name, (int)index, pte_dtype_name(slot->dtype), pte_dtype_name(t->dtype), got);
  return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' input %d: expected %s %s (%s), got %s %s", m->name,
                   (int)index, pte_dtype_name(slot->dtype), want, dyn_name(slot->dynamism),
                   pte_dtype_name(t->dtype), got);
}

static pte_status set_tensor_input(pte_method *m, int32_t index, pte_tensor *slot, const pte_tensor *t) {
  const int64_t *bound = &m->input_bounds[(size_t)index * PTE_MAX_DIM];
  if (t->dtype != slot->dtype) return input_mismatch(m, index, slot, bound, t);
  bool ok = t->dim == slot->dim;
  for (int32_t i = 0; ok && i < t->dim; i++) {
    if (slot->dynamism == PTE_SHAPE_STATIC) ok = t->sizes[i] == bound[i];
    else ok = t->sizes[i] >= 0 && t->sizes[i] <= bound[i];
  }
  size_t nbytes = pte_tensor_nbytes(t);
  bool planned = slot->flags & PTE_TENSOR_PLANNED;
  if (ok && slot->dynamism != PTE_SHAPE_STATIC && planned) ok = nbytes <= slot->capacity;
  if (!ok) return input_mismatch(m, index, slot, bound, t);
  if (nbytes && !t->data)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' input %d: tensor data is NULL", m->name,
                     (int)index);
  if (planned) {
    pte_status st = pte_tensor_resize(slot, t->dim, t->sizes);
    if (st) {
      pte_error_prefix("method '%s' input %d", m->name, (int)index);
      return st;
    }
    /* Strided copy: the slot may want another dim order (e.g. channels-last). */
    if (nbytes && slot->data != t->data && (st = pte_tensor_copy(slot, t))) return st;
  } else {
    /* Unplanned: share the caller's memory, which must then be row-major. */
    if (!pte_tensor_is_contiguous(t))
      return pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "method '%s' input %d: an unplanned input must be contiguous", m->name, (int)index);
    slot->data = t->data;
    slot->capacity = nbytes;
    for (int32_t i = 0; i < t->dim; i++) slot->sizes[i] = t->sizes[i];
    for (int32_t i = 0; i < t->dim; i++) slot->dim_order[i] = (uint8_t)i;
    pte_tensor_compute_strides(slot);
  }
  return PTE_OK;
}

pte_status pte_method_set_input(pte_method *m, int32_t index, const pte_value *v) {
  if (!m || !v) return pte_error(PTE_ERR_INVALID_ARGUMENT, "method and value must not be NULL");
  if (index < 0 || index >= m->num_inputs)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' has %d inputs; index %d is out of range", m->name,
                     (int)m->num_inputs, (int)index);
  pte_value *slot = &m->values[m->inputs[index]];
  if (slot->tag != v->tag)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' input %d: expected a %s, got a %s", m->name,
                     (int)index, pte_tag_name(slot->tag), pte_tag_name(v->tag));
  pte_status st = PTE_OK;
  switch (slot->tag) {
    case PTE_TAG_TENSOR:
      if (!v->u.tensor) return pte_error(PTE_ERR_INVALID_ARGUMENT, "input %d: tensor is NULL", (int)index);
      st = set_tensor_input(m, index, slot->u.tensor, v->u.tensor);
      break;
    case PTE_TAG_INT:
      if (v->u.i != slot->u.i)
        st = pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "method '%s' input %d: the program was exported for Int %lld, got %lld", m->name,
                       (int)index, (long long)slot->u.i, (long long)v->u.i);
      break;
    case PTE_TAG_BOOL:
      if (v->u.b != slot->u.b)
        st = pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' input %d: the program was exported for Bool %d",
                       m->name, (int)index, (int)slot->u.b);
      break;
    case PTE_TAG_DOUBLE:
      if (!(fabs(v->u.d - slot->u.d) <= 1e-4 + 1e-5 * fabs(slot->u.d)))
        st = pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "method '%s' input %d: the program was exported for Double %g, got %g", m->name,
                       (int)index, slot->u.d, v->u.d);
      break;
    case PTE_TAG_STRING:
      if (!v->u.str || strcmp(v->u.str, slot->u.str) != 0)
        st = pte_error(PTE_ERR_INVALID_ARGUMENT,
                       "method '%s' input %d: the program was exported for String '%s'", m->name, (int)index,
                       slot->u.str);
      break;
    case PTE_TAG_NONE: break;
    default:
      st = pte_error(PTE_ERR_NOT_SUPPORTED, "method '%s' input %d: %s inputs are not supported", m->name,
                     (int)index, pte_tag_name(slot->tag));
  }
  if (!st) m->input_set[index] = 1;
  return st;
}

pte_status pte_method_set_input_tensor(pte_method *m, int32_t index, const pte_tensor *t) {
  pte_value v;
  memset(&v, 0, sizeof v);
  v.tag = PTE_TAG_TENSOR;
  v.u.tensor = (pte_tensor *)t;
  return pte_method_set_input(m, index, &v);
}

const pte_value *pte_method_input(const pte_method *m, int32_t index) {
  if (!m || index < 0 || index >= m->num_inputs) return NULL;
  return &m->values[m->inputs[index]];
}

const pte_value *pte_method_output(const pte_method *m, int32_t index) {
  if (!m || index < 0 || index >= m->num_outputs) return NULL;
  return &m->values[m->outputs[index]];
}

pte_status pte_method_set_output(pte_method *m, int32_t index, void *data, size_t nbytes) {
  if (!m) return pte_error(PTE_ERR_INVALID_ARGUMENT, "method must not be NULL");
  if (index < 0 || index >= m->num_outputs)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' has %d outputs; index %d is out of range",
                     m->name, (int)m->num_outputs, (int)index);
  void *own = m->output_own[index];
  if (!own)
    return pte_error(PTE_ERR_INVALID_ARGUMENT,
                     "method '%s' output %d has memory of the program's (memory planned, constant or an "
                     "input): only an output the plan leaves unallocated takes the caller's memory",
                     m->name, (int)index);
  pte_tensor *t = m->values[m->outputs[index]].u.tensor;
  size_t need = t->capacity; /* at the upper bound, set at load */
  if (!data) {
    t->data = own;
    return PTE_OK;
  }
  if (nbytes < need)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' output %d needs %zu bytes, the caller gave %zu",
                     m->name, (int)index, need, nbytes);
  if ((uintptr_t)data % pte_dtype_size(t->dtype))
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method '%s' output %d: buffer is misaligned for %s", m->name,
                     (int)index, pte_dtype_name(t->dtype));
  t->data = data;
  return PTE_OK;
}

/* ---- kernel and backend contexts ---- */

void *pte_kernel_scratch(pte_kernel_ctx *ctx, size_t *size) {
  if (size) *size = ctx->method->scratch_size;
  return ctx->method->scratch;
}

const char *pte_kernel_name(const pte_kernel_ctx *ctx) { return ctx->name; }
const void *pte_kernel_state(const pte_kernel_ctx *ctx) { return ctx ? ctx->state : NULL; }

pte_status pte_kernel_fail(pte_kernel_ctx *ctx, pte_status status, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return pte_error(status, "%s: %s", ctx ? ctx->name : "kernel", msg);
}

void *pte_backend_scratch(const pte_backend_exec_ctx *ctx, size_t *size) {
  /* method memory is 64-byte aligned (pte_allocator's contract) */
  const bool have = ctx && ctx->method->backend_scratch;
  if (size) *size = have ? ctx->method->scratch_size : 0;
  return have ? ctx->method->scratch : NULL;
}

const pte_tracer *pte_backend_tracer(const pte_backend_exec_ctx *ctx) {
  return ctx ? ctx->method->tracer : NULL;
}
int32_t pte_backend_instruction(const pte_backend_exec_ctx *ctx) { return ctx ? ctx->instruction : -1; }
const char *pte_backend_exec_method(const pte_backend_exec_ctx *ctx) {
  return ctx ? ctx->method->name : NULL;
}

/* ---- execution ---- */

static pte_status jump_condition(const pte_value *v, bool *cond) {
  if (v->tag == PTE_TAG_BOOL) {
    *cond = v->u.b;
    return PTE_OK;
  }
  if (v->tag == PTE_TAG_TENSOR && v->u.tensor->dtype == PTE_BOOL) {
    const pte_tensor *t = v->u.tensor;
    int64_t n = pte_tensor_numel(t);
    if (n && !t->data) return pte_error(PTE_ERR_INVALID_STATE, "jump condition tensor has no data");
    *cond = true;
    for (int64_t i = 0; i < n; i++)
      if (!((const uint8_t *)t->data)[i]) *cond = false;
    return PTE_OK;
  }
  return pte_error(PTE_ERR_INVALID_PROGRAM, "jump condition is a %s, expected Bool or a bool tensor",
                   pte_tag_name(v->tag));
}

/* Whether output `v` of `in` was already handed over: the exporter lists the
 * outs again as the returns (the same tensor, or a list of them). */
static bool handed_before(const pte_instr *in, int32_t first, int32_t a, int32_t item, const pte_value *v) {
  for (int32_t b = first; b <= a; b++) {
    const pte_value *x = in->args[b];
    if (b < a && x == v) return true;
    if (x->tag == PTE_TAG_TENSOR_LIST) {
      int32_t n = b < a ? x->len : item;
      for (int32_t j = 0; j < n; j++)
        if (x->u.items[j] == v) return true;
    }
  }
  return false;
}

/* Hand the instruction's outputs (its trailing `nouts` arguments, see
 * count_outputs) to a debugging tracer, each tensor once, numbered from 0. */
static void trace_outputs(const pte_tracer *tr, const pte_event *ev, const pte_instr *in) {
  if (!tr->output || !tr->capture_outputs || in->nouts == 0) return;
  int32_t k = 0;
  const int32_t first = in->nargs - in->nouts;
  for (int32_t a = first; a < in->nargs; a++) {
    const pte_value *out = in->args[a];
    if (out->tag == PTE_TAG_TENSOR_LIST) {
      for (int32_t j = 0; j < out->len; j++)
        if (!handed_before(in, first, a, j, out->u.items[j])) tr->output(tr->user, ev, k++, out->u.items[j]);
    } else if (!handed_before(in, first, a, 0, out)) {
      tr->output(tr->user, ev, k++, out);
    }
  }
}

/* The interpreter loop. It is instantiated twice (see run_plain/run_traced):
 * with `traced` a compile-time false the tracer code disappears, so a method
 * without a tracer pays nothing per instruction for the hook, and the choice
 * costs one well-predicted branch per execute. */
#if defined(__GNUC__)
#define PTE_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define PTE_ALWAYS_INLINE inline
#endif
static PTE_ALWAYS_INLINE pte_status run(pte_method *m, const pte_tracer *tr, const bool traced) {
  struct pte_kernel_ctx kctx = {m, NULL, NULL};
  struct pte_backend_exec_ctx bctx = {m, 0};
  int64_t steps = 0;
  int32_t pc = 0;
  const int32_t n = m->num_instrs;
  while (pc < n) {
    if (PTE_UNLIKELY(++steps > m->max_instructions))
      return pte_error(PTE_ERR_INVALID_STATE, "method '%s' ran more than %lld instructions (a loop?)",
                       m->name, (long long)m->max_instructions);
    const pte_instr *in = &m->instrs[pc];
    if (!traced && in->kind == INSTR_FOLDED) { /* computed at load */
      pc++;
      continue;
    }
    pte_event ev;
    uint64_t tok = 0;
    if (traced) {
      static const int32_t kinds[] = {0,
                                      PTE_EVENT_OPERATOR,
                                      PTE_EVENT_DELEGATE,
                                      PTE_EVENT_MOVE,
                                      PTE_EVENT_JUMP,
                                      PTE_EVENT_FREE,
                                      PTE_EVENT_OPERATOR};
      ev.kind = kinds[in->kind];
      ev.chain = 0;
      ev.instruction = pc;
      ev.reserved = 0;
      ev.debug_id = -1;
      ev.name = in->name;
      ev.method = m->name;
      if (tr->begin) tok = tr->begin(tr->user, &ev);
    }
    pte_status st = PTE_OK;
    int32_t next = pc + 1;
    switch (in->kind) {
      case INSTR_KERNEL:
        kctx.name = in->name;
        kctx.state = in->state;
        st = in->fn(&kctx, in->args, in->nargs);
        break;
      case INSTR_DELEGATE: {
        const pte_delegate *d = &m->delegates[in->a];
        bctx.instruction = pc;
        st = d->backend->execute(d->backend->user, &bctx, d->handle, in->args, in->nargs);
        break;
      }
      case INSTR_FOLDED: break; /* traced runs still show it (and its output), at no cost */
      case INSTR_MOVE: m->values[in->b] = m->values[in->a]; break;
      case INSTR_JUMP_FALSE: {
        bool cond = false;
        st = jump_condition(&m->values[in->a], &cond);
        if (!st && !cond) next = in->b;
        break;
      }
      case INSTR_FREE: {
        pte_value *v = &m->values[in->a];
        /* Planned memory is reused by the next run; only unplanned data is dropped. */
        if (v->tag == PTE_TAG_TENSOR && !(v->u.tensor->flags & PTE_TENSOR_PLANNED)) v->u.tensor->data = NULL;
        break;
      }
    }
    if (traced) {
      if (tr->end) tr->end(tr->user, &ev, tok);
      if (!st) trace_outputs(tr, &ev, in);
    }
    if (PTE_UNLIKELY(st != PTE_OK)) {
      pte_error_prefix("method '%s' instruction %d (%s)", m->name, (int)pc, in->name);
      return st;
    }
    pc = next;
  }
  return PTE_OK;
}

static pte_status run_plain(pte_method *m) { return run(m, NULL, false); }

static pte_status run_traced(pte_method *m, const pte_tracer *tr) { return run(m, tr, true); }

pte_status pte_method_execute(pte_method *m) {
  if (!m) return pte_error(PTE_ERR_INVALID_ARGUMENT, "method is NULL");
  for (int32_t i = 0; i < m->num_inputs; i++)
    if (PTE_UNLIKELY(!m->input_set[i]))
      return pte_error(PTE_ERR_INVALID_STATE, "method '%s': input %d is not set", m->name, (int)i);
  const pte_tracer *tr = m->tracer;
  if (PTE_LIKELY(tr == NULL)) return run_plain(m);
  pte_event ev = {PTE_EVENT_EXECUTE, -1, -1, 0, -1, "Method::execute", m->name};
  uint64_t tok = tr->begin ? tr->begin(tr->user, &ev) : 0;
  pte_status st = run_traced(m, tr);
  if (tr->end) tr->end(tr->user, &ev, tok);
  /* Debugging tracers also see the method's outputs, with the EXECUTE event. */
  if (!st && tr->output && tr->capture_outputs)
    for (int32_t i = 0; i < m->num_outputs; i++) tr->output(tr->user, &ev, i, &m->values[m->outputs[i]]);
  return st;
}
