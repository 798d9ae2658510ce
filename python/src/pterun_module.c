/* pterun._pterun: the Python glue. It links the shared pterun libraries and
 * holds nothing of its own beyond argument conversion: programs, methods and
 * registries all live in libpterun. numpy conversion happens in Python
 * (pterun/__init__.py); this module reads memory through glue.h. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pterun/runtime.h>

#include <string.h>

#include "glue.h"
#include "pterun_components.h"

static PyObject *g_error; /* pterun.Error */

/* Raise pterun.Error with the runtime's message; .status names the code. */
static PyObject *raise_status(pte_status st) {
  PyObject *exc = PyObject_CallFunction(g_error, "s", glue_status_message(st));
  if (!exc) return NULL;
  PyObject *name = PyUnicode_FromString(pte_status_name(st));
  if (name) {
    PyObject_SetAttrString(exc, "status", name);
    Py_DECREF(name);
  }
  PyErr_SetObject(g_error, exc);
  Py_DECREF(exc);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Program                                                                */
/* ---------------------------------------------------------------------- */

#define MAX_MAPS 16

typedef struct {
  PyObject_HEAD pte_program *program;
  pte_data_map *maps[MAX_MAPS];
  void *map_bytes[MAX_MAPS]; /* copies of .ptd buffers given as bytes (a map reads them in place) */
  int nmaps;
} ProgramObject;

static void program_dealloc(ProgramObject *self) {
  pte_program_free(self->program);
  for (int i = 0; i < self->nmaps; i++) {
    pte_data_map_free(self->maps[i]);
    PyMem_Free(self->map_bytes[i]);
  }
  glue_dealloc((PyObject *)self);
}

static PyObject *io_dict(const pte_io_info *io) {
  if (io->tag != PTE_TAG_TENSOR) return Py_BuildValue("{s:s}", "kind", pte_tag_name(io->tag));
  PyObject *shape = PyTuple_New(io->dim);
  if (!shape) return NULL;
  for (int32_t i = 0; i < io->dim; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(io->sizes[i]));
  PyObject *d = Py_BuildValue("{s:s,s:s,s:i,s:N,s:O,s:O,s:n}", "kind", "Tensor", "dtype",
                              pte_dtype_name(io->dtype), "dtype_code", (int)io->dtype, "shape", shape,
                              "dynamic", io->dynamism ? Py_True : Py_False, "planned",
                              io->planned ? Py_True : Py_False, "nbytes", (Py_ssize_t)io->nbytes);
  return d;
}

static PyObject *program_method_names(ProgramObject *self, PyObject *unused) {
  int32_t n = pte_program_method_count(self->program);
  PyObject *list = PyList_New(n);
  if (!list) return NULL;
  for (int32_t i = 0; i < n; i++)
    PyList_SET_ITEM(list, i, PyUnicode_FromString(pte_program_method_name(self->program, i)));
  return list;
}

/* [(name, slot)] of the method's attributes (pte_program_method_attribute). */
static PyObject *method_attributes(const pte_program *p, const char *method) {
  int32_t n;
  pte_status st = pte_program_method_num_attributes(p, method, &n);
  if (st) return raise_status(st);
  PyObject *list = PyList_New(n);
  for (int32_t i = 0; list && i < n; i++) {
    const char *an;
    pte_io_info info;
    PyObject *d = NULL;
    if ((st = pte_program_method_attribute(p, method, i, &an, &info))) raise_status(st);
    else d = io_dict(&info);
    PyObject *item = d ? Py_BuildValue("(sN)", an, d) : NULL;
    if (!item) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

static PyObject *program_method_info(ProgramObject *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  pte_method_info mi;
  pte_status st = pte_program_method_info(self->program, name, &mi);
  if (st) return raise_status(st);
  PyObject *inputs = PyList_New(0), *outputs = PyList_New(0), *ops = PyList_New(0), *dels = PyList_New(0),
           *planned = PyList_New(0);
  if (!inputs || !outputs || !ops || !dels || !planned) goto fail;
  for (int io = 0; io < 2; io++) {
    int32_t n = io ? mi.num_outputs : mi.num_inputs;
    for (int32_t i = 0; i < n; i++) {
      pte_io_info info;
      st = io ? pte_program_method_output(self->program, name, i, &info)
              : pte_program_method_input(self->program, name, i, &info);
      if (st) {
        raise_status(st);
        goto fail;
      }
      PyObject *d = io_dict(&info);
      if (!d || PyList_Append(io ? outputs : inputs, d)) {
        Py_XDECREF(d);
        goto fail;
      }
      Py_DECREF(d);
    }
  }
  for (int32_t i = 0; i < mi.num_operators; i++) {
    const char *on, *ov;
    if ((st = pte_program_method_operator(self->program, name, i, &on, &ov))) {
      raise_status(st);
      goto fail;
    }
    PyObject *s = PyUnicode_FromFormat("%s%s%s", on, ov[0] ? "." : "", ov);
    if (!s || PyList_Append(ops, s)) {
      Py_XDECREF(s);
      goto fail;
    }
    Py_DECREF(s);
  }
  for (int32_t i = 0; i < mi.num_delegates; i++) {
    const char *id;
    if ((st = pte_program_method_delegate(self->program, name, i, &id))) {
      raise_status(st);
      goto fail;
    }
    PyObject *s = PyUnicode_FromString(id);
    if (!s || PyList_Append(dels, s)) {
      Py_XDECREF(s);
      goto fail;
    }
    Py_DECREF(s);
  }
  for (int32_t i = 0; i < mi.num_planned_buffers; i++) {
    int64_t b = 0;
    pte_program_method_planned_size(self->program, name, i, &b);
    PyObject *v = PyLong_FromLongLong(b);
    if (!v || PyList_Append(planned, v)) {
      Py_XDECREF(v);
      goto fail;
    }
    Py_DECREF(v);
  }
  PyObject *attrs = method_attributes(self->program, name);
  if (!attrs) goto fail;
  return Py_BuildValue("{s:s,s:N,s:N,s:N,s:N,s:N,s:i,s:N}", "name", name, "inputs", inputs, "outputs",
                       outputs, "operators", ops, "delegates", dels, "planned_buffers", planned,
                       "instructions", (int)mi.num_instructions, "attributes", attrs);
fail:
  Py_XDECREF(inputs);
  Py_XDECREF(outputs);
  Py_XDECREF(ops);
  Py_XDECREF(dels);
  Py_XDECREF(planned);
  return NULL;
}

static PyObject *method_new(ProgramObject *program, const char *name, const pte_tracer *tracer);

/* load_method(name, tracer=None): `tracer` is a pte_tracer address from
 * another extension (pterun._profiler), given at load so it sees the load too. */
static PyObject *program_load_method(ProgramObject *self, PyObject *args) {
  const char *name;
  PyObject *tracer = Py_None;
  if (!PyArg_ParseTuple(args, "s|O", &name, &tracer)) return NULL;
  const pte_tracer *t = NULL;
  if (tracer != Py_None) {
    t = (const pte_tracer *)PyLong_AsVoidPtr(tracer);
    if (!t) {
      if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null tracer handle");
      return NULL;
    }
  }
  return method_new(self, name, t);
}

static PyMethodDef program_methods[] = {
    {"method_names", (PyCFunction)program_method_names, METH_NOARGS, "Names of the program's methods."},
    {"method_info", (PyCFunction)program_method_info, METH_VARARGS,
     "Metadata of a method, without loading it."},
    {"load_method", (PyCFunction)program_load_method, METH_VARARGS, "Load a method."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot ProgramType_slots[] = {
    {Py_tp_dealloc, (void *)program_dealloc},
    {Py_tp_doc, (void *)"A loaded program (internal; use pterun.load)."},
    {Py_tp_methods, (void *)program_methods},
    {0, NULL}};
static PyType_Spec ProgramType_spec = {"pterun._pterun.Program", (int)sizeof(ProgramObject), 0,
                                       Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                       ProgramType_slots};
static PyTypeObject *ProgramType;

/* Attach the data maps of `data_obj` (None or a sequence of paths and
 * bytes-like objects) to self; buffers are copied so the caller may drop them. */
static int load_maps(ProgramObject *self, PyObject *data_obj) {
  if (data_obj == Py_None) return 0;
  PyObject *seq = PySequence_Fast(data_obj, "data must be a path, a buffer or a sequence of them");
  if (!seq) return -1;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > MAX_MAPS) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "too many data files");
    return -1;
  }
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
    pte_status st;
    int k = self->nmaps;
    self->map_bytes[k] = NULL;
    if (!PyUnicode_Check(item) && !PyObject_HasAttrString(item, "__fspath__")) {
      glue_array b;
      if (glue_array_get(item, 0, &b)) goto fail;
      /* the allocator's blocks are aligned for any scalar, which the map's tensors need */
      self->map_bytes[k] = PyMem_Malloc(b.nbytes ? (size_t)b.nbytes : 1);
      if (!self->map_bytes[k]) {
        glue_array_release(&b);
        PyErr_NoMemory();
        goto fail;
      }
      memcpy(self->map_bytes[k], b.data, (size_t)b.nbytes);
      size_t len = (size_t)b.nbytes;
      glue_array_release(&b);
      st = pte_data_map_load_buffer(self->map_bytes[k], len, NULL, &self->maps[k]);
    } else {
      PyObject *p = NULL;
      if (!PyUnicode_FSConverter(item, &p)) goto fail;
      const char *cp = PyBytes_AS_STRING(p);
      Py_BEGIN_ALLOW_THREADS
        st = pte_data_map_load_file(cp, NULL, &self->maps[k]);
      Py_END_ALLOW_THREADS
      Py_DECREF(p);
    }
    if (st) {
      PyMem_Free(self->map_bytes[k]);
      raise_status(st);
      goto fail;
    }
    self->nmaps++;
  }
  Py_DECREF(seq);
  return 0;
fail:
  Py_DECREF(seq);
  return -1;
}

static ProgramObject *program_alloc(void) {
  ProgramObject *self = PyObject_New(ProgramObject, ProgramType);
  if (!self) return NULL;
  self->program = NULL;
  self->nmaps = 0;
  return self;
}

/* load(path, data=None): data is None or a sequence of .ptd paths or buffers. */
static PyObject *mod_load(PyObject *mod, PyObject *args) {
  PyObject *path_obj, *data_obj = Py_None;
  if (!PyArg_ParseTuple(args, "O&|O", PyUnicode_FSConverter, &path_obj, &data_obj)) return NULL;
  ProgramObject *self = program_alloc();
  if (!self || load_maps(self, data_obj)) goto error;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.data_maps = self->maps;
  po.num_data_maps = self->nmaps;
  const char *cpath = PyBytes_AS_STRING(path_obj);
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_program_load_file(cpath, &po, &self->program);
  Py_END_ALLOW_THREADS
  if (st) {
    raise_status(st);
    goto error;
  }
  Py_DECREF(path_obj);
  return (PyObject *)self;
error:
  Py_DECREF(path_obj);
  Py_XDECREF((PyObject *)self);
  return NULL;
}

/* load_buffer(buffer, data=None): the program's bytes are copied (aligned by
 * the runtime), so any bytes-like object will do and may be dropped after. */
static PyObject *mod_load_buffer(PyObject *mod, PyObject *args) {
  glue_array b;
  PyObject *obj, *data_obj = Py_None;
  if (!PyArg_ParseTuple(args, "O|O", &obj, &data_obj) || glue_array_get(obj, 0, &b)) return NULL;
  ProgramObject *self = program_alloc();
  if (!self || load_maps(self, data_obj)) goto error;
  pte_program_options po = PTE_PROGRAM_OPTIONS_INIT;
  po.data_maps = self->maps;
  po.num_data_maps = self->nmaps;
  po.flags = PTE_LOAD_COPY;
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_program_load_buffer(b.data, (size_t)b.nbytes, &po, &self->program);
  Py_END_ALLOW_THREADS
  if (st) {
    raise_status(st);
    goto error;
  }
  glue_array_release(&b);
  return (PyObject *)self;
error:
  glue_array_release(&b);
  Py_XDECREF((PyObject *)self);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Method                                                                 */
/* ---------------------------------------------------------------------- */

#define MAX_INPUTS 16

typedef struct {
  PyObject_HEAD ProgramObject *program; /* keeps the program alive */
  pte_method *method;
  /* The inputs last set: unplanned inputs are read in place at execute, so
   * their buffers stay held until the next set_inputs. */
  glue_array views[MAX_INPUTS];
  pte_tensor tensors[MAX_INPUTS];
  int nviews;
  PyObject *inputs_owner; /* a bundled program whose case is the current input */
} MethodObject;

static void release_views(MethodObject *self) {
  for (int k = 0; k < self->nviews; k++) glue_array_release(&self->views[k]);
  self->nviews = 0;
  Py_CLEAR(self->inputs_owner);
}

static void method_dealloc(MethodObject *self) {
  pte_method_free(self->method);
  release_views(self);
  Py_XDECREF((PyObject *)self->program);
  glue_dealloc((PyObject *)self);
}

static PyObject *method_new(ProgramObject *program, const char *name, const pte_tracer *tracer) {
  MethodObject *self = NULL;
  extern PyTypeObject *MethodType;
  self = PyObject_New(MethodObject, MethodType);
  if (!self) return NULL;
  self->method = NULL;
  self->nviews = 0;
  self->inputs_owner = NULL;
  Py_INCREF((PyObject *)program);
  self->program = program;
  pte_status st;
  pte_method_options o = PTE_METHOD_OPTIONS_INIT;
  o.tracer = tracer;
  Py_BEGIN_ALLOW_THREADS
    st = pte_method_load(program->program, name, &o, &self->method);
  Py_END_ALLOW_THREADS
  if (st) {
    Py_DECREF(self);
    return raise_status(st);
  }
  return (PyObject *)self;
}

static PyObject *value_to_py(const pte_value *v) {
  switch (v->tag) {
    case PTE_TAG_INT: return PyLong_FromLongLong(v->u.i);
    case PTE_TAG_DOUBLE: return PyFloat_FromDouble(v->u.d);
    case PTE_TAG_BOOL: return PyBool_FromLong(v->u.b);
    case PTE_TAG_NONE: Py_RETURN_NONE;
    case PTE_TAG_STRING: return PyUnicode_FromString(v->u.str);
    case PTE_TAG_TENSOR: {
      const pte_tensor *t = v->u.tensor;
      size_t n = pte_tensor_nbytes(t);
      if (n && !t->data) {
        PyErr_SetString(g_error, "output tensor has no data");
        return NULL;
      }
      PyObject *bytes = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)n);
      if (!bytes) return NULL;
      if (n) { /* row-major for numpy, whatever the tensor's dim order */
        pte_tensor dst;
        pte_status st = pte_tensor_init(&dst, t->dtype, t->dim, t->sizes, PyByteArray_AS_STRING(bytes));
        if (!st) st = pte_tensor_copy(&dst, t);
        if (st) {
          Py_DECREF(bytes);
          return raise_status(st);
        }
      }
      PyObject *shape = PyTuple_New(t->dim);
      if (!shape) {
        Py_DECREF(bytes);
        return NULL;
      }
      for (int32_t i = 0; i < t->dim; i++) PyTuple_SET_ITEM(shape, i, PyLong_FromLongLong(t->sizes[i]));
      return Py_BuildValue("(NiN)", bytes, (int)t->dtype, shape);
    }
    default: return PyUnicode_FromFormat("<%s>", pte_tag_name(v->tag));
  }
}

