/* args.c - argument parsing, error helpers and wiping shared by the extension. */
#include "native.h"

#include "backend.h" /* tg_wipe: the core's wipe, the one every host uses */

const char MSG_EMPTY[] = TG_MSG_EMPTY_DATA;
const char MSG_MULTIPLE[] = TG_MSG_NOT_BLOCK_MULTIPLE;
const char MSG_LARGE[] = TG_MSG_DATA_TOO_LARGE;
const char MSG_KEY[] = TG_MSG_BAD_KEY_SIZE;
const char MSG_IV32[] = TG_MSG_BAD_IV32_SIZE;
const char MSG_IV16[] = TG_MSG_BAD_IV16_SIZE;
const char MSG_STATE_SIZE[] = TG_MSG_BAD_STATE_SIZE;
const char MSG_STATE_VALUE[] = TG_MSG_BAD_STATE_VALUE;

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

/* Zeroes n bytes in a way no compiler may drop as a dead store (tg_wipe, csrc/backend.h). */
void wipe(void *p, size_t n) { tg_wipe(p, n); }

PyObject *value_error(const char *msg) {
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

/* A failure the argument checks should have made impossible. */
PyObject *core_error(int rc) {
    PyErr_Format(PyExc_RuntimeError, "tgcrypto: %s (%d)", tg_strerror(rc), rc);
    return NULL;
}

void release(Py_buffer *v, int n) {
    for (int i = 0; i < n; i++) PyBuffer_Release(&v[i]);
}

/* Exports args[0..n) as contiguous buffers, in order; on the first failure
 * releases the ones taken and leaves PyObject_GetBuffer's own exception
 * ("a bytes-like object is required, not 'int'", or BufferError for a
 * non-contiguous memoryview), which is what TgCrypto's "y*" gives too. */
#ifdef PYPY_VERSION
/* 1 for a strided memoryview, -1 on error (cpyext would export a contiguous copy). */
static int pypy_noncontiguous(PyObject *o) {
    if (!PyMemoryView_Check(o)) return 0;
    PyObject *c = PyObject_GetAttrString(o, "c_contiguous");
    const int contiguous = c == NULL ? -1 : PyObject_IsTrue(c);
    Py_XDECREF(c);
    return contiguous < 0 ? -1 : !contiguous;
}

int pypy_get_buffer(PyObject *o, Py_buffer *v, int flags) {
    if (!PyObject_CheckBuffer(o)) {
        PyErr_Format(PyExc_TypeError, "a bytes-like object is required, not '%.200s'", Py_TYPE(o)->tp_name);
        return -1;
    }
    const int strided = pypy_noncontiguous(o);
    if (strided != 0) {
        if (strided > 0) PyErr_SetString(PyExc_BufferError, "memoryview: underlying buffer is not C-contiguous");
        return -1;
    }
    return PyPyObject_GetBuffer(o, v, flags);
}
#endif

int get_buffers(PyObject *const *args, int n, Py_buffer *v) {
    for (int i = 0; i < n; i++) {
#ifdef PYPY_VERSION
        /* What TgCrypto's "y*" gives on PyPy: cpyext's own message for a non-buffer and a
         * TypeError for a strided memoryview. cpyext leaves Py_buffer.readonly unset: a
         * writable request tells whether the CTR/CBC iv and state may be written back
         * (bytes, the common case, skips it: a refused one raises, which PyPy makes dear). */
        const int strided = pypy_noncontiguous(args[i]);
        if (strided != 0) {
            if (strided > 0)
                PyErr_Format(PyExc_TypeError, "argument %d must be contiguous buffer, not memoryview", i + 1);
            release(v, i);
            return -1;
        }
        if (!PyBytes_Check(args[i])) {
            if (PyPyObject_GetBuffer(args[i], &v[i], PyBUF_WRITABLE) == 0) {
                v[i].readonly = 0;
                continue;
            }
            PyErr_Clear();
        }
        if (PyPyObject_GetBuffer(args[i], &v[i], PyBUF_SIMPLE) != 0) {
            release(v, i);
            return -1;
        }
        v[i].readonly = 1;
#else
        if (PyObject_GetBuffer(args[i], &v[i], PyBUF_SIMPLE) != 0) {
            release(v, i);
            return -1;
        }
#endif
    }
    return 0;
}

int get_own_buffers(PyObject *const *args, int n, Py_buffer *v) {
#ifdef PYPY_VERSION
    for (int i = 0; i < n; i++) {
        if (pypy_get_buffer(args[i], &v[i], PyBUF_SIMPLE) != 0) {
            release(v, i);
            return -1;
        }
    }
    return 0;
#else
    return get_buffers(args, n, v);
#endif
}

/* The type's __name__ for messages, or NULL (with the error cleared). */
PyObject *type_name(PyObject *o) {
    PyObject *n = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
    if (n == NULL) PyErr_Clear();
    return n;
}

/* Like get_buffers, for keyword-style functions: the message names the
 * argument ("argument 'plain': a bytes-like object is required, not 'int'"). */
int get_named_buffer(PyObject *o, const char *argname, Py_buffer *v) {
    if (!PyObject_CheckBuffer(o)) {
        PyObject *tn = type_name(o);
        PyErr_Format(PyExc_TypeError, "argument '%s': a bytes-like object is required, not '%U'", argname,
                     tn != NULL ? tn : Py_None);
        Py_XDECREF(tn);
        return -1;
    }
    return PyObject_GetBuffer(o, v, PyBUF_SIMPLE);
}

/* TgCrypto's calling convention: positional only, an exact count. */
int tgcrypto_args(const char *name, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t want) {
    if (kwnames != NULL && PyTuple_Size(kwnames) != 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", name);
        return -1;
    }
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "function takes exactly %zd arguments (%zd given)", want, nargs);
        return -1;
    }
    return 0;
}

