/*
 * _native.c - the CPython extension module tgcrypto_ffi._native.
 *
 * Argument handling, the TgCrypto and cryptg calling conventions and
 * messages, the reusable contexts and AuthKey, all over the flat C ABI of
 * csrc/tgcrypto.h (whose sources are compiled into the same module). No
 * cryptography is done here: every byte of AES, SHA and MTProto comes from
 * the core.
 *
 * One source, two builds:
 *   - with Py_LIMITED_API=0x030B0000: the stable ABI of CPython 3.11+ (abi3);
 *     3.11 is the first version whose limited API has Py_buffer and
 *     PyObject_GetBuffer, which everything here needs (bytes, bytearray and
 *     memoryview arguments, and writing the CTR/CBC state back in place);
 *   - without it, for CPython 3.9 and 3.10 (version-specific wheels).
 *
 * Rules kept everywhere:
 *   - every check runs before anything is written; a rejected call changes
 *     nothing;
 *   - nothing is ever written into a read-only buffer: the CTR/CBC state is
 *     copied in, advanced in a local copy, and written back only when the
 *     caller's buffer is writable;
 *   - lengths of 2^32 bytes or more are rejected (the C ABI takes uint32);
 *   - inputs of NOGIL_MIN bytes or more run with the GIL released; argument
 *     buffers stay exported meanwhile (a bytearray cannot be resized), and a
 *     context is locked so that two threads never update it at once;
 *   - temporaries that hold plaintext or padding are wiped before freeing;
 *     keys are read in place from the caller's buffer and never copied here
 *     (the core wipes its key schedules and AuthKey copy).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgcrypto.h"

/* Inputs from this size on run with the GIL released: releasing and taking
 * it back costs ~50 ns, about 40 bytes of IGE, and below a few KiB other
 * threads wait less than the switch would cost. */
#define NOGIL_MIN 4096

#define MAX_DATA 0xFFFFFFFFu
#define MAX_PACKET 0x7FFFFFFF

static const char MSG_EMPTY[] = "Data must not be empty";
static const char MSG_MULTIPLE[] = "Data size must match a multiple of 16 bytes";
static const char MSG_LARGE[] = "Data is too large (max 4294967295 bytes)";
static const char MSG_KEY[] = "Key size must be exactly 32 bytes";
static const char MSG_IV32[] = "IV size must be exactly 32 bytes";
static const char MSG_IV16[] = "IV size must be exactly 16 bytes";
static const char MSG_STATE_SIZE[] = "State size must be exactly 1 byte";
static const char MSG_STATE_VALUE[] = "State value must be in the range [0, 15]";

static PyObject *SecurityError;  /* tgcrypto_ffi.MtprotoSecurityError */
static PyObject *urandom;        /* os.urandom */

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

/* Zeroes n bytes in a way the compiler may not drop as a dead store. */
static void wipe(void *p, size_t n) {
    if (n == 0) return;
    memset(p, 0, n);
#if defined(__GNUC__) || defined(__clang__)
    __asm__ __volatile__("" : : "r"(p) : "memory");
#else
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) *v++ = 0;
#endif
}

static PyObject *value_error(const char *msg) {
    PyErr_SetString(PyExc_ValueError, msg);
    return NULL;
}

/* A failure the argument checks should have made impossible. */
static PyObject *core_error(int rc) {
    PyErr_Format(PyExc_RuntimeError, "tgcrypto: %s (%d)", tg_strerror(rc), rc);
    return NULL;
}

/* Writable pointer into a bytes object this module has just created. */
static uint8_t *bytes_ptr(PyObject *b) { return (uint8_t *)PyBytes_AsString(b); }

#ifdef PYPY_VERSION
/* PyPy's cpyext exports a non-contiguous memoryview as a contiguous copy and
 * leaves Py_buffer.readonly unset. */
static int pypy_noncontiguous(PyObject *o) { /* 1 for a strided memoryview, -1 on error */
    if (!PyMemoryView_Check(o)) return 0;
    PyObject *c = PyObject_GetAttrString(o, "c_contiguous");
    const int contiguous = c == NULL ? -1 : PyObject_IsTrue(c);
    Py_XDECREF(c);
    return contiguous < 0 ? -1 : !contiguous;
}
/* The functions without a stock counterpart (contexts, hashes, AuthKey) word their
 * errors as on CPython. */
static int pypy_get_buffer(PyObject *o, Py_buffer *v, int flags) {
    if (!PyObject_CheckBuffer(o)) {
        PyErr_Format(PyExc_TypeError, "a bytes-like object is required, not '%.200s'", Py_TYPE(o)->tp_name);
        return -1;
    }
    const int strided = pypy_noncontiguous(o);
    if (strided != 0) {
        if (strided > 0) PyErr_SetString(PyExc_BufferError, "memoryview: underlying buffer is not C-contiguous");
        return -1;
    }
    return PyObject_GetBuffer(o, v, flags);
}
#undef PyObject_GetBuffer /* cpyext's PyPyObject_GetBuffer, used above and in get_buffers */
#define PyObject_GetBuffer pypy_get_buffer
#endif