/* A tensor input from an array: its own typestr names the dtype, or, for
 * dtypes numpy does not spell (bfloat16, float8, ...), the tuple
 * (buffer, dtype_code, shape) gives them over raw bytes. */
static int tensor_from_input(MethodObject *self, Py_ssize_t i, PyObject *o, pte_tensor *t) {
  PyObject *buf_obj = o, *shape_obj = NULL;
  int dt = -1;
  if (PyTuple_Check(o)) {
    if (!PyArg_ParseTuple(o, "OiO", &buf_obj, &dt, &shape_obj)) return -1;
    if (pte_dtype_size(dt) == 0) {
      PyErr_Format(g_error, "input %zd: unknown dtype code %d", i, dt);
      return -1;
    }
  }
  glue_array *b = &self->views[self->nviews];
  if (glue_array_get(buf_obj, 0, b)) return -1;
  self->nviews++;
  int64_t sizes[PTE_MAX_DIM];
  int ndim;
  if (shape_obj) {
    PyObject *seq = PySequence_Fast(shape_obj, "shape must be a sequence");
    if (!seq) return -1;
    ndim = (int)PySequence_Fast_GET_SIZE(seq);
    if (ndim > PTE_MAX_DIM) {
      Py_DECREF(seq);
      PyErr_Format(g_error, "input %zd: too many dimensions", i);
      return -1;
    }
    int64_t numel = 1;
    for (int k = 0; k < ndim; k++) {
      sizes[k] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, k));
      if (sizes[k] < 0) {
        Py_DECREF(seq);
        if (!PyErr_Occurred()) PyErr_Format(g_error, "input %zd: negative size", i);
        return -1;
      }
      numel *= sizes[k];
    }
    Py_DECREF(seq);
    if ((uint64_t)b->nbytes != (uint64_t)numel * pte_dtype_size(dt)) {
      PyErr_Format(g_error, "input %zd: %zd bytes for a %s tensor of %lld elements", i, b->nbytes,
                   pte_dtype_name(dt), (long long)numel);
      return -1;
    }
  } else {
    dt = b->dtype;
    if (dt < 0) {
      PyErr_Format(g_error, "input %zd: unsupported array dtype '%s'", i, b->typestr);
      return -1;
    }
    ndim = b->ndim;
    memcpy(sizes, b->shape, sizeof(int64_t) * (size_t)ndim);
  }
  pte_status st = pte_tensor_init(t, dt, ndim, sizes, b->data);
  if (st) {
    raise_status(st);
    return -1;
  }
  return 0;
}

