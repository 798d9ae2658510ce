/* pterun._training: the training component's Python glue, its own
 * extension over the shared libraries (libpterun, libpterun_training), so
 * it shares the registry and kernels with pterun._pterun. Arrays cross as
 * (array, dtype code, shape), as python/pterun/training.py gives them. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pterun/runtime.h>
#include <pterun/training.h>

#include <stdlib.h>
#include <string.h>

#include "glue.h"

static PyObject *raise_status(pte_status st) {
  PyErr_Format(PyExc_RuntimeError, "%s", glue_status_message(st));
  return NULL;
}

/* ---- writable bytes over module memory that keep their owner alive ----
 * numpy views them in place through __array_interface__ (the buffer protocol
 * is not in the 3.9 limited API); the array's base holds the view. */

typedef struct {
  PyObject_HEAD PyObject *owner;
  void *data;
  Py_ssize_t len;
} ViewObject;

static PyObject *view_array_interface(ViewObject *self, void *c) {
  (void)c;
  return Py_BuildValue("{s:(NO),s:(n),s:s,s:i}", "data", PyLong_FromVoidPtr(self->data), Py_False, "shape",
                       self->len, "typestr", "|u1", "version", 3);
}

static PyGetSetDef view_getset[] = {
    {"__array_interface__", (getter)view_array_interface, NULL, "numpy's view of the bytes", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static void view_dealloc(ViewObject *self) {
  Py_XDECREF(self->owner);
  glue_dealloc((PyObject *)self);
}

static PyType_Slot ViewType_slots[] = {{Py_tp_dealloc, (void *)view_dealloc},
                                       {Py_tp_doc, (void *)"Bytes of a parameter (internal)."},
                                       {Py_tp_getset, (void *)view_getset},
                                       {0, NULL}};
static PyType_Spec ViewType_spec = {"pterun._training.View", (int)sizeof(ViewObject), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, ViewType_slots};
static PyTypeObject *ViewType;

/* (view, dtype code, shape) of a tensor over memory `owner` keeps alive. */
static PyObject *tensor_view(PyObject *owner, const pte_tensor *t) {
  ViewObject *v = PyObject_New(ViewObject, ViewType);
  if (!v) return NULL;
  Py_INCREF(owner);
  v->owner = owner;
  v->data = t->data;
  v->len = (Py_ssize_t)pte_tensor_nbytes(t);
  PyObject *shape = PyTuple_New(t->dim);
  for (int32_t d = 0; shape && d < t->dim; d++) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t->sizes[d]));
  if (!shape) {
    Py_DECREF(v);
    return NULL;
  }
  return Py_BuildValue("(NiN)", (PyObject *)v, (int)t->dtype, shape);
}

/* (bytes, dtype code, shape): a copy, for values that change every step. */
static PyObject *tensor_copy(const pte_tensor *t) {
  PyObject *shape = PyTuple_New(t->dim);
  for (int32_t d = 0; shape && d < t->dim; d++) PyTuple_SET_ITEM(shape, d, PyLong_FromLongLong(t->sizes[d]));
  if (!shape) return NULL;
  if (!pte_tensor_is_contiguous(t)) {
    Py_DECREF(shape);
    PyErr_SetString(PyExc_RuntimeError, "output is not contiguous");
    return NULL;
  }
  return Py_BuildValue("(y#iN)", (const char *)t->data, (Py_ssize_t)pte_tensor_nbytes(t), (int)t->dtype,
                       shape);
}

