/* Glue both extensions share. Each extension is its own .so, so this is
 * compiled into each (static): one source, no symbol either exports. */
#ifndef PTERUN_PYTHON_GLUE_H
#define PTERUN_PYTHON_GLUE_H

#include <Python.h>

#include <pterun/runtime.h>

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
#define Py_TPFLAGS_DISALLOW_INSTANTIATION 0 /* before 3.10 (full API builds alone) */
#endif

/* A type from its spec, kept for the process by the extension's global. */
static inline PyTypeObject *glue_type(PyType_Spec *spec) { return (PyTypeObject *)PyType_FromSpec(spec); }

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