/* set_inputs(inputs): check and bind every input of the method. */
static PyObject *method_set_inputs(MethodObject *self, PyObject *arg) {
  PyObject *seq = PySequence_Fast(arg, "inputs must be a sequence");
  if (!seq) return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  int32_t want = pte_method_num_inputs(self->method);
  if (n != want) {
    Py_DECREF(seq);
    return PyErr_Format(g_error, "method '%s' takes %d inputs, %zd given", pte_method_name(self->method),
                        (int)want, n);
  }
  if (n > MAX_INPUTS) {
    Py_DECREF(seq);
    return PyErr_Format(g_error, "too many inputs (%zd)", n);
  }
  release_views(self);
  PyObject *result = NULL;
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
    pte_value v;
    memset(&v, 0, sizeof v);
    /* numpy scalars are arrays too (np.float64 is also a float) */
    if (PyTuple_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) || PyMemoryView_Check(o) ||
        PyObject_HasAttrString(o, "__array_interface__")) {
      if (tensor_from_input(self, i, o, &self->tensors[i])) goto done;
      v.tag = PTE_TAG_TENSOR;
      v.u.tensor = &self->tensors[i];
    } else if (PyBool_Check(o)) {
      v.tag = PTE_TAG_BOOL;
      v.u.b = o == Py_True;
    } else if (PyLong_Check(o)) {
      v.tag = PTE_TAG_INT;
      v.u.i = PyLong_AsLongLong(o);
      if (PyErr_Occurred()) goto done;
    } else if (PyFloat_Check(o)) {
      v.tag = PTE_TAG_DOUBLE;
      v.u.d = PyFloat_AsDouble(o);
    } else if (o == Py_None) {
      v.tag = PTE_TAG_NONE;
    } else {
      PyObject *type_name = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
      if (type_name)
        PyErr_Format(g_error, "input %zd: cannot convert %U (expected an array, a number or None)", i,
                     type_name);
      Py_XDECREF(type_name);
      goto done;
    }
    pte_status st = pte_method_set_input(self->method, (int32_t)i, &v);
    if (st) {
      raise_status(st);
      goto done;
    }
  }
  result = Py_None;
  Py_INCREF(result);
