/* tgcrypto_calls.c - TgCrypto's six one-shot functions (IGE, CTR, CBC). */
#include "native.h"

/* ------------------------------------------------------------------------ */
/* TgCrypto's six functions                                                 */


/* IGE and CBC: data, key, iv checked in TgCrypto's order (empty, whole
 * blocks, size, key, iv); 0 with the ValueError set when one fails. */
static int block_args_ok(const Py_buffer v[3], Py_ssize_t iv_len) {
    const Py_ssize_t len = v[0].len;
    if (len == 0) value_error(MSG_EMPTY);
    else if (len % 16 != 0) value_error(MSG_MULTIPLE);
    else if (!tg_rule_data_length_fits((size_t)len)) value_error(MSG_LARGE);
    else if (v[1].len != 32) value_error(MSG_KEY);
    else if (v[2].len != iv_len) value_error(iv_len == 32 ? MSG_IV32 : MSG_IV16);
    else return 1;
    return 0;
}

/* IGE: data, key, iv (32, never written). */
static PyObject *ige(const char *name, block_fn fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_buffer v[3];
    if (tgcrypto_args(name, nargs, kwnames, 3) < 0 || get_buffers(args, 3, v) < 0) return NULL;
    PyObject *out = NULL;
    const Py_ssize_t len = v[0].len;
    if (block_args_ok(v, 32) && (out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
        uint8_t *o = bytes_ptr(out);
        int rc;
        if (len >= NOGIL_MIN) {
            Py_BEGIN_ALLOW_THREADS
            rc = fn(o, v[0].buf, (uint32_t)len, v[1].buf, v[2].buf);
            Py_END_ALLOW_THREADS
        } else {
            rc = fn(o, v[0].buf, (uint32_t)len, v[1].buf, v[2].buf);
        }
        if (rc != TG_OK) {
            Py_CLEAR(out);
            core_error(rc);
        }
    }
    release(v, 3);
    return out;
}

/* CBC: data, key, iv (16): the chain goes back into iv if it is writable. */
static PyObject *cbc(const char *name, chain_fn fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_buffer v[3];
    if (tgcrypto_args(name, nargs, kwnames, 3) < 0 || get_buffers(args, 3, v) < 0) return NULL;
    PyObject *out = NULL;
    const Py_ssize_t len = v[0].len;
    if (block_args_ok(v, 16) && (out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
        uint8_t *o = bytes_ptr(out), iv[16];
        memcpy(iv, v[2].buf, 16);
        int rc;
        if (len >= NOGIL_MIN) {
            Py_BEGIN_ALLOW_THREADS
            rc = fn(o, v[0].buf, (uint32_t)len, v[1].buf, iv);
            Py_END_ALLOW_THREADS
        } else {
            rc = fn(o, v[0].buf, (uint32_t)len, v[1].buf, iv);
        }
        if (rc != TG_OK) {
            Py_CLEAR(out);
            core_error(rc);
        } else if (!v[2].readonly) {
            memcpy(v[2].buf, iv, 16);
        }
        wipe(iv, sizeof iv);
    }
    release(v, 3);
    return out;
}

/* CTR: data, key, iv (16), state (1): both advanced in place if writable. */
static PyObject *ctr(const char *name, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_buffer v[4];
    if (tgcrypto_args(name, nargs, kwnames, 4) < 0 || get_buffers(args, 4, v) < 0) return NULL;
    PyObject *out = NULL;
    const Py_ssize_t len = v[0].len;
    uint8_t iv[16], state[1];
    if (len == 0) value_error(MSG_EMPTY);
    else if (!tg_rule_data_length_fits((size_t)len)) value_error(MSG_LARGE);
    else if (v[1].len != 32) value_error(MSG_KEY);
    else if (v[2].len != 16) value_error(MSG_IV16);
    else if (v[3].len != 1) value_error(MSG_STATE_SIZE);
    else if ((state[0] = *(const uint8_t *)v[3].buf) > 15) value_error(MSG_STATE_VALUE);
    else if ((out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
        uint8_t *o = bytes_ptr(out);
        memcpy(iv, v[2].buf, 16);
        int rc;
        if (len >= NOGIL_MIN) {
            Py_BEGIN_ALLOW_THREADS
            rc = tg_ctr256(o, v[0].buf, (uint32_t)len, v[1].buf, iv, state);
            Py_END_ALLOW_THREADS
        } else {
            rc = tg_ctr256(o, v[0].buf, (uint32_t)len, v[1].buf, iv, state);
        }
        if (rc != TG_OK) {
            Py_CLEAR(out);
            core_error(rc);
        } else {
            if (!v[2].readonly) memcpy(v[2].buf, iv, 16);
            if (!v[3].readonly) *(uint8_t *)v[3].buf = state[0];
        }
        wipe(iv, sizeof iv);
    }
    release(v, 4);
    return out;
}

PyObject *py_ige256_encrypt(FAST_ARGS) {
    (void)self;
    return ige("ige256_encrypt", tg_ige256_encrypt, args, nargs, kwnames);
}
PyObject *py_ige256_decrypt(FAST_ARGS) {
    (void)self;
    return ige("ige256_decrypt", tg_ige256_decrypt, args, nargs, kwnames);
}
PyObject *py_ctr256_encrypt(FAST_ARGS) {
    (void)self;
    return ctr("ctr256_encrypt", args, nargs, kwnames);
}
PyObject *py_ctr256_decrypt(FAST_ARGS) {
    (void)self;
    return ctr("ctr256_decrypt", args, nargs, kwnames);
}
PyObject *py_cbc256_encrypt(FAST_ARGS) {
    (void)self;
    return cbc("cbc256_encrypt", tg_cbc256_encrypt, args, nargs, kwnames);
}
PyObject *py_cbc256_decrypt(FAST_ARGS) {
    (void)self;
    return cbc("cbc256_decrypt", tg_cbc256_decrypt, args, nargs, kwnames);
}
