/*
 * native.h - what the files of the CPython extension module tgcrypto_ffi._native share.
 *
 * Argument handling, the TgCrypto and cryptg calling conventions and
 * messages, the reusable contexts and AuthKey, all over the flat C ABI of
 * csrc/tgcrypto.h (whose sources are compiled into the same module). No
 * cryptography is done here: every byte of AES, SHA and MTProto comes from
 * the core.
 *
 * One set of sources (this folder), two builds:
 *   - with Py_LIMITED_API=0x030B0000: the stable ABI of CPython 3.11+ (abi3);
 *     3.11 is the first version whose limited API has Py_buffer and
 *     PyObject_GetBuffer, which everything here needs (bytes, bytearray and
 *     memoryview arguments, and writing the CTR/CBC state back in place);
 *   - without it, for CPython 3.9 and 3.10 and the free-threaded builds
 *     (3.13t, 3.14t), which have no stable ABI (version-specific wheels).
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
 *   - free-threaded CPython: the module declares Py_MOD_GIL_NOT_USED; what
 *     threads share is locked (each context, each AuthKey's use count, the
 *     padding pool), and an AuthKey is freed only when no call uses it;
 *   - every Python object is created with the GIL (attached thread state);
 *   - temporaries that hold plaintext or padding are wiped before freeing;
 *     keys are read in place from the caller's buffer and never copied here
 *     (the core wipes its key schedules and AuthKey copy).
 */
#ifndef TGFFI_NATIVE_H
#define TGFFI_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tgcrypto.h"
#include "contract.h" /* generated from contract/rules.json: the limits, rules and messages of every host */

/* Inputs from this size on run with the GIL released: releasing and taking
 * it back costs ~50 ns, about 40 bytes of IGE, and below a few KiB other
 * threads wait less than the switch would cost. */
#define NOGIL_MIN 4096

/* A lock that is correct with and without the GIL. Waiting for it never
 * blocks other Python threads: PyMutex detaches the thread state while it
 * waits (CPython 3.13+, not in the limited API); the PyThread lock is first
 * tried, then waited for with the GIL released. Never held across a call
 * into Python code. */
#if !defined(Py_LIMITED_API) && PY_VERSION_HEX >= 0x030D0000
typedef struct {
    PyMutex mutex;
} ext_lock;
static inline int ext_lock_init(ext_lock *l) {
    l->mutex = (PyMutex){0};
    return 0;
}
static inline void ext_lock_acquire(ext_lock *l) { PyMutex_Lock(&l->mutex); }
static inline void ext_lock_release(ext_lock *l) { PyMutex_Unlock(&l->mutex); }
static inline void ext_lock_free(ext_lock *l) { (void)l; }
#else
typedef struct {
    PyThread_type_lock handle;
} ext_lock;
static inline int ext_lock_init(ext_lock *l) {
    l->handle = PyThread_allocate_lock();
    return l->handle != NULL ? 0 : -1;
}
static inline void ext_lock_acquire(ext_lock *l) {
    if (PyThread_acquire_lock(l->handle, NOWAIT_LOCK)) return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(l->handle, WAIT_LOCK);
    Py_END_ALLOW_THREADS
}
static inline void ext_lock_release(ext_lock *l) { PyThread_release_lock(l->handle); }
static inline void ext_lock_free(ext_lock *l) {
    if (l->handle != NULL) PyThread_free_lock(l->handle);
    l->handle = NULL;
}
#endif

/* TgCrypto's messages (args.c) */
extern const char MSG_EMPTY[], MSG_MULTIPLE[], MSG_LARGE[], MSG_KEY[], MSG_IV32[], MSG_IV16[], MSG_STATE_SIZE[],
    MSG_STATE_VALUE[];

extern PyObject *SecurityError; /* tgcrypto_ffi.MtprotoSecurityError (module.c) */
extern PyObject *urandom;       /* os.urandom (module.c) */

/* args.c */
void wipe(void *p, size_t n);
PyObject *value_error(const char *msg);
PyObject *core_error(int rc);
void release(Py_buffer *v, int n);
int get_buffers(PyObject *const *args, int n, Py_buffer *v);
/* get_buffers for the functions without a stock counterpart (hashes, contexts): on PyPy
 * too they word their errors as on CPython. */
int get_own_buffers(PyObject *const *args, int n, Py_buffer *v);
#ifdef PYPY_VERSION
/* PyPy's cpyext exports a strided memoryview as a contiguous copy and words a missing
 * buffer interface its own way: every PyObject_GetBuffer here checks as CPython first
 * (args.c; get_buffers calls cpyext's PyPyObject_GetBuffer itself, as TgCrypto's "y*"). */
int pypy_get_buffer(PyObject *o, Py_buffer *v, int flags);
#undef PyObject_GetBuffer
#define PyObject_GetBuffer pypy_get_buffer
#endif
PyObject *type_name(PyObject *o);
int get_named_buffer(PyObject *o, const char *argname, Py_buffer *v);
int tgcrypto_args(const char *name, Py_ssize_t nargs, PyObject *kwnames, Py_ssize_t want);
int keyword_args(const char *fname, const char *const *names, int n, PyObject *const *args, Py_ssize_t nargs,
                 PyObject *kwnames, PyObject **out);
int options(const char *fname, Py_ssize_t nargs, Py_ssize_t nfixed, PyObject *const *args, PyObject *kwnames,
            const char *const *names, int n, PyObject **out);
int parse_server(PyObject *o, int *server);
int random_bytes(uint8_t *dst, Py_ssize_t n);

/* Writable pointer into a bytes object this module has just created. */
static inline uint8_t *bytes_ptr(PyObject *b) { return (uint8_t *)PyBytes_AsString(b); }

/* padding_pool.c: padding_pool_init() once at import; take_padding copies
 * 32 fresh random bytes into out */
#define PADDING_SLOT 32
int padding_pool_init(void);
int take_padding(uint8_t out[PADDING_SLOT]);

/* tg_ige256_encrypt and _decrypt; tg_cbc256_encrypt and _decrypt */
typedef int (*block_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, const uint8_t *);
typedef int (*chain_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint8_t *);

#define FAST_ARGS PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

/* tgcrypto_calls.c */
PyObject *py_ige256_encrypt(FAST_ARGS);
PyObject *py_ige256_decrypt(FAST_ARGS);
PyObject *py_ctr256_encrypt(FAST_ARGS);
PyObject *py_ctr256_decrypt(FAST_ARGS);
PyObject *py_cbc256_encrypt(FAST_ARGS);
PyObject *py_cbc256_decrypt(FAST_ARGS);

/* cryptg_calls.c */
PyObject *py_encrypt_ige(FAST_ARGS);
PyObject *py_decrypt_ige(FAST_ARGS);
PyObject *py_factorize_pq_pair(FAST_ARGS);

/* hashes.c */
PyObject *py_sha256(FAST_ARGS);
PyObject *py_sha1(FAST_ARGS);

/* backends.c */
PyObject *py_get_backend(PyObject *self, PyObject *unused);
PyObject *py_hash_engine(PyObject *self, PyObject *unused);
PyObject *py_version(PyObject *self, PyObject *unused);
PyObject *py_backends(PyObject *self, PyObject *unused);
PyObject *py_set_backend(PyObject *self, PyObject *name);

/* contexts.c, auth_key.c */
extern PyType_Spec ctr_context_spec, ige_context_spec, cbc_context_spec, auth_key_spec;

#endif