static void release(Py_buffer *v, int n) {
    for (int i = 0; i < n; i++) PyBuffer_Release(&v[i]);
}

/* Exports args[0..n) as contiguous buffers, in order; on the first failure
 * releases the ones taken and leaves PyObject_GetBuffer's own exception
 * ("a bytes-like object is required, not 'int'", or BufferError for a
 * non-contiguous memoryview), which is what TgCrypto's "y*" gives too. */
static int get_buffers(PyObject *const *args, int n, Py_buffer *v) {
    for (int i = 0; i < n; i++) {
#ifdef PYPY_VERSION
        /* what TgCrypto's "y*" gives on PyPy: cpyext's own message for a non-buffer, and
         * for a strided memoryview a TypeError; a writable request tells whether the
         * CTR/CBC iv and state may be written back (readonly is left unset) */
        const int strided = pypy_noncontiguous(args[i]);
        if (strided != 0) {
            if (strided > 0)
                PyErr_Format(PyExc_TypeError, "argument %d must be contiguous buffer, not memoryview", i + 1);
            release(v, i);
            return -1;
        }
        /* (bytes, the common case, skips the writable request: a refused one costs an
         * exception, which PyPy makes dear) */
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

/* get_buffers for the functions without a stock counterpart (hashes, contexts): on
 * PyPy too they word their errors as on CPython. */
static int get_own_buffers(PyObject *const *args, int n, Py_buffer *v) {
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
static PyObject *type_name(PyObject *o) {
    PyObject *n = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
    if (n == NULL) PyErr_Clear();
    return n;
}

/* Like get_buffers, for keyword-style functions: the message names the
 * argument ("argument 'plain': a bytes-like object is required, not 'int'"). */
static int get_named_buffer(PyObject *o, const char *argname, Py_buffer *v) {
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
static int tgcrypto_args(const char *name, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t want) {
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
static int keyword_args(const char *fname, const char *const *names, int n, PyObject *const *args,
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

/* ------------------------------------------------------------------------ */
/* TgCrypto's six functions                                                 */

typedef int (*block_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, const uint8_t *);
typedef int (*chain_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint8_t *);

/* IGE: data, key, iv (32, never written). */
static PyObject *ige(const char *name, block_fn fn, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    Py_buffer v[3];
    if (tgcrypto_args(name, nargs, kwnames, 3) < 0 || get_buffers(args, 3, v) < 0) return NULL;
    PyObject *out = NULL;
    const Py_ssize_t len = v[0].len;
    if (len == 0) value_error(MSG_EMPTY);
    else if (len % 16 != 0) value_error(MSG_MULTIPLE);
    else if ((size_t)len > MAX_DATA) value_error(MSG_LARGE);
    else if (v[1].len != 32) value_error(MSG_KEY);
    else if (v[2].len != 32) value_error(MSG_IV32);
    else if ((out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
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
    if (len == 0) value_error(MSG_EMPTY);
    else if (len % 16 != 0) value_error(MSG_MULTIPLE);
    else if ((size_t)len > MAX_DATA) value_error(MSG_LARGE);
    else if (v[1].len != 32) value_error(MSG_KEY);
    else if (v[2].len != 16) value_error(MSG_IV16);
    else if ((out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
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
    else if ((size_t)len > MAX_DATA) value_error(MSG_LARGE);
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

#define FAST_ARGS PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

static PyObject *py_ige256_encrypt(FAST_ARGS) {
    (void)self;
    return ige("ige256_encrypt", tg_ige256_encrypt, args, nargs, kwnames);
}
static PyObject *py_ige256_decrypt(FAST_ARGS) {
    (void)self;
    return ige("ige256_decrypt", tg_ige256_decrypt, args, nargs, kwnames);
}
static PyObject *py_ctr256_encrypt(FAST_ARGS) {
    (void)self;
    return ctr("ctr256_encrypt", args, nargs, kwnames);
}
static PyObject *py_ctr256_decrypt(FAST_ARGS) {
    (void)self;
    return ctr("ctr256_decrypt", args, nargs, kwnames);
}
static PyObject *py_cbc256_encrypt(FAST_ARGS) {
    (void)self;
    return cbc("cbc256_encrypt", tg_cbc256_encrypt, args, nargs, kwnames);
}
static PyObject *py_cbc256_decrypt(FAST_ARGS) {
    (void)self;
    return cbc("cbc256_decrypt", tg_cbc256_decrypt, args, nargs, kwnames);
}

/* ------------------------------------------------------------------------ */
/* cryptg's three functions                                                 */

/* n random bytes from os.urandom into dst. */
static int random_bytes(uint8_t *dst, Py_ssize_t n) {
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
    else if ((size_t)len > MAX_DATA - 15) value_error(MSG_LARGE);
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

static PyObject *py_encrypt_ige(FAST_ARGS) {
    (void)self;
    return cryptg_ige(args, nargs, kwnames, 0);
}
static PyObject *py_decrypt_ige(FAST_ARGS) {
    (void)self;
    return cryptg_ige(args, nargs, kwnames, 1);
}

static const char *const PQ_NAMES[] = {"pq"};

static PyObject *py_factorize_pq_pair(FAST_ARGS) {
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
        if ((size_t)v[i].len > MAX_DATA) {
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

static PyObject *py_sha256(FAST_ARGS) {
    (void)self;
    return hash_parts("sha256", 32, tg_sha256_init, tg_sha256_update, tg_sha256_final, args, nargs, kwnames);
}
static PyObject *py_sha1(FAST_ARGS) {
    (void)self;
    return hash_parts("sha1", 20, tg_sha1_init, tg_sha1_update, tg_sha1_final, args, nargs, kwnames);
}

/* ------------------------------------------------------------------------ */
/* Backends                                                                 */

static PyObject *py_get_backend(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    const char *name = tg_backend();
    if (name == NULL) return core_error(tg_init());
    return PyUnicode_FromString(name);
}

static PyObject *py_hash_engine(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyUnicode_FromString(tg_hash_engine());
}

static PyObject *py_version(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyUnicode_FromString(tg_version());
}

static PyObject *py_backends(PyObject *self, PyObject *unused) {
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

static PyObject *py_set_backend(PyObject *self, PyObject *name) {
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

/* ------------------------------------------------------------------------ */
/* CTRContext, IGEContext, CBCContext                                       */

enum { KIND_CTR, KIND_IGE, KIND_CBC };

typedef struct {
    PyObject_HEAD
    void *ctx;               /* tg_ctr_ctx / tg_ige_ctx / tg_cbc_ctx; NULL once closed */
    PyThread_type_lock lock; /* one update at a time */
    int kind;
} Context;

static const char *const KIND_NAMES[] = {"CTRContext", "IGEContext", "CBCContext"};

static void context_free_native(Context *c) {
    if (c->ctx == NULL) return;
    if (c->kind == KIND_CTR) tg_ctr_free(c->ctx);
    else if (c->kind == KIND_IGE) tg_ige_free(c->ctx);
    else tg_cbc_free(c->ctx);
    c->ctx = NULL;
}

/* Takes the context's lock, letting other threads run while it waits. */
static void context_lock(Context *c) {
    if (PyThread_acquire_lock(c->lock, NOWAIT_LOCK)) return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(c->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}

static PyObject *context_new(PyTypeObject *type, int kind, PyObject *args, PyObject *kwds) {
    static char *ctr_kw[] = {"key", "iv", "state", NULL};
    static char *blk_kw[] = {"key", "iv", "decrypt", NULL};
    PyObject *key_obj, *iv_obj;
    int state = 0, decrypt = 0;
    int ok = kind == KIND_CTR
                 ? PyArg_ParseTupleAndKeywords(args, kwds, "OO|i:CTRContext", ctr_kw, &key_obj, &iv_obj, &state)
             : kind == KIND_IGE
                 ? PyArg_ParseTupleAndKeywords(args, kwds, "OO|p:IGEContext", blk_kw, &key_obj, &iv_obj, &decrypt)
                 : PyArg_ParseTupleAndKeywords(args, kwds, "OO|p:CBCContext", blk_kw, &key_obj, &iv_obj, &decrypt);
    if (!ok) return NULL;
    PyObject *pair[2] = {key_obj, iv_obj};
    Py_buffer v[2];
    if (get_own_buffers(pair, 2, v) < 0) return NULL;
    Context *self = NULL;
    const Py_ssize_t iv_len = kind == KIND_IGE ? 32 : 16;
    if (v[0].len != 32) value_error(MSG_KEY);
    else if (v[1].len != iv_len) value_error(iv_len == 32 ? MSG_IV32 : MSG_IV16);
    else if (kind == KIND_CTR && (state < 0 || state > 15)) value_error(MSG_STATE_VALUE);
    else {
        allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
        self = (Context *)alloc(type, 0);
        if (self != NULL) {
            self->kind = kind;
            self->ctx = kind == KIND_CTR   ? (void *)tg_ctr_new(v[0].buf, v[1].buf, (uint32_t)state)
                        : kind == KIND_IGE ? (void *)tg_ige_new(v[0].buf, v[1].buf, decrypt)
                                           : (void *)tg_cbc_new(v[0].buf, v[1].buf, decrypt);
            self->lock = PyThread_allocate_lock();
            if (self->ctx == NULL || self->lock == NULL) {
                Py_CLEAR(self);
                PyErr_NoMemory();
            }
        }
    }
    release(v, 2);
    return (PyObject *)self;
}

static PyObject *ctr_context_new(PyTypeObject *t, PyObject *a, PyObject *k) { return context_new(t, KIND_CTR, a, k); }
static PyObject *ige_context_new(PyTypeObject *t, PyObject *a, PyObject *k) { return context_new(t, KIND_IGE, a, k); }
static PyObject *cbc_context_new(PyTypeObject *t, PyObject *a, PyObject *k) { return context_new(t, KIND_CBC, a, k); }

static void context_dealloc(PyObject *o) {
    Context *c = (Context *)o;
    context_free_native(c);
    if (c->lock != NULL) PyThread_free_lock(c->lock);
    PyTypeObject *type = Py_TYPE(o);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(o);
    Py_DECREF(type);
}

static PyObject *closed_error(Context *c) {
    PyErr_Format(PyExc_ValueError, "%s is closed", KIND_NAMES[c->kind]);
    return NULL;
}

static PyObject *context_update(PyObject *o, PyObject *data) {
    Context *c = (Context *)o;
    Py_buffer v;
    if (PyObject_GetBuffer(data, &v, PyBUF_SIMPLE) != 0) return NULL;
    PyObject *out = NULL;
    const Py_ssize_t len = v.len;
    if (len == 0) value_error(MSG_EMPTY);
    else if (c->kind != KIND_CTR && len % 16 != 0) value_error(MSG_MULTIPLE);
    else if ((size_t)len > MAX_DATA) value_error(MSG_LARGE);
    else if ((out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
        context_lock(c);
        if (c->ctx == NULL) {
            Py_CLEAR(out);
            closed_error(c);
        } else {
            uint8_t *op = bytes_ptr(out);
            int rc;
#define CONTEXT_CALL                                                                      \
    rc = c->kind == KIND_CTR   ? tg_ctr_update(c->ctx, op, v.buf, (uint32_t)len)   \
         : c->kind == KIND_IGE ? tg_ige_update(c->ctx, op, v.buf, (uint32_t)len)   \
                               : tg_cbc_update(c->ctx, op, v.buf, (uint32_t)len)
            if (len >= NOGIL_MIN) {
                Py_BEGIN_ALLOW_THREADS
                CONTEXT_CALL;
                Py_END_ALLOW_THREADS
            } else {
                CONTEXT_CALL;
            }
#undef CONTEXT_CALL
            if (rc != TG_OK) {
                Py_CLEAR(out);
                core_error(rc);
            }
        }
        PyThread_release_lock(c->lock);
    }
    PyBuffer_Release(&v);
    return out;
}

static PyObject *context_position(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    uint8_t iv[16], state[1];
    context_lock(c);
    const int rc = c->ctx != NULL ? tg_ctr_position(c->ctx, iv, state) : TG_ERR_CONTEXT;
    PyThread_release_lock(c->lock);
    if (rc == TG_ERR_CONTEXT) return closed_error(c);
    if (rc != TG_OK) return core_error(rc);
    return Py_BuildValue("(y#i)", (const char *)iv, (Py_ssize_t)16, (int)state[0]);
}

static PyObject *context_close(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    context_lock(c);
    context_free_native(c);
    PyThread_release_lock(c->lock);
    Py_RETURN_NONE;
}

static PyObject *context_enter(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    if (c->ctx == NULL) return closed_error(c);
    Py_INCREF(o);
    return o;
}

static PyObject *context_exit(PyObject *o, PyObject *args) {
    (void)args;
    return context_close(o, NULL);
}

static PyObject *context_get_closed(PyObject *o, void *unused) {
    (void)unused;
    return PyBool_FromLong(((Context *)o)->ctx == NULL);
}

#define CONTEXT_COMMON_METHODS                                                                          \
    {"update", context_update, METH_O, "update(data) -> bytes: the next chunk (IGE/CBC: a multiple of 16)"}, \
    {"close", context_close, METH_NOARGS, "close(): wipe and free the key schedule (idempotent)"},          \
    {"__enter__", context_enter, METH_NOARGS, NULL},                                                         \
    {"__exit__", context_exit, METH_VARARGS, NULL}

static PyMethodDef ctr_context_methods[] = {
    CONTEXT_COMMON_METHODS,
    {"position", context_position, METH_NOARGS,
     "position() -> (iv, state): the counter block and offset the next byte uses, as ctr256_encrypt leaves them"},
    {NULL, NULL, 0, NULL},
};
static PyMethodDef block_context_methods[] = {CONTEXT_COMMON_METHODS, {NULL, NULL, 0, NULL}};

static PyGetSetDef context_getset[] = {
    {"closed", context_get_closed, NULL, "True once close() has run", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot ctr_context_slots[] = {
    {Py_tp_new, ctr_context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, ctr_context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "CTRContext(key, iv, state=0): AES-256-CTR with the key expanded once.\n\n"
                "update(data) continues the stream exactly as repeated ctr256_encrypt() calls would;\n"
                "key and iv are copied. Encryption and decryption are the same operation."},
    {0, NULL},
};
static PyType_Slot ige_context_slots[] = {
    {Py_tp_new, ige_context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, block_context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "IGEContext(key, iv, decrypt=False): AES-256-IGE whose chaining continues across update() calls."},
    {0, NULL},
};
static PyType_Slot cbc_context_slots[] = {
    {Py_tp_new, cbc_context_new},
    {Py_tp_dealloc, context_dealloc},
    {Py_tp_methods, block_context_methods},
    {Py_tp_getset, context_getset},
    {Py_tp_doc, "CBCContext(key, iv, decrypt=False): AES-256-CBC whose chaining continues across update() calls."},
    {0, NULL},
};

static PyType_Spec ctr_context_spec = {"tgcrypto_ffi.CTRContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       ctr_context_slots};
static PyType_Spec ige_context_spec = {"tgcrypto_ffi.IGEContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       ige_context_slots};
static PyType_Spec cbc_context_spec = {"tgcrypto_ffi.CBCContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       cbc_context_slots};

/* ------------------------------------------------------------------------ */
/* AuthKey: the MTProto 2.0 message layer                                   */

typedef struct {
    PyObject_HEAD
    tg_auth_key *key; /* NULL once freed */
    uint8_t id[8];
    int users;        /* calls in progress without the GIL */
    int closed;       /* close() ran; the key is freed when users drops to 0 */
} AuthKey;

/* Random padding: 4 KiB from os.urandom, handed out in 32-byte slots, each
 * copied out for one message and wiped. Only touched with the GIL held. */
#define POOL_SIZE 4096
#define SLOT 32
static uint8_t pool[POOL_SIZE];
static size_t pool_next = POOL_SIZE;

/* Copies the next unused slot into out and wipes it there. os.urandom may
 * release the GIL, so another thread can refill the pool meanwhile: the
 * caller therefore works on its own copy, never on the pool. */
static int take_padding(uint8_t out[SLOT]) {
    if (pool_next >= POOL_SIZE) {
        uint8_t fresh[POOL_SIZE];
        if (random_bytes(fresh, POOL_SIZE) < 0) return -1;
        memcpy(pool, fresh, POOL_SIZE);
        wipe(fresh, sizeof fresh);
        pool_next = 0;
    }
    memcpy(out, pool + pool_next, SLOT);
    wipe(pool + pool_next, SLOT);
    pool_next += SLOT;
    return 0;
}

static PyObject *auth_key_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"key", NULL};
    PyObject *key_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:AuthKey", kw, &key_obj)) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(key_obj, &v, PyBUF_SIMPLE) != 0) return NULL;
    AuthKey *self = NULL;
    if (v.len != TG_AUTH_KEY_SIZE) value_error("Auth key size must be exactly 256 bytes");
    else {
        allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
        self = (AuthKey *)alloc(type, 0);
        if (self != NULL) {
            self->key = tg_auth_key_new(v.buf);
            if (self->key == NULL || tg_auth_key_id(self->key, self->id) != TG_OK) {
                Py_CLEAR(self);
                PyErr_NoMemory();
            }
        }
    }
    PyBuffer_Release(&v);
    return (PyObject *)self;
}

static void auth_key_release_native(AuthKey *k) {
    if (k->key != NULL) tg_auth_key_free(k->key);
    k->key = NULL;
}

static void auth_key_dealloc(PyObject *o) {
    auth_key_release_native((AuthKey *)o);
    PyTypeObject *type = Py_TYPE(o);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(o);
    Py_DECREF(type);
}

static int auth_key_open(AuthKey *k) {
    if (k->closed || k->key == NULL) {
        PyErr_SetString(PyExc_ValueError, "AuthKey is closed");
        return -1;
    }
    return 0;
}

/* Called with the GIL after a call that ran without it. */
static void auth_key_done(AuthKey *k) {
    if (--k->users == 0 && k->closed) auth_key_release_native(k);
}

static int parse_server(PyObject *o, int *server) {
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
static int options(const char *fname, Py_ssize_t nargs, Py_ssize_t nfixed, PyObject *const *args, PyObject *kwnames,
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

static const char *const ENCRYPT_OPTIONS[] = {"server", "padding"};
static const char *const DECRYPT_OPTIONS[] = {"server"};

/* encrypt_message(plaintext, *, server=False, padding=None) */
static PyObject *auth_key_encrypt(PyObject *o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    AuthKey *k = (AuthKey *)o;
    PyObject *opt[2];
    int server;
    if (options("encrypt_message", nargs, 1, args, kwnames, ENCRYPT_OPTIONS, 2, opt) < 0) return NULL;
    if (parse_server(opt[0], &server) < 0) return NULL;
    PyObject *padding_obj = opt[1] != NULL && opt[1] != Py_None ? opt[1] : NULL;

    /* The plaintext: one bytes-like object, or a list/tuple of parts. */
    PyObject *plain = args[0];
    PyObject *seq = NULL;
    Py_ssize_t nparts = 1;
    if (PyList_Check(plain) || PyTuple_Check(plain)) {
        seq = PySequence_Tuple(plain);
        if (seq == NULL) return NULL;
        nparts = PyTuple_Size(seq);
    }
    Py_buffer small[2], *parts = small;
    Py_buffer pad_view;
    int have_pad = 0, got = 0;
    PyObject *out = NULL;
    uint8_t *joined = NULL, own_pad[SLOT] = {0};
    size_t total = 0;
    if (nparts > 2 && (parts = PyMem_Malloc(sizeof(Py_buffer) * (size_t)nparts)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < nparts; got++) {
        PyObject *part = seq != NULL ? PyTuple_GetItem(seq, got) : plain;
        if (PyObject_GetBuffer(part, &parts[got], PyBUF_SIMPLE) != 0) goto done;
        total += (size_t)parts[got].len;
    }
    if (padding_obj != NULL) {
        if (PyObject_GetBuffer(padding_obj, &pad_view, PyBUF_SIMPLE) != 0) goto done;
        have_pad = 1;
    }
    if (auth_key_open(k) < 0) goto done;
    if (total == 0) {
        value_error("Plaintext must not be empty");
        goto done;
    }
    if (total < 32) {
        value_error("Plaintext must be at least 32 bytes (salt, session_id, msg_id, seq_no, message_data_length)");
        goto done;
    }
    size_t pad_len;
    if (have_pad) {
        pad_len = (size_t)pad_view.len;
        if (pad_len < 12 || pad_len > 1024) {
            PyErr_Format(PyExc_ValueError, "Padding must be 12 to 1024 bytes (got %zu)", pad_len);
            goto done;
        }
        if ((total + pad_len) % 16 != 0) {
            PyErr_Format(PyExc_ValueError, "Plaintext plus padding must be a multiple of 16 bytes (got %zu + %zu)",
                         total, pad_len);
            goto done;
        }
    } else {
        pad_len = 12 + (16 - (total + 12) % 16) % 16;
    }
    if (total > (size_t)MAX_PACKET - 24 - pad_len) {
        value_error("Message is too large (max 2147483647 bytes per packet)");
        goto done;
    }
    const uint8_t *head = NULL, *body = NULL;
    uint32_t head_len = 0, body_len = 0;
    if (nparts == 1) {
        body = parts[0].buf, body_len = (uint32_t)parts[0].len;
    } else if (nparts == 2) {
        head = parts[0].buf, head_len = (uint32_t)parts[0].len;
        body = parts[1].buf, body_len = (uint32_t)parts[1].len;
    } else {
        if ((joined = malloc(total)) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        size_t at = 0;
        for (Py_ssize_t i = 0; i < nparts; i++) {
            if (parts[i].len != 0) memcpy(joined + at, parts[i].buf, (size_t)parts[i].len);
            at += (size_t)parts[i].len;
        }
        body = joined, body_len = (uint32_t)total;
    }
    const uint8_t *pad;
    if (have_pad) {
        pad = pad_view.buf;
    } else {
        if (take_padding(own_pad) < 0) goto done;
        pad = own_pad;
    }
    const size_t packet_len = 24 + total + pad_len;
    if ((out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)packet_len)) != NULL) {
        uint8_t *packet = bytes_ptr(out);
        const uint32_t x = server ? TG_MTPROTO_FROM_SERVER : TG_MTPROTO_FROM_CLIENT;
        int rc;
        if (packet_len >= NOGIL_MIN) {
            k->users++;
            Py_BEGIN_ALLOW_THREADS
            rc = tg_mtproto_encrypt(k->key, x, packet, head, head_len, body, body_len, pad, (uint32_t)pad_len);
            Py_END_ALLOW_THREADS
            auth_key_done(k);
        } else {
            rc = tg_mtproto_encrypt(k->key, x, packet, head, head_len, body, body_len, pad, (uint32_t)pad_len);
        }
        if (rc != TG_OK) {
            Py_CLEAR(out);
            core_error(rc);
        }
    }
done:
    wipe(own_pad, sizeof own_pad);
    if (joined != NULL) {
        wipe(joined, total);
        free(joined);
    }
    if (have_pad) PyBuffer_Release(&pad_view);
    release(parts, got);
    if (parts != small) PyMem_Free(parts);
    Py_XDECREF(seq);
    return out;
}

static PyObject *security_error(void) {
    PyErr_SetString(SecurityError, "MTProto message rejected");
    return NULL;
}

/* decrypt_message(packet, *, server=False) */
static PyObject *auth_key_decrypt(PyObject *o, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    AuthKey *k = (AuthKey *)o;
    PyObject *opt[1];
    int server;
    if (options("decrypt_message", nargs, 1, args, kwnames, DECRYPT_OPTIONS, 1, opt) < 0) return NULL;
    if (parse_server(opt[0], &server) < 0) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(args[0], &v, PyBUF_SIMPLE) != 0) return NULL;
    PyObject *out = NULL;
    if (auth_key_open(k) < 0) goto done;
    /* Lengths are public: reject what cannot be a packet before allocating. */
    const size_t len = (size_t)v.len;
    if (len < 72 || len > (size_t)MAX_PACKET || (len - 24) % 16 != 0) {
        security_error();
        goto done;
    }
    const size_t room = len - 24;
    uint8_t *plain = malloc(room);
    if (plain == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const uint32_t x = server ? TG_MTPROTO_FROM_CLIENT : TG_MTPROTO_FROM_SERVER;
    int rc;
    if (len >= NOGIL_MIN) {
        k->users++;
        Py_BEGIN_ALLOW_THREADS
        rc = tg_mtproto_decrypt(k->key, x, plain, v.buf, (uint32_t)len);
        Py_END_ALLOW_THREADS
        auth_key_done(k);
    } else {
        rc = tg_mtproto_decrypt(k->key, x, plain, v.buf, (uint32_t)len);
    }
    if (rc >= 0) out = PyBytes_FromStringAndSize((const char *)plain, rc);
    else if (rc == TG_ERR_SECURITY || rc == TG_ERR_SIZE) security_error();
    else core_error(rc);
    wipe(plain, room);
    free(plain);
done:
    PyBuffer_Release(&v);
    return out;
}

static PyObject *auth_key_close(PyObject *o, PyObject *unused) {
    (void)unused;
    AuthKey *k = (AuthKey *)o;
    k->closed = 1;
    if (k->users == 0) auth_key_release_native(k);
    Py_RETURN_NONE;
}

static PyObject *auth_key_enter(PyObject *o, PyObject *unused) {
    (void)unused;
    if (auth_key_open((AuthKey *)o) < 0) return NULL;
    Py_INCREF(o);
    return o;
}

static PyObject *auth_key_exit(PyObject *o, PyObject *args) {
    (void)args;
    return auth_key_close(o, NULL);
}

static PyObject *auth_key_get_id(PyObject *o, void *unused) {
    (void)unused;
    AuthKey *k = (AuthKey *)o;
    return PyBytes_FromStringAndSize((const char *)k->id, 8);
}

static PyObject *auth_key_get_closed(PyObject *o, void *unused) {
    (void)unused;
    return PyBool_FromLong(((AuthKey *)o)->closed);
}

static PyMethodDef auth_key_methods[] = {
    {"encrypt_message", (PyCFunction)(void (*)(void))auth_key_encrypt, METH_FASTCALL | METH_KEYWORDS,
     "encrypt_message(plaintext, *, server=False, padding=None) -> bytes\n\n"
     "auth_key_id || msg_key || AES-256-IGE(plaintext || padding). plaintext (salt, session_id, msg_id,\n"
     "seq_no, message_data_length, message_data) is a bytes-like object or a list/tuple of them.\n"
     "Encrypts as the client (x = 0); server=True as the server (x = 8). padding: exact bytes\n"
     "(12..1024, total a multiple of 16); by default the shortest padding of os.urandom bytes."},
    {"decrypt_message", (PyCFunction)(void (*)(void))auth_key_decrypt, METH_FASTCALL | METH_KEYWORDS,
     "decrypt_message(packet, *, server=False) -> bytes\n\n"
     "Checks and decrypts a server's packet (server=True: a client's). Returns salt .. end of\n"
     "message_data (32 + message_data_length bytes). Any failed check raises MtprotoSecurityError."},
    {"close", auth_key_close, METH_NOARGS, "close(): wipe and free the key (idempotent)"},
    {"__enter__", auth_key_enter, METH_NOARGS, NULL},
    {"__exit__", auth_key_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef auth_key_getset[] = {
    {"id", auth_key_get_id, NULL, "auth_key_id: the last 8 bytes of SHA1(auth_key)", NULL},
    {"closed", auth_key_get_closed, NULL, "True once close() has run", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot auth_key_slots[] = {
    {Py_tp_new, auth_key_new},
    {Py_tp_dealloc, auth_key_dealloc},
    {Py_tp_methods, auth_key_methods},
    {Py_tp_getset, auth_key_getset},
    {Py_tp_doc, "AuthKey(key): a 256-byte MTProto 2.0 auth_key, copied into native memory (wiped on close()\n"
                "or when collected), and the whole message layer over it."},
    {0, NULL},
};

static PyType_Spec auth_key_spec = {"tgcrypto_ffi.AuthKey", sizeof(AuthKey), 0, Py_TPFLAGS_DEFAULT, auth_key_slots};

/* ------------------------------------------------------------------------ */
/* The module                                                               */

#define FAST(name, fn, doc) {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL | METH_KEYWORDS, doc}

static PyMethodDef methods[] = {
    FAST("ige256_encrypt", py_ige256_encrypt, "ige256_encrypt(data, key, iv) -> bytes: AES-256-IGE encryption"),
    FAST("ige256_decrypt", py_ige256_decrypt, "ige256_decrypt(data, key, iv) -> bytes: AES-256-IGE decryption"),
    FAST("ctr256_encrypt", py_ctr256_encrypt,
         "ctr256_encrypt(data, key, iv, state) -> bytes: AES-256-CTR; writable iv/state are advanced in place"),
    FAST("ctr256_decrypt", py_ctr256_decrypt,
         "ctr256_decrypt(data, key, iv, state) -> bytes: AES-256-CTR; writable iv/state are advanced in place"),
    FAST("cbc256_encrypt", py_cbc256_encrypt,
         "cbc256_encrypt(data, key, iv) -> bytes: AES-256-CBC encryption; a writable iv gets the last block"),
    FAST("cbc256_decrypt", py_cbc256_decrypt,
         "cbc256_decrypt(data, key, iv) -> bytes: AES-256-CBC decryption; a writable iv gets the last block"),
    FAST("encrypt_ige", py_encrypt_ige,
         "encrypt_ige(plain, key, iv) -> bytes: AES-256-IGE; a partial last block is padded with random bytes"),
    FAST("decrypt_ige", py_decrypt_ige, "decrypt_ige(cipher, key, iv) -> bytes: AES-256-IGE decryption"),
    FAST("factorize_pq_pair", py_factorize_pq_pair,
         "factorize_pq_pair(pq) -> (p, q): p the smallest prime factor of pq, q = pq // p"),
    FAST("sha256", py_sha256, "sha256(*parts) -> bytes: SHA-256 of the concatenation of the parts"),
    FAST("sha1", py_sha1, "sha1(*parts) -> bytes: SHA-1 of the concatenation of the parts"),
    {"get_backend", py_get_backend, METH_NOARGS, "get_backend() -> str: the AES backend in use"},
    {"backends", py_backends, METH_NOARGS, "backends() -> [(name, available)]: compiled in, best first"},
    {"set_backend", py_set_backend, METH_O, "set_backend(name): switch the process-wide backend"},
    {"hash_engine", py_hash_engine, METH_NOARGS, "hash_engine() -> str: 'sha-ni', 'armv8-sha' or 'portable'"},
    {"version", py_version, METH_NOARGS, "version() -> str: the core library's version"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_native", "The native core of tgcrypto_ffi (use the tgcrypto_ffi package).", -1,
    methods, NULL, NULL, NULL, NULL,
};

static int add_type(PyObject *m, PyType_Spec *spec, const char *name) {
    PyObject *t = PyType_FromSpec(spec);
    if (t == NULL) return -1;
    if (PyModule_AddObject(m, name, t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}

/* The names of the available backends, for the TGCRYPTO_BACKEND message. */
static void available_names(char *buf, size_t size) {
    buf[0] = '\0';
    for (uint32_t i = 0; i < tg_backend_count(); i++) {
        if (!tg_backend_available(i)) continue;
        const size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s", used ? ", " : "", tg_backend_name(i));
    }
}

PyMODINIT_FUNC PyInit__native(void) {
    const int rc = tg_init();
    if (rc != TG_OK) {
        char names[128];
        available_names(names, sizeof names);
        const char *value = getenv("TGCRYPTO_BACKEND");
        PyErr_Format(PyExc_ImportError,
                     "tgcrypto_ffi: TGCRYPTO_BACKEND='%s' cannot be used: %s. Available backends: %s "
                     "(leave it unset to pick the fastest)",
                     value != NULL ? value : "", tg_strerror(rc), names);
        return NULL;
    }
    PyObject *os = PyImport_ImportModule("os");
    if (os == NULL) return NULL;
    Py_XDECREF(urandom);
    urandom = PyObject_GetAttrString(os, "urandom");
    Py_DECREF(os);
    if (urandom == NULL) return NULL;

    PyObject *m = PyModule_Create(&module_def);
    if (m == NULL) return NULL;
#ifdef Py_GIL_DISABLED
    /* Free-threaded CPython: importing this module keeps the GIL off. */
    if (PyUnstable_Module_SetGIL(m, Py_MOD_GIL_NOT_USED) < 0) goto fail;
#endif
    if (add_type(m, &ctr_context_spec, "CTRContext") < 0 || add_type(m, &ige_context_spec, "IGEContext") < 0 ||
        add_type(m, &cbc_context_spec, "CBCContext") < 0 || add_type(m, &auth_key_spec, "AuthKey") < 0)
        goto fail;
    if (SecurityError == NULL) {
        SecurityError = PyErr_NewExceptionWithDoc(
            "tgcrypto_ffi.MtprotoSecurityError",
            "An MTProto packet was rejected (any failed check; always the message \"MTProto message rejected\").",
            NULL, NULL);
        if (SecurityError == NULL) goto fail;
    }
    Py_INCREF(SecurityError);
    if (PyModule_AddObject(m, "MtprotoSecurityError", SecurityError) < 0) {
        Py_DECREF(SecurityError);
        goto fail;
    }
    if (PyModule_AddIntConstant(m, "NOGIL_MIN", NOGIL_MIN) < 0) goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
