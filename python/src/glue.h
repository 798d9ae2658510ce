/* Glue both extensions share. Each extension is its own .so, so this is
 * compiled into each (static): one source, no symbol either exports. */
#ifndef PTERUN_PYTHON_GLUE_H
#define PTERUN_PYTHON_GLUE_H

#include <Python.h>

#include <pterun/runtime.h>

#include <stdlib.h>
#include <string.h>

/* The extensions are built for the stable ABI where the interpreter has it
 * (python/CMakeLists.txt sets Py_LIMITED_API), whose API has functions
 * where the full API has unchecked macros. */
#ifdef Py_LIMITED_API
#ifndef PyList_SET_ITEM
#define PyList_SET_ITEM(l, i, v) PyList_SetItem((l), (i), (v))
#define PyList_GET_ITEM(l, i) PyList_GetItem((l), (i))
#define PyList_GET_SIZE(l) PyList_Size(l)
#define PyTuple_SET_ITEM(t, i, v) PyTuple_SetItem((t), (i), (v))
#define PyTuple_GET_ITEM(t, i) PyTuple_GetItem((t), (i))
#define PyTuple_GET_SIZE(t) PyTuple_Size(t)
#define PyBytes_AS_STRING(b) PyBytes_AsString(b)
#define PyByteArray_AS_STRING(b) PyByteArray_AsString(b)
#endif
#endif

/* The types are heap types made from specs at module init (the limited API
 * has no static PyTypeObject); an instance holds a reference to its type. */
static inline void glue_dealloc(PyObject *self) {
  PyTypeObject *tp = Py_TYPE(self);
  freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
  tp_free(self);
  Py_DECREF((PyObject *)tp);
}

#ifndef Py_TPFLAGS_DISALLOW_INSTANTIATION
#define Py_TPFLAGS_DISALLOW_INSTANTIATION (1UL << 7)
#endif

static PyObject *glue_no_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
  (void)args;
  (void)kw;
  PyObject *name = PyObject_GetAttrString((PyObject *)tp, "__name__");
  if (name) PyErr_Format(PyExc_TypeError, "cannot create '%U' instances", name);
  Py_XDECREF(name);
  return NULL;
}

/* A type from its spec, kept for the process by the extension's global.
 * CPython before 3.10 ignores Py_TPFLAGS_DISALLOW_INSTANTIATION (the abi3
 * wheel runs there too), so such a type also gets a tp_new that refuses:
 * an instance made from Python would hold NULL handles. */
static inline PyTypeObject *glue_type(PyType_Spec *spec) {
  if (!(spec->flags & Py_TPFLAGS_DISALLOW_INSTANTIATION)) return (PyTypeObject *)PyType_FromSpec(spec);
  PyType_Slot slots[32];
  int n = 0;
  for (; spec->slots[n].slot; n++) {
    if (n == 30) { /* never silently drop a slot */
      PyErr_Format(PyExc_SystemError, "%s: too many type slots", spec->name);
      return NULL;
    }
    slots[n] = spec->slots[n];
  }
  slots[n++] = (PyType_Slot){Py_tp_new, (void *)glue_no_new};
  slots[n] = (PyType_Slot){0, NULL};
  PyType_Spec s = *spec;
  s.slots = slots;
  return (PyTypeObject *)PyType_FromSpec(&s);
}

/* ---- memory of Python objects, for the limited API of 3.9 ----
 * The buffer protocol entered the limited API only in 3.11, so the glue reads
 * an object's memory from numpy's __array_interface__ (bytes directly): any
 * other buffer (bytearray, memoryview, array.array) is viewed by numpy first,
 * which holds the buffer, so a bytearray cannot be resized under us. */

typedef struct {
  PyObject *owner; /* keeps the memory alive until glue_array_release */
  void *data;
  Py_ssize_t nbytes;
  int ndim;
  int64_t shape[PTE_MAX_DIM];
  int dtype;        /* the pte dtype typestr names, -1 if none does */
  char typestr[16]; /* for messages */
} glue_array;

#define GLUE_WRITABLE 1

static inline void glue_array_release(glue_array *a) { Py_CLEAR(a->owner); }

/* The pte dtype of an __array_interface__ typestr ("<f4", "|b1"), or -1. */
static inline int glue_typestr_dtype(const char *t) {
  if (!t[0] || !t[1]) return -1;
  int size = atoi(t + 2);
  if (t[0] == '>' && size > 1) return -1;
  switch (t[1]) {
    case 'b': return size == 1 ? PTE_BOOL : -1;
    case 'i':
      return size == 1   ? PTE_INT8
             : size == 2 ? PTE_INT16
             : size == 4 ? PTE_INT32
             : size == 8 ? PTE_INT64
                         : -1;
    case 'u':
      return size == 1   ? PTE_UINT8
             : size == 2 ? PTE_UINT16
             : size == 4 ? PTE_UINT32
             : size == 8 ? PTE_UINT64
                         : -1;
    case 'f': return size == 2 ? PTE_FLOAT16 : size == 4 ? PTE_FLOAT32 : size == 8 ? PTE_FLOAT64 : -1;
    case 'c': return size == 8 ? PTE_COMPLEX64 : size == 16 ? PTE_COMPLEX128 : -1;
    default: return -1;
  }
}

