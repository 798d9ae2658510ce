/* Glue both extensions share. Each extension is its own .so, so this is
 * compiled into each (static): one source, no symbol either exports. */
#ifndef PTERUN_PYTHON_GLUE_H
#define PTERUN_PYTHON_GLUE_H

#include <Python.h>

#include <pterun/runtime.h>

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
