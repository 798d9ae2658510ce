/* pterun._profiler: the profiler's Python glue, a second extension over the
 * same shared libraries (libpterun, libpterun_etdump). It attaches to methods
 * loaded by pterun._pterun through their pte_method address. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pterun/etdump.h>
#include <pterun/runtime.h>

#include <stdlib.h>

#include "glue.h"

typedef struct {
  PyObject_HEAD pte_etdump *etdump;
} ProfilerObject;

static PyObject *raise_status(pte_status st) {
  PyErr_Format(PyExc_RuntimeError, "%s", glue_status_message(st));
  return NULL;
}

static int profiler_init(ProfilerObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"max_events", "debug_buffer_size", NULL};
  int max_events = 0;
  Py_ssize_t debug = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|in", kwlist, &max_events, &debug)) return -1;
  pte_etdump_options o = PTE_ETDUMP_OPTIONS_INIT;
  o.max_events = max_events;
  o.debug_buffer_size = (size_t)debug;
  pte_etdump_free(self->etdump);
  self->etdump = NULL;
  pte_status st = pte_etdump_create(&o, &self->etdump);
  if (st) {
    raise_status(st);
    return -1;
  }
  if (debug > 0 && (st = pte_etdump_set_capture(self->etdump, true))) {
    raise_status(st);
    return -1;
  }
  return 0;
}

static void profiler_dealloc(ProfilerObject *self) {
  pte_etdump_free(self->etdump);
  glue_dealloc((PyObject *)self);
}

static pte_method *method_arg(PyObject *arg) {
  void *p = PyLong_AsVoidPtr(arg);
  if (!p && !PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "null method handle");
  return (pte_method *)p;
}

static PyObject *profiler_attach(ProfilerObject *self, PyObject *arg) {
  pte_method *m = method_arg(arg);
  if (!m) return NULL;
  pte_etdump_attach(self->etdump, m);
  Py_RETURN_NONE;
}

static PyObject *profiler_detach(ProfilerObject *self, PyObject *arg) {
  pte_method *m = method_arg(arg);
  if (!m) return NULL;
  pte_method_set_tracer(m, NULL);
  Py_RETURN_NONE;
}

static PyObject *profiler_tracer(ProfilerObject *self, PyObject *unused) {
  return PyLong_FromVoidPtr((void *)pte_etdump_tracer(self->etdump));
}

static PyObject *profiler_table(ProfilerObject *self, PyObject *unused) {
  size_t need = pte_etdump_table(self->etdump, NULL, 0) + 1;
  char *buf = (char *)malloc(need);
  if (!buf) return PyErr_NoMemory();
  pte_etdump_table(self->etdump, buf, need);
  PyObject *s = PyUnicode_FromString(buf);
  free(buf);
  return s;
}

static PyObject *profiler_summary(ProfilerObject *self, PyObject *unused) {
  int32_t n = pte_etdump_summary(self->etdump, NULL, 0);
  pte_etdump_row *rows = (pte_etdump_row *)calloc((size_t)(n > 0 ? n : 1), sizeof *rows);
  if (!rows) return PyErr_NoMemory();
  n = pte_etdump_summary(self->etdump, rows, n);
  PyObject *list = PyList_New(0);
  for (int32_t i = 0; list && i < n; i++) {
    PyObject *d =
        Py_BuildValue("{s:s,s:i,s:L,s:K,s:K,s:K,s:d,s:d}", "name", rows[i].name, "kind", (int)rows[i].kind,
                      "count", (long long)rows[i].count, "total_ns", (unsigned long long)rows[i].total_ns,
                      "min_ns", (unsigned long long)rows[i].min_ns, "max_ns",
                      (unsigned long long)rows[i].max_ns, "mean_ns", rows[i].mean_ns, "share", rows[i].share);
    if (!d || PyList_Append(list, d)) Py_CLEAR(list);
    Py_XDECREF(d);
  }
  free(rows);
  return list;
}

static PyObject *profiler_save_etdump(ProfilerObject *self, PyObject *args) {
  PyObject *path, *debug = NULL;
  if (!PyArg_ParseTuple(args, "O&|O&", PyUnicode_FSConverter, &path, PyUnicode_FSConverter, &debug))
    return NULL;
  pte_status st =
      pte_etdump_write(self->etdump, PyBytes_AS_STRING(path), debug ? PyBytes_AS_STRING(debug) : NULL);
  Py_DECREF(path);
  Py_XDECREF(debug);
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyObject *profiler_save_trace(ProfilerObject *self, PyObject *args) {
  PyObject *path;
  if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path)) return NULL;
  pte_status st = pte_etdump_write_trace(self->etdump, PyBytes_AS_STRING(path));
  Py_DECREF(path);
  if (st) return raise_status(st);
  Py_RETURN_NONE;
}

static PyObject *profiler_stats(ProfilerObject *self, PyObject *unused) {
  pte_etdump_stats s;
  pte_etdump_get_stats(self->etdump, &s);
  return Py_BuildValue("{s:L,s:L,s:L,s:L}", "events", (long long)s.events, "dropped_events",
                       (long long)s.dropped_events, "executes", (long long)s.executes, "debug_values",
                       (long long)s.debug_values);
}

static PyObject *profiler_reset(ProfilerObject *self, PyObject *unused) {
  pte_etdump_reset(self->etdump);
  Py_RETURN_NONE;
}

static PyMethodDef profiler_methods[] = {
    {"attach", (PyCFunction)profiler_attach, METH_O, "Trace a method (by its pte_method address)."},
    {"detach", (PyCFunction)profiler_detach, METH_O, "Stop tracing a method."},
    {"tracer", (PyCFunction)profiler_tracer, METH_NOARGS,
     "Address of the pte_tracer (for _pterun's load_method, valid while this lives)."},
    {"table", (PyCFunction)profiler_table, METH_NOARGS, "Per-operator table as text."},
    {"summary", (PyCFunction)profiler_summary, METH_NOARGS, "Per-operator rows."},
    {"save_etdump", (PyCFunction)profiler_save_etdump, METH_VARARGS,
     "Write an ETDump file (and a debug buffer)."},
    {"save_trace", (PyCFunction)profiler_save_trace, METH_VARARGS, "Write a Chrome trace-event JSON file."},
    {"stats", (PyCFunction)profiler_stats, METH_NOARGS, "Counts of kept and dropped records."},
    {"reset", (PyCFunction)profiler_reset, METH_NOARGS, "Forget everything recorded."},
    {NULL, NULL, 0, NULL}};

static PyType_Slot ProfilerType_slots[] = {
    {Py_tp_dealloc, (void *)profiler_dealloc},
    {Py_tp_doc, (void *)"An ETDump recorder (internal; use pterun.profile())."},
    {Py_tp_methods, (void *)profiler_methods},
    {Py_tp_init, (void *)profiler_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {0, NULL}};
static PyType_Spec ProfilerType_spec = {"pterun._profiler.Profiler", (int)sizeof(ProfilerObject), 0,
                                        Py_TPFLAGS_DEFAULT, ProfilerType_slots};
static PyTypeObject *ProfilerType;

static PyMethodDef module_methods[] = {{"registry_identity", glue_registry_identity, METH_NOARGS,
                                        "Address of the runtime's registry, as this extension sees it."},
                                       {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def =
    GLUE_MODULE_DEF("_profiler", "pterun profiler bindings (glue only).", module_methods);

PyMODINIT_FUNC PyInit__profiler(void);

PyMODINIT_FUNC PyInit__profiler(void) {
  if (!(ProfilerType = glue_type(&ProfilerType_spec))) return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Py_INCREF((PyObject *)ProfilerType);
  PyModule_AddObject(m, "Profiler", (PyObject *)ProfilerType);
  return m;
}
