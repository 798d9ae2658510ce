/* pterun._llm: the LLM runner's Python glue, its own extension over the same
 * shared libraries (libpterun, libpterun_llm, libpterun_threadpool), so it
 * shares the process's one registry and one pool with pterun._pterun.
 * pterun/llm.py builds the TextLLMRunner-shaped API on it. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pterun/llm.h>
#include <pterun/runtime.h>
#include <pterun/threadpool.h>

#include "glue.h"

typedef struct {
  PyObject_HEAD pte_llm_runner *r;
} RunnerObject;

static PyObject *raise_status(pte_status st) {
  PyErr_Format(PyExc_RuntimeError, "%s", glue_status_message(st));
  return NULL;
}

static int runner_init(RunnerObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"model_path", "tokenizer_path", "data_path", NULL};
  const char *model, *tok, *data = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "ss|z", kwlist, &model, &tok, &data)) return -1;
  pte_llm_runner_free(self->r);
  self->r = NULL;
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_llm_runner_create(model, data, tok, &self->r);
  Py_END_ALLOW_THREADS
  if (st) {
    raise_status(st);
    return -1;
  }
  return 0;
}

static void runner_dealloc(RunnerObject *self) {
  pte_llm_runner_free(self->r);
  glue_dealloc((PyObject *)self);
}

typedef struct {
  PyObject *callback;
  bool failed;
  pte_llm_runner *r;
} cb_ctx;

static void on_text(void *user, const char *text, size_t len) {
  cb_ctx *c = user;
  if (!c->callback || c->failed) return;
  PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
  PyObject *res = s ? PyObject_CallFunctionObjArgs(c->callback, s, NULL) : NULL;
  Py_XDECREF(s);
  if (!res) {
    c->failed = true; /* keep the exception; stop generating */
    pte_llm_runner_stop(c->r);
  }
  Py_XDECREF(res);
}

static PyObject *runner_generate(RunnerObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"prompt", "max_new_tokens", "temperature", "top_k", "top_p", "repetition_penalty",
                           "seed",   "echo",           "callback",    NULL};
  const char *prompt;
  pte_llm_config c = PTE_LLM_CONFIG_INIT;
  unsigned long long seed = 0;
  int echo = 0;
  PyObject *cb = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|ififfKpO", kwlist, &prompt, &c.max_new_tokens, &c.temperature,
                                   &c.top_k, &c.top_p, &c.repetition_penalty, &seed, &echo, &cb))
    return NULL;
  if (!self->r) return raise_status(PTE_ERR_INVALID_STATE);
  c.seed = seed;
  c.echo = echo != 0;
  cb_ctx ctx = {cb == Py_None ? NULL : cb, false, self->r};
  pte_llm_ids ids = {0};
  pte_llm_stats s;
  /* the callback is Python: the GIL stays held (the kernels use the pool) */
  pte_status st = pte_llm_runner_generate(self->r, prompt, &c, on_text, &ctx, &ids, &s);
  if (ctx.failed) {
    pte_llm_ids_free(&ids);
    return NULL;
  }
  if (st) {
    pte_llm_ids_free(&ids);
    return raise_status(st);
  }
  PyObject *list = PyList_New((Py_ssize_t)ids.n);
  for (size_t i = 0; list && i < ids.n; i++)
    PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromLong(ids.ids[i]));
  pte_llm_ids_free(&ids);
  PyObject *stats = Py_BuildValue(
      "{s:L,s:L,s:L,s:d,s:d,s:d,s:d,s:d,s:d,s:L,s:O}", "num_prompt_tokens", (long long)s.prompt_tokens,
      "num_generated_tokens", (long long)s.generated_tokens, "prefill_calls", (long long)s.prefill_calls,
      "load_ms", s.load_ms, "prefill_ms", s.prefill_ms, "ttft_ms", s.ttft_ms, "decode_ms", s.decode_ms,
      "prompt_tokens_per_s", s.prompt_tokens_per_s, "generated_tokens_per_s", s.generated_tokens_per_s,
      "peak_rss_bytes", (long long)s.peak_rss_bytes, "stopped_at_eos", s.stopped_at_eos ? Py_True : Py_False);
  if (!list || !stats) {
    Py_XDECREF(list);
    Py_XDECREF(stats);
    return NULL;
  }
  return Py_BuildValue("(NN)", list, stats);
}

static PyObject *runner_reset(RunnerObject *self, PyObject *u) {
  (void)u;
  if (self->r) pte_llm_runner_reset(self->r);
  Py_RETURN_NONE;
}