done:
  if (!result) release_views(self);
  Py_DECREF(seq);
  return result;
}

/* run() -> list: execute with the inputs set; tensors come back as
 * (bytearray, dtype_code, shape), copied, so later runs do not change them. */
static PyObject *method_run(MethodObject *self, PyObject *unused) {
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_method_execute(self->method);
  Py_END_ALLOW_THREADS
  if (st) return raise_status(st);
  int32_t nout = pte_method_num_outputs(self->method);
  PyObject *result = PyList_New(nout);
  if (!result) return NULL;
  for (int32_t i = 0; i < nout; i++) {
    PyObject *o = value_to_py(pte_method_output(self->method, i));
    if (!o) {
      Py_DECREF(result);
      return NULL;
    }
    PyList_SET_ITEM(result, i, o);
  }
  return result;
}

/* execute(inputs) -> list: set_inputs, then run. */
static PyObject *method_execute(MethodObject *self, PyObject *arg) {
  PyObject *r = method_set_inputs(self, arg);
  if (!r) return NULL;
  Py_DECREF(r);
  return method_run(self, NULL);
}

/* attribute(name) -> value as run() gives outputs, or None if there is none */
static PyObject *method_attribute(MethodObject *self, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  const pte_value *v = pte_method_attribute(self->method, name);
  if (!v) Py_RETURN_NONE;
  return value_to_py(v);
}

