/* hashes.c - sha256(*parts) and sha1(*parts). */
#include "native.h"

/* ------------------------------------------------------------------------ */
/* Hashes                                                                   */

typedef int (*hash_init_fn)(uint8_t *);
typedef int (*hash_update_fn)(uint8_t *, const uint8_t *, uint32_t);
typedef int (*hash_final_fn)(uint8_t *, uint8_t *);

static PyObject *hash_parts(const char *name, Py_ssize_t size, hash_init_fn init, hash_update_fn update,
                            hash_final_fn final, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (kwnames != NULL && PyTuple_Size(kwnames) != 0) {
        PyErr_Format(PyExc_TypeError, "%s() takes no keyword arguments", name);
        return NULL;
    }
    Py_buffer small[4], *v = small;
    if (nargs > 4 && (v = PyMem_Malloc(sizeof(Py_buffer) * (size_t)nargs)) == NULL) return PyErr_NoMemory();
    PyObject *out = NULL;
    if (get_own_buffers(args, (int)nargs, v) < 0) goto done_free;
    size_t total = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (!tg_rule_data_length_fits((size_t)v[i].len)) {
            value_error(MSG_LARGE);
            goto done;
        }
        total += (size_t)v[i].len;
    }
    uint8_t state[TG_SHA256_STATE_SIZE > TG_SHA1_STATE_SIZE ? TG_SHA256_STATE_SIZE : TG_SHA1_STATE_SIZE];
    uint8_t digest[32];
    int rc = init(state);
    if (total >= NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS
        for (Py_ssize_t i = 0; i < nargs && rc == TG_OK; i++) rc = update(state, v[i].buf, (uint32_t)v[i].len);
        if (rc == TG_OK) rc = final(state, digest);
        Py_END_ALLOW_THREADS
    } else {
        for (Py_ssize_t i = 0; i < nargs && rc == TG_OK; i++) rc = update(state, v[i].buf, (uint32_t)v[i].len);
        if (rc == TG_OK) rc = final(state, digest);
    }
    if (rc != TG_OK) core_error(rc);
    else out = PyBytes_FromStringAndSize((const char *)digest, size);
    wipe(state, sizeof state);
done:
    release(v, (int)nargs);
done_free:
    if (v != small) PyMem_Free(v);
    return out;
}

PyObject *py_sha256(FAST_ARGS) {
    (void)self;
    return hash_parts("sha256", 32, tg_sha256_init, tg_sha256_update, tg_sha256_final, args, nargs, kwnames);
}
PyObject *py_sha1(FAST_ARGS) {
    (void)self;
    return hash_parts("sha1", 20, tg_sha1_init, tg_sha1_update, tg_sha1_final, args, nargs, kwnames);
}