/* An array argument (contiguous) described as a tensor; *held must be released. */
static int arg_tensor(PyObject *spec, bool writable, glue_array *held, pte_tensor *t) {
  PyObject *obj, *shape;
  int dtype;
  if (!PyArg_ParseTuple(spec, "OiO!", &obj, &dtype, &PyTuple_Type, &shape)) return -1;
  if (glue_array_get(obj, writable ? GLUE_WRITABLE : 0, held)) return -1;
  int64_t sizes[PTE_MAX_DIM];
  Py_ssize_t dim = PyTuple_GET_SIZE(shape);
  if (dim > PTE_MAX_DIM) goto bad;
  for (Py_ssize_t d = 0; d < dim; d++) {
    sizes[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
    if (sizes[d] < 0) goto bad;
  }
  if (pte_tensor_init(t, dtype, (int32_t)dim, sizes, held->data) != PTE_OK || pte_dtype_size(dtype) == 0 ||
      (Py_ssize_t)pte_tensor_nbytes(t) != held->nbytes)
    goto bad;
  return 0;
bad:
  glue_array_release(held);
  if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "array does not match its dtype and shape");
  return -1;
}

/* ---- Module ---- */

typedef struct {
  PyObject_HEAD pte_training_module *m;
} ModuleObject;

static int module_init(ModuleObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path", "method", NULL};
  PyObject *path;
  const char *method = "forward";
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O&|s", kwlist, PyUnicode_FSConverter, &path, &method))
    return -1;
  pte_training_free(self->m);
  self->m = NULL;
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_training_load_file(PyBytes_AS_STRING(path), method, &self->m);
  Py_END_ALLOW_THREADS
  Py_DECREF(path);
  if (st) {
    raise_status(st);
    return -1;
  }
  return 0;
}

static void module_dealloc(ModuleObject *self) {
  pte_training_free(self->m);
  glue_dealloc((PyObject *)self);
}

static PyObject *module_parameter_names(ModuleObject *self, PyObject *unused) {
  int32_t n = pte_training_parameter_count(self->m);
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; i++) {
    PyObject *s = PyUnicode_FromString(pte_training_parameter_name(self->m, i));
    if (!s) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, s);
  }
  return list;
}

static PyObject *module_parameter(ModuleObject *self, PyObject *arg) {
  long i = PyLong_AsLong(arg);
  if (i == -1 && PyErr_Occurred()) return NULL;
  pte_tensor *t = pte_training_parameter(self->m, (int32_t)i);
  if (!t) return PyErr_Format(PyExc_IndexError, "parameter %ld out of range", i);
  return tensor_view((PyObject *)self, t);
}

static PyObject *module_gradients(ModuleObject *self, PyObject *unused) {
  int32_t n = pte_training_parameter_count(self->m);
  const pte_tensor *const *g = pte_training_gradients(self->m);
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; i++) {
    PyObject *c = tensor_copy(g[i]);
    if (!c) Py_CLEAR(list);
    else PyList_SET_ITEM(list, i, c);
  }
  return list;
}

/* forward_backward([(buffer, dtype, shape), ...]): every input, each step. */
static PyObject *module_forward_backward(ModuleObject *self, PyObject *arg) {
  if (!PyList_Check(arg)) return PyErr_Format(PyExc_TypeError, "inputs must be a list");
  Py_ssize_t n = PyList_GET_SIZE(arg);
  int32_t want = pte_method_num_inputs(pte_training_method(self->m));
  if (n != want) return PyErr_Format(PyExc_ValueError, "the method takes %d inputs, got %zd", (int)want, n);
  glue_array *held = (glue_array *)calloc((size_t)n + 1, sizeof *held);
  if (!held) return PyErr_NoMemory();
  Py_ssize_t got = 0;
  pte_status st = PTE_OK;
  for (; got < n; got++) {
    pte_tensor t;
    if (arg_tensor(PyList_GET_ITEM(arg, got), false, &held[got], &t)) break;
    if ((st = pte_training_set_input(self->m, (int32_t)got, &t))) {
      got++;
      break;
    }
  }
  PyObject *result = NULL;
  if (!PyErr_Occurred() && !st) {
    Py_BEGIN_ALLOW_THREADS
      st = pte_training_forward_backward(self->m);
    Py_END_ALLOW_THREADS
  }
  if (!PyErr_Occurred() && st) raise_status(st);
  if (!PyErr_Occurred()) {
    int32_t no = pte_training_output_count(self->m);
    result = PyList_New(no);
    for (int32_t i = 0; result && i < no; i++) {
      const pte_value *v = pte_training_output(self->m, i);
      PyObject *o = v && v->tag == PTE_TAG_TENSOR
                        ? tensor_copy(v->u.tensor)
                        : PyErr_Format(PyExc_RuntimeError, "output %d is not a tensor", i);
      if (!o) Py_CLEAR(result);
      else PyList_SET_ITEM(result, i, o);
    }
  }
  for (Py_ssize_t i = 0; i < got; i++) glue_array_release(&held[i]);
  free(held);
  return result;
}