static PyObject *method_get_name(MethodObject *self, void *c) {
  return PyUnicode_FromString(pte_method_name(self->method));
}

static PyObject *method_memory(MethodObject *self, PyObject *unused) {
  return PyLong_FromSize_t(pte_method_memory_used(self->method));
}

/* The pte_method* as an integer, so other extensions (the profiler) can
 * attach to it through the C API. */
static PyObject *method_handle(MethodObject *self, PyObject *unused) {
  return PyLong_FromVoidPtr(self->method);
}

#ifdef PTERUN_HAVE_BUNDLED_PROGRAM
/* ---------------------------------------------------------------------- */
/* Bundled programs (.bpte)                                               */
/* ---------------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD pte_bundled_program *bp;
} BundledObject;

static void bundled_dealloc(BundledObject *self) {
  pte_bundled_program_free(self->bp);
  glue_dealloc((PyObject *)self);
}

static PyObject *bundled_program_bytes(BundledObject *self, PyObject *unused) {
  size_t n;
  const void *p = pte_bundled_program_program(self->bp, &n);
  return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

/* suites() -> [(method name, case count)] */
static PyObject *bundled_suites(BundledObject *self, PyObject *unused) {
  int32_t n = pte_bundled_program_suite_count(self->bp);
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int32_t i = 0; i < n; i++) {
    const char *name = pte_bundled_program_suite_method(self->bp, i);
    PyObject *t = Py_BuildValue("(si)", name, (int)pte_bundled_program_case_count(self->bp, name));
    if (!t) {
      Py_DECREF(l);
      return NULL;
    }
    PyList_SET_ITEM(l, i, t);
  }
  return l;
}