static PyObject *runner_stop(RunnerObject *self, PyObject *u) {
  (void)u;
  if (self->r) pte_llm_runner_stop(self->r);
  Py_RETURN_NONE;
}

static PyObject *runner_metadata(RunnerObject *self, PyObject *u) {
  (void)u;
  if (!self->r) return raise_status(PTE_ERR_INVALID_STATE);
  const pte_llm_metadata *m = pte_llm_runner_metadata(self->r);
  PyObject *eos = PyList_New(m->n_eos);
  for (int32_t i = 0; eos && i < m->n_eos; i++) PyList_SET_ITEM(eos, i, PyLong_FromLongLong(m->eos_ids[i]));
  if (!eos) return NULL;
  return Py_BuildValue("{s:L,s:L,s:L,s:L,s:N,s:i,s:i,s:L}", "max_seq_len", (long long)m->max_seq_len,
                       "max_context_len", (long long)m->max_context_len, "vocab_size",
                       (long long)m->vocab_size, "bos_id", (long long)m->bos_id, "eos_ids", eos,
                       "use_kv_cache", m->use_kv_cache, "enable_dynamic_shape", m->enable_dynamic_shape,
                       "max_prefill", (long long)m->max_prefill);
}

static PyObject *runner_encode(RunnerObject *self, PyObject *arg) {
  /* UTF-8 as bytes: PyUnicode_AsUTF8AndSize is limited API only from 3.10 */
  PyObject *utf8 = PyUnicode_Check(arg) ? PyUnicode_AsUTF8String(arg) : NULL;
  if (!utf8) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "encode takes a str");
    return NULL;
  }
  if (!self->r) {
    Py_DECREF(utf8);
    return raise_status(PTE_ERR_INVALID_STATE);
  }
  pte_llm_ids ids = {0};
  pte_status st = pte_llm_tokenizer_encode(pte_llm_runner_tokenizer(self->r), PyBytes_AS_STRING(utf8),
                                           (size_t)PyBytes_Size(utf8), &ids);
  Py_DECREF(utf8);
  if (st) return raise_status(st);
  PyObject *list = PyList_New((Py_ssize_t)ids.n);
  for (size_t i = 0; list && i < ids.n; i++)
    PyList_SET_ITEM(list, (Py_ssize_t)i, PyLong_FromLong(ids.ids[i]));
  pte_llm_ids_free(&ids);
  return list;
}

static PyMethodDef runner_methods[] = {
    {"generate", (PyCFunction)(void (*)(void))runner_generate, METH_VARARGS | METH_KEYWORDS,
     "Generate from a prompt: (ids, stats)."},
    {"reset", (PyCFunction)runner_reset, METH_NOARGS, "Start over at position 0."},
    {"stop", (PyCFunction)runner_stop, METH_NOARGS, "Stop a running generate after the current token."},
    {"metadata", (PyCFunction)runner_metadata, METH_NOARGS, "What the program's metadata methods say."},
    {"encode", (PyCFunction)runner_encode, METH_O, "Token ids of a text (no BOS)."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot RunnerType_slots[] = {
    {Py_tp_dealloc, (void *)runner_dealloc},
    {Py_tp_doc, (void *)"libpterun_llm's runner (internal; use pterun.llm.TextLLMRunner)."},
    {Py_tp_methods, (void *)runner_methods},
    {Py_tp_init, (void *)runner_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};
static PyType_Spec RunnerType_spec = {"pterun._llm.Runner", (int)sizeof(RunnerObject), 0, Py_TPFLAGS_DEFAULT,
                                      RunnerType_slots};
static PyTypeObject *RunnerType;

static PyObject *mod_threadpool_identity(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  return PyLong_FromVoidPtr((void *)pte_threadpool_identity());
}

static PyMethodDef module_methods[] = {{"registry_identity", glue_registry_identity, METH_NOARGS,
                                        "Address of the runtime's registry, as seen here."},
                                       {"threadpool_identity", mod_threadpool_identity, METH_NOARGS,
                                        "Address of the pool's state, as seen here."},
                                       {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def =
    GLUE_MODULE_DEF("_llm", "pterun LLM runner bindings (glue only).", module_methods);

PyMODINIT_FUNC PyInit__llm(void);

PyMODINIT_FUNC PyInit__llm(void) {
  if (!(RunnerType = glue_type(&RunnerType_spec))) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF((PyObject *)RunnerType);
  PyModule_AddObject(m, "Runner", (PyObject *)RunnerType);
  return m;
}
