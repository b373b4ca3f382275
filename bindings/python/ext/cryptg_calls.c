/* cryptg_calls.c - cryptg's three functions (encrypt_ige, decrypt_ige, factorize_pq_pair). */
#include "native.h"

/* ------------------------------------------------------------------------ */
static const char *const CRYPTG_ENC_NAMES[] = {"plain", "key", "iv"};
static const char *const CRYPTG_DEC_NAMES[] = {"cipher", "key", "iv"};

static PyObject *cryptg_ige(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames, int decrypt) {
    const char *fname = decrypt ? "decrypt_ige" : "encrypt_ige";
    const char *const *names = decrypt ? CRYPTG_DEC_NAMES : CRYPTG_ENC_NAMES;
    PyObject *a[3];
    Py_buffer v[3];
    if (keyword_args(fname, names, 3, args, nargs, kwnames, a) < 0) return NULL;
    int got = 0;
    for (; got < 3; got++)
        if (get_named_buffer(a[got], names[got], &v[got]) < 0) break;
    if (got < 3) {
        release(v, got);
        return NULL;
    }
    PyObject *out = NULL;
    const Py_ssize_t len = v[0].len;
    if (v[1].len != 32) value_error("len(key) != 32");
    else if (v[2].len != 32) value_error("len(iv) != 32");
    else if (!tg_rule_padded_data_length_fits((size_t)len)) value_error(MSG_LARGE);
    else if (decrypt && len % 16 != 0) value_error("len(cipher) % 16 != 0");
    else if (len == 0) out = PyBytes_FromStringAndSize(NULL, 0);
    else {
        /* encrypt_ige pads a partial block with random bytes, as cryptg does */
        const Py_ssize_t total = (len + 15) / 16 * 16;
        const uint8_t *in = v[0].buf;
        uint8_t *padded = NULL;
        if (total != len) {
            padded = malloc((size_t)total);
            if (padded == NULL) {
                PyErr_NoMemory();
                goto done;
            }
            memcpy(padded, in, (size_t)len);
            if (random_bytes(padded + len, total - len) < 0) {
                wipe(padded, (size_t)total);
                free(padded);
                goto done;
            }
            in = padded;
        }
        if ((out = PyBytes_FromStringAndSize(NULL, total)) != NULL) {
            uint8_t *o = bytes_ptr(out);
            block_fn fn = decrypt ? tg_ige256_decrypt : tg_ige256_encrypt;
            int rc;
            if (total >= NOGIL_MIN) {
                Py_BEGIN_ALLOW_THREADS
                rc = fn(o, in, (uint32_t)total, v[1].buf, v[2].buf);
                Py_END_ALLOW_THREADS
            } else {
                rc = fn(o, in, (uint32_t)total, v[1].buf, v[2].buf);
            }
            if (rc != TG_OK) {
                Py_CLEAR(out);
                core_error(rc);
            }
        }
        if (padded != NULL) {
            wipe(padded, (size_t)total);
            free(padded);
        }
    }
done:
    release(v, 3);
    return out;
}

PyObject *py_encrypt_ige(FAST_ARGS) {
    (void)self;
    return cryptg_ige(args, nargs, kwnames, 0);
}
PyObject *py_decrypt_ige(FAST_ARGS) {
    (void)self;
    return cryptg_ige(args, nargs, kwnames, 1);
}

static const char *const PQ_NAMES[] = {"pq"};

PyObject *py_factorize_pq_pair(FAST_ARGS) {
    (void)self;
    PyObject *a[1];
    if (keyword_args("factorize_pq_pair", PQ_NAMES, 1, args, nargs, kwnames, a) < 0) return NULL;
    if (!PyIndex_Check(a[0])) {
        PyObject *tn = type_name(a[0]);
        PyErr_Format(PyExc_TypeError, "argument 'pq': '%U' object cannot be interpreted as an integer",
                     tn != NULL ? tn : Py_None);
        Py_XDECREF(tn);
        return NULL;
    }
    PyObject *index = PyNumber_Index(a[0]);
    if (index == NULL) return NULL;
    /* OverflowError for a negative pq or one of 2^64 or more */
    const unsigned long long pq = PyLong_AsUnsignedLongLong(index);
    Py_DECREF(index);
    if (pq == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    uint64_t p = 0, q = 0;
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = tg_factorize_pq((uint64_t)pq, &p, &q);
    Py_END_ALLOW_THREADS
    if (rc == TG_ERR_NOT_COMPOSITE) {
        PyErr_Format(PyExc_ValueError, "pq = %llu is 0, 1 or a prime: nothing to factorize", pq);
        return NULL;
    }
    if (rc != TG_OK) {
        PyErr_Format(PyExc_ValueError, "pq = %llu: %s", pq, tg_strerror(rc));
        return NULL;
    }
    return Py_BuildValue("(KK)", (unsigned long long)p, (unsigned long long)q);
}