static PyMethodDef bundled_methods[] = {
    {"program_bytes", (PyCFunction)bundled_program_bytes, METH_NOARGS, "The embedded .pte."},
    {"suites", (PyCFunction)bundled_suites, METH_NOARGS, "[(method, number of cases)]"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot BundledType_slots[] = {
    {Py_tp_dealloc, (void *)bundled_dealloc},
    {Py_tp_doc, (void *)"A loaded BundledProgram (internal; use pterun.portable_lib)."},
    {Py_tp_methods, (void *)bundled_methods},
    {0, NULL}};
static PyType_Spec BundledType_spec = {"pterun._pterun.BundledProgram", (int)sizeof(BundledObject), 0,
                                       Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                       BundledType_slots};
static PyTypeObject *BundledType;

/* load_bundled(buffer) -> BundledProgram (the bytes are copied) */
static PyObject *mod_load_bundled(PyObject *mod, PyObject *arg) {
  glue_array b;
  if (glue_array_get(arg, 0, &b)) return NULL;
  BundledObject *self = PyObject_New(BundledObject, BundledType);
  if (!self) {
    glue_array_release(&b);
    return NULL;
  }
  self->bp = NULL;
  pte_status st = pte_bundled_program_load_buffer(b.data, (size_t)b.nbytes, &self->bp);
  glue_array_release(&b);
  if (st) {
    Py_DECREF(self);
    return raise_status(st);
  }
  return (PyObject *)self;
}

/* bundled_set_inputs(bundle, case): the case's inputs become the method's;
 * they read the bundle's memory, so the method holds the bundle until its
 * inputs are set again. */
static PyObject *method_bundled_set_inputs(MethodObject *self, PyObject *args) {
  BundledObject *b;
  int index;
  if (!PyArg_ParseTuple(args, "O!i", BundledType, &b, &index)) return NULL;
  release_views(self);
  pte_status st = pte_bundled_program_set_inputs(b->bp, self->method, index);
  if (st) return raise_status(st);
  Py_INCREF((PyObject *)b);
  self->inputs_owner = (PyObject *)b;
  Py_RETURN_NONE;
}

/* bundled_check(bundle, case, rtol, atol): raises naming the worst element. */
static PyObject *method_bundled_check(MethodObject *self, PyObject *args) {
  BundledObject *b;
  int index;
  double rtol, atol;
  if (!PyArg_ParseTuple(args, "O!idd", BundledType, &b, &index, &rtol, &atol)) return NULL;
  pte_bundled_mismatch w;
  pte_status st = pte_bundled_program_check_outputs(b->bp, self->method, index, rtol, atol, &w);
  if (st) return raise_status(st);
  return Py_BuildValue("{s:i,s:L,s:d,s:d}", "output", (int)w.output, "element", (long long)w.element,
                       "actual", w.actual, "expected", w.expected);
}
#endif

static PyMethodDef method_methods[] = {
    {"execute", (PyCFunction)method_execute, METH_O, "Run with a sequence of inputs."},
    {"set_inputs", (PyCFunction)method_set_inputs, METH_O, "Check and bind a sequence of inputs."},
    {"run", (PyCFunction)method_run, METH_NOARGS, "Run with the inputs last set."},
    {"attribute", (PyCFunction)method_attribute, METH_VARARGS, "The named attribute tensor, or None."},
#ifdef PTERUN_HAVE_BUNDLED_PROGRAM
    {"bundled_set_inputs", (PyCFunction)method_bundled_set_inputs, METH_VARARGS,
     "Set the inputs of a bundled program's test case."},
    {"bundled_check", (PyCFunction)method_bundled_check, METH_VARARGS,
     "Check the outputs against a bundled test case's expected ones."},
#endif
    {"memory_used", (PyCFunction)method_memory, METH_NOARGS, "Bytes allocated for the method."},
    {"_handle", (PyCFunction)method_handle, METH_NOARGS, "Address of the pte_method (for other extensions)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef method_getset[] = {{"name", (getter)method_get_name, NULL, "method name", NULL},
                                      {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot MethodType_slots[] = {
    {Py_tp_dealloc, (void *)method_dealloc},
    {Py_tp_doc, (void *)"A loaded method (internal; use Program.method)."},
    {Py_tp_methods, (void *)method_methods},
    {Py_tp_getset, (void *)method_getset},
    {0, NULL}};
static PyType_Spec MethodType_spec = {"pterun._pterun.Method", (int)sizeof(MethodObject), 0,
                                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                      MethodType_slots};
PyTypeObject *MethodType;

/* ---------------------------------------------------------------------- */
/* Registries and libraries                                               */
/* ---------------------------------------------------------------------- */

static PyObject *mod_registered_backends(PyObject *m, PyObject *u) {
  int32_t n = pte_backend_count();
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int32_t i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyUnicode_FromString(pte_backend_name(i)));
  return l;
}

static PyObject *mod_registered_operators(PyObject *m, PyObject *u) {
  int32_t n = pte_operator_count();
  PyObject *l = PyList_New(n);
  if (!l) return NULL;
  for (int32_t i = 0; i < n; i++) PyList_SET_ITEM(l, i, PyUnicode_FromString(pte_operator_name(i)));
  return l;
}

/* backend_available(name): registered, and its is_available() says yes. */
static PyObject *mod_backend_available(PyObject *m, PyObject *args) {
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name)) return NULL;
  const pte_backend *be = pte_backend_find(name);
  return PyBool_FromLong(be && (!be->is_available || be->is_available(be->user)));
}

static PyObject *mod_library_load(PyObject *m, PyObject *args) {
  PyObject *p;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &p)) return NULL;
  pte_status st = pte_library_load(PyBytes_AS_STRING(p));
  Py_DECREF(p);
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyObject *mod_library_load_all(PyObject *m, PyObject *u) {
  int32_t n = 0;
  pte_status st = pte_library_load_all(&n);
  if (st) return raise_status(st);
  return PyLong_FromLong(n);
}

static PyObject *mod_library_dir(PyObject *m, PyObject *u) { return PyUnicode_FromString(pte_library_dir()); }

#ifdef PTERUN_HAVE_THREADPOOL
static PyObject *mod_num_threads(PyObject *m, PyObject *u) {
  return PyLong_FromSize_t(pte_threadpool_threads());
}

static PyObject *mod_set_num_threads(PyObject *m, PyObject *arg) {
  Py_ssize_t n = PyLong_AsSsize_t(arg);
  if (n < 0) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "thread count must be >= 0 (0: the default)");
    return NULL;
  }
  pte_status st;
  Py_BEGIN_ALLOW_THREADS
    st = pte_threadpool_set_threads((size_t)n);
  Py_END_ALLOW_THREADS
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyObject *mod_threadpool_identity(PyObject *m, PyObject *u) {
  return PyLong_FromVoidPtr((void *)pte_threadpool_identity());
}
#endif
static PyObject *mod_version(PyObject *m, PyObject *u) { return PyUnicode_FromString(pte_version()); }