/* Positional-or-keyword arguments, all required, with the messages CPython
 * gives for a Python function of that signature. out[i] are borrowed. */
int keyword_args(const char *fname, const char *const *names, int n, PyObject *const *args,
                        Py_ssize_t nargs, PyObject *kwnames, PyObject **out) {
    if (nargs > n) {
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given", fname, n,
                     n == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
        return -1;
    }
    for (int i = 0; i < n; i++) out[i] = i < nargs ? args[i] : NULL;
    const Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k);
        int j = 0;
        while (j < n && PyUnicode_CompareWithASCIIString(kw, names[j]) != 0) j++;
        if (j == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, kw);
            return -1;
        }
        if (out[j] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[j]);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    int missing = 0;
    for (int i = 0; i < n; i++) missing += out[i] == NULL;
    if (missing == 0) return 0;
    /* "f() missing 2 required positional arguments: 'key' and 'iv'" */
    char list[128] = "";
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (out[i] != NULL) continue;
        const char *sep = seen == 0 ? "" : seen == missing - 1 ? (missing > 2 ? ", and " : " and ") : ", ";
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s'%s'", sep, names[i]);
        seen++;
    }
    PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: %s", fname, missing,
                 missing == 1 ? "" : "s", list);
    return -1;
}

/* cryptg's three functions                                                 */

/* n random bytes from os.urandom into dst. */
int random_bytes(uint8_t *dst, Py_ssize_t n) {
    PyObject *r = PyObject_CallFunction(urandom, "n", n);
    if (r == NULL) return -1;
    char *p;
    Py_ssize_t got;
    if (PyBytes_AsStringAndSize(r, &p, &got) < 0 || got != n) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "os.urandom returned the wrong size");
        Py_DECREF(r);
        return -1;
    }
    memcpy(dst, p, (size_t)n);
    /* The bytes object is ours alone (a fresh os.urandom result): do not
     * leave future padding in freed memory. */
    if (Py_REFCNT(r) == 1) wipe(p, (size_t)n);
    Py_DECREF(r);
    return 0;
}

int parse_server(PyObject *o, int *server) {
    if (o == NULL) {
        *server = 0;
        return 0;
    }
    const int t = PyObject_IsTrue(o);
    if (t < 0) return -1;
    *server = t;
    return 0;
}

/* keyword-only options after `nfixed` positional arguments */
int options(const char *fname, Py_ssize_t nargs, Py_ssize_t nfixed, PyObject *const *args, PyObject *kwnames,
                   const char *const *names, int n, PyObject **out) {
    if (nargs != nfixed) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd positional argument%s (%zd given)", fname, nfixed,
                     nfixed == 1 ? "" : "s", nargs);
        return -1;
    }
    for (int i = 0; i < n; i++) out[i] = NULL;
    const Py_ssize_t nkw = kwnames != NULL ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k);
        int j = 0;
        while (j < n && PyUnicode_CompareWithASCIIString(kw, names[j]) != 0) j++;
        if (j == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, kw);
            return -1;
        }
        out[j] = args[nargs + k];
    }
    return 0;
}