static PyObject *module_save_ptd(ModuleObject *self, PyObject *args) {
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
  pte_status st = pte_training_save_ptd(self->m, PyBytes_AS_STRING(path));
  Py_DECREF(path);
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyMethodDef module_methods_[] = {
    {"parameter_names", (PyCFunction)module_parameter_names, METH_NOARGS, "Parameter names, in order."},
    {"parameter", (PyCFunction)module_parameter, METH_O, "(writable buffer, dtype, shape) of parameter i."},
    {"gradients", (PyCFunction)module_gradients, METH_NOARGS, "[(bytes, dtype, shape)] of the last step."},
    {"forward_backward", (PyCFunction)module_forward_backward, METH_O,
     "Run forward and backward on [(buffer, dtype, shape)]; the outputs, loss first."},
    {"save_ptd", (PyCFunction)module_save_ptd, METH_VARARGS, "Write the parameters to a .ptd file."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot ModuleType_slots[] = {
    {Py_tp_dealloc, (void *)module_dealloc},
    {Py_tp_doc, (void *)"A training program (internal; use pterun.training.load())."},
    {Py_tp_methods, (void *)module_methods_},
    {Py_tp_init, (void *)module_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};
static PyType_Spec ModuleType_spec = {"pterun._training.Module", (int)sizeof(ModuleObject), 0,
                                      Py_TPFLAGS_DEFAULT, ModuleType_slots};
static PyTypeObject *ModuleType;

/* ---- SGD ---- */

typedef struct {
  PyObject_HEAD pte_training_sgd *sgd;
  glue_array *held; /* the parameters' memory, held while the optimizer lives */
  pte_tensor *tensors;
  Py_ssize_t count;
} SGDObject;

static void sgd_clear(SGDObject *self) {
  pte_training_sgd_free(self->sgd);
  self->sgd = NULL;
  for (Py_ssize_t i = 0; i < self->count; i++) glue_array_release(&self->held[i]);
  free(self->held);
  free(self->tensors);
  self->held = NULL;
  self->tensors = NULL;
  self->count = 0;
}

static int sgd_init(SGDObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"params", "lr", "momentum", "dampening", "weight_decay", "nesterov", NULL};
  PyObject *params;
  pte_training_sgd_options o = PTE_TRAINING_SGD_OPTIONS_INIT;
  int nesterov = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!d|dddp", kwlist, &PyList_Type, &params, &o.lr, &o.momentum,
                                   &o.dampening, &o.weight_decay, &nesterov))
    return -1;
  o.nesterov = nesterov != 0;
  sgd_clear(self);
  Py_ssize_t n = PyList_GET_SIZE(params);
  self->held = (glue_array *)calloc((size_t)n + 1, sizeof *self->held);
  self->tensors = (pte_tensor *)calloc((size_t)n + 1, sizeof *self->tensors);
  pte_tensor **ptrs = (pte_tensor **)calloc((size_t)n + 1, sizeof *ptrs);
  if (!self->held || !self->tensors || !ptrs) {
    free(ptrs);
    PyErr_NoMemory();
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    if (arg_tensor(PyList_GET_ITEM(params, i), true, &self->held[i], &self->tensors[i])) {
      free(ptrs);
      return -1;
    }
    self->count = i + 1;
    ptrs[i] = &self->tensors[i];
  }
  pte_status st = pte_training_sgd_create(ptrs, (int32_t)n, &o, &self->sgd);
  free(ptrs);
  if (st) {
    raise_status(st);
    return -1;
  }
  return 0;
}

static void sgd_dealloc(SGDObject *self) {
  sgd_clear(self);
  glue_dealloc((PyObject *)self);
}

static PyObject *sgd_step(SGDObject *self, PyObject *arg) {
  if (!self->sgd) return PyErr_Format(PyExc_RuntimeError, "optimizer is not initialized");
  if (!PyList_Check(arg)) return PyErr_Format(PyExc_TypeError, "gradients must be a list");
  Py_ssize_t n = PyList_GET_SIZE(arg);
  glue_array *held = (glue_array *)calloc((size_t)n + 1, sizeof *held);
  pte_tensor *t = (pte_tensor *)calloc((size_t)n + 1, sizeof *t);
  const pte_tensor **ptrs = (const pte_tensor **)calloc((size_t)n + 1, sizeof *ptrs);
  Py_ssize_t got = 0;
  if (!held || !t || !ptrs) PyErr_NoMemory();
  for (; !PyErr_Occurred() && got < n; got++) {
    if (arg_tensor(PyList_GET_ITEM(arg, got), false, &held[got], &t[got])) break;
    ptrs[got] = &t[got];
  }
  pte_status st = PTE_OK;
  if (!PyErr_Occurred()) st = pte_training_sgd_step(self->sgd, ptrs, (int32_t)n);
  for (Py_ssize_t i = 0; i < got; i++) glue_array_release(&held[i]);
  free(held);
  free(t);
  free(ptrs);
  if (PyErr_Occurred()) return NULL;
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyObject *sgd_set_lr(SGDObject *self, PyObject *arg) {
  double lr = PyFloat_AsDouble(arg);
  if (lr == -1.0 && PyErr_Occurred()) return NULL;
  pte_status st = pte_training_sgd_set_lr(self->sgd, lr);
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyMethodDef sgd_methods[] = {
    {"step", (PyCFunction)sgd_step, METH_O, "One step with [(buffer, dtype, shape)] gradients."},
    {"set_lr", (PyCFunction)sgd_set_lr, METH_O, "Change the learning rate."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot SGDType_slots[] = {
    {Py_tp_dealloc, (void *)sgd_dealloc},
    {Py_tp_doc, (void *)"SGD over parameter buffers (internal; use pterun.training.SGD)."},
    {Py_tp_methods, (void *)sgd_methods},
    {Py_tp_init, (void *)sgd_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};
static PyType_Spec SGDType_spec = {"pterun._training.SGD", (int)sizeof(SGDObject), 0, Py_TPFLAGS_DEFAULT,
                                   SGDType_slots};
static PyTypeObject *SGDType;

static PyMethodDef module_functions[] = {{"registry_identity", glue_registry_identity, METH_NOARGS,
                                          "Address of the runtime's registry, as this extension sees it."},
                                         {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def =
    GLUE_MODULE_DEF("_training", "pterun training bindings (glue only).", module_functions);

PyMODINIT_FUNC PyInit__training(void);

PyMODINIT_FUNC PyInit__training(void) {
  if (!(ViewType = glue_type(&ViewType_spec)) || !(ModuleType = glue_type(&ModuleType_spec)) ||
      !(SGDType = glue_type(&SGDType_spec)))
    return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF((PyObject *)ModuleType);
  PyModule_AddObject(m, "Module", (PyObject *)ModuleType);
  Py_INCREF((PyObject *)SGDType);
  PyModule_AddObject(m, "SGD", (PyObject *)SGDType);
  return m;
}