static PyMethodDef module_methods[] = {
    {"load", mod_load, METH_VARARGS, "load(path, data=None) -> Program"},
    {"load_buffer", mod_load_buffer, METH_VARARGS, "load_buffer(buffer, data=None) -> Program"},
#ifdef PTERUN_HAVE_BUNDLED_PROGRAM
    {"load_bundled", mod_load_bundled, METH_O, "load_bundled(buffer) -> BundledProgram"},
#endif
    {"registered_backends", mod_registered_backends, METH_NOARGS, "Names of the registered backends."},
    {"registered_operators", mod_registered_operators, METH_NOARGS, "Names of the registered operators."},
    {"backend_available", mod_backend_available, METH_VARARGS, "Whether a backend is registered and usable."},
    {"registry_identity", glue_registry_identity, METH_NOARGS, "Address of the runtime's registry."},
    {"library_load", mod_library_load, METH_VARARGS, "Load a component or operator library."},
    {"library_load_all", mod_library_load_all, METH_NOARGS,
     "Load every component installed next to the runtime."},
    {"library_dir", mod_library_dir, METH_NOARGS, "Directory libpterun was loaded from."},
    {"runtime_version", mod_version, METH_NOARGS, "Version of the loaded libpterun."},
#ifdef PTERUN_HAVE_THREADPOOL
    {"num_threads", mod_num_threads, METH_NOARGS, "Threads of the process thread pool."},
    {"set_num_threads", mod_set_num_threads, METH_O, "Resize the process thread pool (0: the default)."},
    {"threadpool_identity", mod_threadpool_identity, METH_NOARGS, "Address of the pool's state."},
#endif
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def =
    GLUE_MODULE_DEF("_pterun", "pterun runtime bindings (glue only).", module_methods);

PyMODINIT_FUNC PyInit__pterun(void);

PyMODINIT_FUNC PyInit__pterun(void) {
  if (!(ProgramType = glue_type(&ProgramType_spec)) || !(MethodType = glue_type(&MethodType_spec)))
    return NULL;
#ifdef PTERUN_HAVE_BUNDLED_PROGRAM
  if (!(BundledType = glue_type(&BundledType_spec))) return NULL;
#endif
  /* Components this extension links are registered explicitly as well, so
   * the bindings work the same with static component archives. */
  pte_status st = pterun_register_built_components();
  if (st) {
    PyErr_Format(PyExc_ImportError, "pterun: registering components failed: %s", pte_last_error());
    return NULL;
  }
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  g_error = PyErr_NewExceptionWithDoc("pterun.Error", "An error reported by the pterun runtime.",
                                      PyExc_RuntimeError, NULL);
  if (!g_error || PyModule_AddObject(m, "Error", g_error) < 0) {
    Py_XDECREF(g_error);
    Py_DECREF(m);
    return NULL;
  }
  Py_INCREF(g_error);
  Py_INCREF((PyObject *)ProgramType);
  PyModule_AddObject(m, "Program", (PyObject *)ProgramType);
  Py_INCREF((PyObject *)MethodType);
  PyModule_AddObject(m, "Method", (PyObject *)MethodType);
  return m;
}
