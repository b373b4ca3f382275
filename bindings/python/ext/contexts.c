/* contexts.c - CTRContext, IGEContext, CBCContext: streaming AES with the key expanded once. */
#include "native.h"

/* ------------------------------------------------------------------------ */
/* CTRContext, IGEContext, CBCContext                                       */

enum { KIND_CTR, KIND_IGE, KIND_CBC };

typedef struct {
    PyObject_HEAD
    void *ctx;               /* tg_ctr_ctx / tg_ige_ctx / tg_cbc_ctx; NULL once closed */
    ext_lock lock;           /* one update at a time; guards ctx */
    int lock_ready;
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
            self->lock_ready = ext_lock_init(&self->lock) == 0;
            if (self->ctx == NULL || !self->lock_ready) {
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
    if (c->lock_ready) ext_lock_free(&c->lock);
    PyTypeObject *type = Py_TYPE(o);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(o);
    Py_DECREF(type);
}

/* 1 once close() has run (read under the lock: another thread may be closing) */
static int context_is_closed(Context *c) {
    ext_lock_acquire(&c->lock);
    const int closed = c->ctx == NULL;
    ext_lock_release(&c->lock);
    return closed;
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
    /* Empty data is an empty chunk, as in every host (a stream may yield
     * one); a closed context is still an error. */
    if (len == 0) {
        ext_lock_acquire(&c->lock);
        if (c->ctx == NULL) closed_error(c);
        else out = PyBytes_FromStringAndSize(NULL, 0);
        ext_lock_release(&c->lock);
    } else if (c->kind != KIND_CTR && len % 16 != 0) value_error(MSG_MULTIPLE);
    else if (!tg_rule_data_length_fits((size_t)len)) value_error(MSG_LARGE);
    else if ((out = PyBytes_FromStringAndSize(NULL, len)) != NULL) {
        ext_lock_acquire(&c->lock);
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
        ext_lock_release(&c->lock);
    }
    PyBuffer_Release(&v);
    return out;
}

static PyObject *context_position(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    uint8_t iv[16], state[1];
    ext_lock_acquire(&c->lock);
    const int rc = c->ctx != NULL ? tg_ctr_position(c->ctx, iv, state) : TG_ERR_CONTEXT;
    ext_lock_release(&c->lock);
    if (rc == TG_ERR_CONTEXT) return closed_error(c);
    if (rc != TG_OK) return core_error(rc);
    return Py_BuildValue("(y#i)", (const char *)iv, (Py_ssize_t)16, (int)state[0]);
}

static PyObject *context_close(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    ext_lock_acquire(&c->lock);
    context_free_native(c);
    ext_lock_release(&c->lock);
    Py_RETURN_NONE;
}

static PyObject *context_enter(PyObject *o, PyObject *unused) {
    (void)unused;
    Context *c = (Context *)o;
    if (context_is_closed(c)) return closed_error(c);
    Py_INCREF(o);
    return o;
}

static PyObject *context_exit(PyObject *o, PyObject *args) {
    (void)args;
    return context_close(o, NULL);
}

static PyObject *context_get_closed(PyObject *o, void *unused) {
    (void)unused;
    return PyBool_FromLong(context_is_closed((Context *)o));
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

PyType_Spec ctr_context_spec = {"tgcrypto_ffi.CTRContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       ctr_context_slots};
PyType_Spec ige_context_spec = {"tgcrypto_ffi.IGEContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       ige_context_slots};
PyType_Spec cbc_context_spec = {"tgcrypto_ffi.CBCContext", sizeof(Context), 0, Py_TPFLAGS_DEFAULT,
                                       cbc_context_slots};
