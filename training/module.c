/* Training modules: a joint forward-backward program, its metadata methods
 * and parameters in module memory. */
#include "training_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TR_META_GRAD "__et_training_gradients_index_"
#define TR_META_PARAM "__et_training_parameters_index_"
#define TR_META_FQN "__et_training_fqn_"

struct pte_training_module {
  pte_program *program;
  pte_method *method;
  int32_t count, grad_index, param_index;
  char **names;
  void **storage; /* the parameters' own memory */
  pte_tensor **params;
  const pte_tensor **grads;
  /* The caller's inputs (struct copies; the data stays the caller's): set
   * again before every forward_backward, since the memory plan may reuse a
   * planned input's bytes once the method has read them. */
  pte_tensor *inputs;
  bool *input_set;
  int32_t num_inputs;
};

void pte_training_free(pte_training_module *m) {
  if (!m) return;
  pte_method_free(m->method);
  pte_program_free(m->program);
  for (int32_t i = 0; i < m->count; i++) {
    if (m->names) free(m->names[i]);
    if (m->storage) free(m->storage[i]);
  }
  free(m->names);
  free(m->storage);
  free(m->params);
  free(m->grads);
  free(m->inputs);
  free(m->input_set);
  free(m);
}

/* Run metadata method `prefix<method>` (no inputs) and hand it back loaded. */
static pte_status run_meta(pte_program *p, const char *prefix, const char *method, pte_method **out) {
  char name[256];
  if ((size_t)snprintf(name, sizeof name, "%s%s", prefix, method) >= sizeof name)
    return pte_error(PTE_ERR_INVALID_ARGUMENT, "method name '%s' is too long", method);
  *out = NULL;
  bool found = false;
  for (int32_t i = 0; i < pte_program_method_count(p) && !found; i++)
    found = strcmp(pte_program_method_name(p, i), name) == 0;
  if (!found)
    return pte_error(PTE_ERR_INVALID_PROGRAM,
                     "not a training program: no method '%s' (export with "
                     "torch.export.experimental._export_forward_backward)",
                     name);
  pte_status st = pte_method_load(p, name, NULL, out);
  if (!st) st = pte_method_execute(*out);
  if (st) {
    pte_method_free(*out);
    *out = NULL;
  }
  return st;
}

static pte_status meta_index(pte_program *p, const char *prefix, const char *method, int32_t *index) {
  pte_method *mm;
  pte_status st = run_meta(p, prefix, method, &mm);
  if (st) return st;
  int64_t v = -1;
  const pte_value *o = pte_method_num_outputs(mm) == 1 ? pte_method_output(mm, 0) : NULL;
  bool ok = o && o->tag == PTE_TAG_INT && pte_value_to_int(o, &v) && v >= 0 && v <= INT32_MAX;
  pte_method_free(mm);
  if (!ok) return pte_error(PTE_ERR_INVALID_PROGRAM, "%s%s must return one non-negative int", prefix, method);
  *index = (int32_t)v;
  return PTE_OK;
}

static pte_status read_names(pte_training_module *m, const char *method) {
  pte_method *mm;
  pte_status st = run_meta(m->program, TR_META_FQN, method, &mm);
  if (st) return st;
  int32_t n = pte_method_num_outputs(mm);
  m->names = (char **)calloc((size_t)(n ? n : 1), sizeof *m->names);
  m->storage = (void **)calloc((size_t)(n ? n : 1), sizeof *m->storage);
  m->params = (pte_tensor **)calloc((size_t)(n ? n : 1), sizeof *m->params);
  m->grads = (const pte_tensor **)calloc((size_t)(n ? n : 1), sizeof *m->grads);
  if (!m->names || !m->storage || !m->params || !m->grads)
    st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  for (int32_t i = 0; i < n && !st; i++) {
    const pte_value *v = pte_method_output(mm, i);
    if (!v || v->tag != PTE_TAG_STRING) {
      st = pte_error(PTE_ERR_INVALID_PROGRAM, "%s%s output %d is not a string", TR_META_FQN, method, (int)i);
      break;
    }
    m->names[i] = (char *)malloc((size_t)v->len + 1);
    if (!m->names[i]) {
      st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
      break;
    }
    memcpy(m->names[i], v->u.str, (size_t)v->len);
    m->names[i][v->len] = '\0';
    m->count = i + 1;
  }
  pte_method_free(mm);
  return st;
}

/* Parameter i must be writable memory of its own. The joint export makes
 * parameters mutable state (planned memory the method fills from the
 * program at load, one slot each): used as they are. A parameter kept as a
 * program constant (read-only, and equal ones may share bytes) is copied
 * into module memory and the method's tensor pointed at the copy. */