/* __array_interface__ of `arr` into *a (which then owns a reference to arr). */
static inline int glue_array_parse(PyObject *arr, int flags, glue_array *a) {
  PyObject *ai = PyObject_GetAttrString(arr, "__array_interface__");
  if (!ai) return -1;
  PyObject *data = PyDict_Check(ai) ? PyDict_GetItemString(ai, "data") : NULL;
  PyObject *shape = PyDict_Check(ai) ? PyDict_GetItemString(ai, "shape") : NULL;
  PyObject *typestr = PyDict_Check(ai) ? PyDict_GetItemString(ai, "typestr") : NULL;
  PyObject *strides = PyDict_Check(ai) ? PyDict_GetItemString(ai, "strides") : NULL;
  PyObject *ts = typestr && PyUnicode_Check(typestr) ? PyUnicode_AsASCIIString(typestr) : NULL;
  const char *why = NULL;
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2 || !shape || !PyTuple_Check(shape) || !ts)
    why = "an __array_interface__ without an address, a shape and a typestr";
  else if (PyTuple_GET_SIZE(shape) > PTE_MAX_DIM) why = "too many dimensions";
  else if ((flags & GLUE_WRITABLE) && PyObject_IsTrue(PyTuple_GET_ITEM(data, 1))) why = "a read-only array";
  int64_t itemsize = 0;
  if (!why) {
    PyOS_snprintf(a->typestr, sizeof a->typestr, "%s", PyBytes_AS_STRING(ts));
    a->dtype = glue_typestr_dtype(a->typestr);
    itemsize = atoi(a->typestr + (a->typestr[0] ? 2 : 0));
    if (itemsize <= 0 || strchr("biufc", a->typestr[1]) == NULL)
      why = "an array of a dtype with no pte equivalent";
    a->ndim = (int)PyTuple_GET_SIZE(shape);
    a->data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0));
  }
  /* C-contiguous: no strides, or the row-major ones (a dim of size 1 may have any) */
  int64_t numel = 1, want = itemsize;
  for (int d = why ? 0 : a->ndim; d-- > 0;) {
    a->shape[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d));
    if (a->shape[d] < 0) {
      why = "a negative size";
      break;
    }
    if (strides && strides != Py_None) {
      PyObject *sd = PyTuple_Check(strides) && PyTuple_GET_SIZE(strides) == a->ndim
                         ? PyTuple_GET_ITEM(strides, d)
                         : NULL;
      if (!sd || (a->shape[d] > 1 && PyLong_AsLongLong(sd) != want)) {
        why = "a non-contiguous array";
        break;
      }
    }
    want *= a->shape[d];
    numel *= a->shape[d];
  }
  Py_XDECREF(ts);
  Py_DECREF(ai);
  if (PyErr_Occurred()) return -1;
  if (why) {
    PyErr_Format(PyExc_TypeError, "expected a C-contiguous array, got %s", why);
    return -1;
  }
  a->nbytes = (Py_ssize_t)(numel * itemsize);
  Py_INCREF(arr);
  a->owner = arr;
  return 0;
}

/* The memory of `o` (an array, bytes or any buffer): *a holds it until
 * glue_array_release. Read-only memory is refused with GLUE_WRITABLE. */
static inline int glue_array_get(PyObject *o, int flags, glue_array *a) {
  a->owner = NULL;
  if (PyBytes_Check(o) && !(flags & GLUE_WRITABLE)) {
    char *p;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(o, &p, &n)) return -1;
    Py_INCREF(o);
    *a = (glue_array){o, p, n, 1, {n}, PTE_UINT8, "|u1"};
    return 0;
  }
  if (PyObject_HasAttrString(o, "__array_interface__")) return glue_array_parse(o, flags, a);
  PyObject *mv = PyMemoryView_FromObject(o); /* TypeError for what is no buffer */
  PyObject *np = mv ? PyImport_ImportModule("numpy") : NULL;
  PyObject *arr = np ? PyObject_CallMethod(np, "asarray", "O", mv) : NULL;
  int r = arr ? glue_array_parse(arr, flags, a) : -1;
  Py_XDECREF(arr);
  Py_XDECREF(np);
  Py_XDECREF(mv);
  return r;
}

/* The runtime's message for a failure, or the status name when it left none. */
static inline const char *glue_status_message(pte_status st) {
  return pte_last_error()[0] ? pte_last_error() : pte_status_name(st);
}

/* registry_identity(): lets Python check both extensions share one registry. */
static inline PyObject *glue_registry_identity(PyObject *m, PyObject *u) {
  (void)m;
  (void)u;
  return PyLong_FromVoidPtr((void *)pte_registry_identity());
}

/* A single-phase module with no per-module state, as both extensions are. */
#define GLUE_MODULE_DEF(name, doc, methods) \
  { PyModuleDef_HEAD_INIT, name, doc, -1, methods, NULL, NULL, NULL, NULL }

#endif
