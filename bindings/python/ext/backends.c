/* backends.c - choosing and reporting the AES backend, the hash engine and the version. */
#include "native.h"

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */

PyObject *py_get_backend(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    const char *name = tg_backend();
    if (name == NULL) return core_error(tg_init());
    return PyUnicode_FromString(name);
}

PyObject *py_hash_engine(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyUnicode_FromString(tg_hash_engine());
}

PyObject *py_version(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyUnicode_FromString(tg_version());
}

PyObject *py_backends(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    const uint32_t n = tg_backend_count();
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list != NULL && i < n; i++) {
        PyObject *item = Py_BuildValue("(sO)", tg_backend_name(i), tg_backend_available(i) ? Py_True : Py_False);
        if (item == NULL || PyList_Append(list, item) < 0) Py_CLEAR(list);
        Py_XDECREF(item);
    }
    return list;
}

PyObject *py_set_backend(PyObject *self, PyObject *name) {
    (void)self;
    if (!PyUnicode_Check(name)) {
        PyObject *tn = type_name(name);
        PyErr_Format(PyExc_TypeError, "set_backend() argument must be str, not '%U'", tn != NULL ? tn : Py_None);
        Py_XDECREF(tn);
        return NULL;
    }
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (s == NULL) return NULL;
    if ((size_t)n != strlen(s)) return value_error("backend name contains a NUL character");
    const int rc = tg_set_backend(s);
    if (rc != TG_OK) {
        PyErr_Format(PyExc_ValueError, "cannot use backend '%s': %s", s, tg_strerror(rc));
        return NULL;
    }
    Py_RETURN_NONE;
}