static pte_status own_parameter(pte_training_module *m, int32_t i) {
  const pte_value *pv = pte_method_output(m->method, m->param_index + i);
  const pte_value *gv = pte_method_output(m->method, m->grad_index + i);
  if (!pv || pv->tag != PTE_TAG_TENSOR || !gv || gv->tag != PTE_TAG_TENSOR)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "parameter '%s' or its gradient is not a tensor", m->names[i]);
  pte_tensor *t = pv->u.tensor;
  if (!tr_is_float(t->dtype))
    return pte_error(PTE_ERR_NOT_SUPPORTED, "parameter '%s' has dtype %s (float32 or float64 needed)",
                     m->names[i], pte_dtype_name(t->dtype));
  if (!pte_tensor_is_contiguous(t) || (pte_tensor_numel(t) > 0 && !t->data) ||
      !(t->flags & (PTE_TENSOR_READONLY | PTE_TENSOR_PLANNED)))
    return pte_error(PTE_ERR_NOT_SUPPORTED,
                     "parameter '%s' is neither program state nor a contiguous constant", m->names[i]);
  const pte_tensor *g = gv->u.tensor;
  if (g->dtype != t->dtype || pte_tensor_numel(g) != pte_tensor_numel(t))
    return pte_error(PTE_ERR_INVALID_PROGRAM, "gradient of '%s' does not match the parameter", m->names[i]);
  if (t->flags & PTE_TENSOR_READONLY) {
    size_t bytes = pte_tensor_nbytes(t), rounded = (bytes + 63) & ~(size_t)63;
    m->storage[i] = aligned_alloc(64, rounded ? rounded : 64);
    if (!m->storage[i]) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory copying '%s'", m->names[i]);
    if (bytes) memcpy(m->storage[i], t->data, bytes);
    t->data = m->storage[i];
    t->capacity = bytes;
    t->flags &= ~PTE_TENSOR_READONLY;
  }
  m->params[i] = t;
  m->grads[i] = g;
  return PTE_OK;
}

pte_status pte_training_load_file(const char *path, const char *method, pte_training_module **out) {
  if (!path || !out) return pte_error(PTE_ERR_INVALID_ARGUMENT, "path and out must not be NULL");
  *out = NULL;
  if (!method) method = "forward";
  pte_training_module *m = (pte_training_module *)calloc(1, sizeof *m);
  if (!m) return pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  pte_status st = pte_program_load_file(path, NULL, &m->program);
  if (!st) st = meta_index(m->program, TR_META_GRAD, method, &m->grad_index);
  if (!st) st = meta_index(m->program, TR_META_PARAM, method, &m->param_index);
  if (!st) st = read_names(m, method);
  if (!st) st = pte_method_load(m->program, method, NULL, &m->method);
  if (!st) {
    int32_t no = pte_method_num_outputs(m->method);
    if (m->grad_index < 1 || m->grad_index > m->param_index || m->grad_index + m->count > m->param_index ||
        m->param_index + m->count > no)
      st = pte_error(
          PTE_ERR_INVALID_PROGRAM,
          "training metadata does not fit the method: gradients at %d, %d parameters at %d, %d outputs",
          (int)m->grad_index, (int)m->count, (int)m->param_index, (int)no);
  }
  for (int32_t i = 0; i < m->count && !st; i++) st = own_parameter(m, i);
  if (!st) {
    m->num_inputs = pte_method_num_inputs(m->method);
    m->inputs = (pte_tensor *)calloc((size_t)m->num_inputs + 1, sizeof *m->inputs);
    m->input_set = (bool *)calloc((size_t)m->num_inputs + 1, sizeof *m->input_set);
    if (!m->inputs || !m->input_set) st = pte_error(PTE_ERR_OUT_OF_MEMORY, "out of memory");
  }
  if (st) {
    pte_training_free(m);
    return st;
  }
  *out = m;
  return PTE_OK;
}

pte_method *pte_training_method(pte_training_module *m) { return m ? m->method : NULL; }

pte_status pte_training_set_input(pte_training_module *m, int32_t index, const pte_tensor *tensor) {
  if (!m || !tensor) return pte_error(PTE_ERR_INVALID_ARGUMENT, "module and tensor must not be NULL");
  pte_status st = pte_method_set_input_tensor(m->method, index, tensor);
  if (st) return st;
  m->inputs[index] = *tensor;
  m->input_set[index] = true;
  return PTE_OK;
}

pte_status pte_training_forward_backward(pte_training_module *m) {
  if (!m) return pte_error(PTE_ERR_INVALID_ARGUMENT, "module must not be NULL");
  for (int32_t i = 0; i < m->num_inputs; i++) {
    if (!m->input_set[i]) continue;
    pte_status st = pte_method_set_input_tensor(m->method, i, &m->inputs[i]);
    if (st) return st;
  }
  return pte_method_execute(m->method);
}

pte_status pte_training_loss(const pte_training_module *m, double *loss) {
  if (!m || !loss) return pte_error(PTE_ERR_INVALID_ARGUMENT, "module and loss must not be NULL");
  const pte_value *v = pte_method_output(m->method, 0);
  if (!v || v->tag != PTE_TAG_TENSOR || !tr_is_float(v->u.tensor->dtype) ||
      pte_tensor_numel(v->u.tensor) != 1)
    return pte_error(PTE_ERR_INVALID_PROGRAM, "output 0 (the loss) is not a float scalar tensor");
  *loss = tr_get(v->u.tensor, 0);
  return PTE_OK;
}

int32_t pte_training_output_count(const pte_training_module *m) { return m ? m->grad_index : 0; }

const pte_value *pte_training_output(const pte_training_module *m, int32_t index) {
  if (!m || index < 0 || index >= m->grad_index) return NULL;
  return pte_method_output(m->method, index);
}

int32_t pte_training_parameter_count(const pte_training_module *m) { return m ? m->count : 0; }

const char *pte_training_parameter_name(const pte_training_module *m, int32_t i) {
  return m && i >= 0 && i < m->count ? m->names[i] : NULL;
}

pte_tensor *pte_training_parameter(pte_training_module *m, int32_t i) {
  return m && i >= 0 && i < m->count ? m->params[i] : NULL;
}

pte_tensor *const *pte_training_parameters(pte_training_module *m) { return m ? m->params : NULL; }

const pte_tensor *const *pte_training_gradients(const pte_training_module *m) { return m ? m->grads : NULL; }

int32_t pte_training_parameter_index(const pte_training_module *m, const char *name) {
  for (int32_t i = 0; m && name && i < m->count; i++)
    if (strcmp(m->names[i], name) == 0) return i;
  return -1;
}
