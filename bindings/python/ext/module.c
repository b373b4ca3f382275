/* module.c - the method table and PyInit__native. */
#include "native.h"

PyObject *SecurityError;
PyObject *urandom;

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
    if (padding_pool_init() < 0) return NULL;
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
