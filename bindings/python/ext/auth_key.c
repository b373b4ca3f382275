/* auth_key.c - AuthKey: the MTProto 2.0 message layer over one auth_key. */
#include "native.h"

typedef struct {
    PyObject_HEAD
    tg_auth_key *key; /* NULL once freed */
    uint8_t id[8];
    ext_lock lock;    /* guards key, users and closed */
    int users;        /* calls using key right now */
    int closed;       /* close() ran; the key is freed when users drops to 0 */
} AuthKey;

static PyObject *auth_key_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kw[] = {"key", NULL};
    PyObject *key_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O:AuthKey", kw, &key_obj)) return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(key_obj, &v, PyBUF_SIMPLE) != 0) return NULL;
    AuthKey *self = NULL;
    if (v.len != TG_AUTH_KEY_SIZE) value_error(TG_MSG_BAD_AUTH_KEY_SIZE);
    else {
        allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
        self = (AuthKey *)alloc(type, 0);
        if (self != NULL) {
            self->key = tg_auth_key_new(v.buf);
            if (ext_lock_init(&self->lock) < 0 || self->key == NULL ||
                tg_auth_key_id(self->key, self->id) != TG_OK) {
                Py_CLEAR(self);
                PyErr_NoMemory();
            }
        }
    }
    PyBuffer_Release(&v);
    return (PyObject *)self;
}

static void auth_key_dealloc(PyObject *o) {
    AuthKey *k = (AuthKey *)o;
    /* no call can be using the key: each holds a reference to the object */
    if (k->key != NULL) tg_auth_key_free(k->key);
    k->key = NULL;
    ext_lock_free(&k->lock);
    PyTypeObject *type = Py_TYPE(o);
    freefunc free_fn = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_fn(o);
    Py_DECREF(type);
}

/* The key for one call, counted as in use until auth_key_put(); NULL (with
 * ValueError) once closed. Another thread's close() meanwhile only marks
 * the key closed: the last user frees it. */
static tg_auth_key *auth_key_get(AuthKey *k) {
    ext_lock_acquire(&k->lock);
    tg_auth_key *key = k->closed ? NULL : k->key;
    if (key != NULL) k->users++;
    ext_lock_release(&k->lock);
    if (key == NULL) PyErr_SetString(PyExc_ValueError, "AuthKey is closed");
    return key;
}

static void auth_key_put(AuthKey *k) {
    tg_auth_key *to_free = NULL;
    ext_lock_acquire(&k->lock);
    if (--k->users == 0 && k->closed) {
        to_free = k->key;
        k->key = NULL;
    }
    ext_lock_release(&k->lock);
    if (to_free != NULL) tg_auth_key_free(to_free);
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
    uint8_t *joined = NULL, own_pad[PADDING_SLOT] = {0};
    tg_auth_key *key = NULL;
    size_t total = 0, joined_len = 0;
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
    if ((key = auth_key_get(k)) == NULL) goto done;
    if (total == 0) {
        value_error(TG_MSG_EMPTY_PLAINTEXT);
        goto done;
    }
    if (total < TG_LIMIT_MTPROTO_HEADER_SIZE) {
        value_error(TG_MSG_SHORT_PLAINTEXT);
        goto done;
    }
    size_t pad_len;
    if (have_pad) {
        pad_len = (size_t)pad_view.len;
        if (pad_len < TG_LIMIT_MIN_PADDING || pad_len > TG_LIMIT_MAX_PADDING) {
            PyErr_Format(PyExc_ValueError, TG_MSG_BAD_PADDING_SIZE_FMT, pad_len);
            goto done;
        }
        if ((total + pad_len) % 16 != 0) {
            PyErr_Format(PyExc_ValueError, TG_MSG_BAD_PADDING_TOTAL_FMT, total, pad_len);
            goto done;
        }
    } else {
        pad_len = tg_rule_default_padding_length(total);
    }
    if (!tg_rule_message_length_fits(total + pad_len)) {
        value_error(TG_MSG_MESSAGE_TOO_LARGE);
        goto done;
    }
    /* The plaintext as (head, body), as every host passes it: one or two
     * parts as they are; with three or more, the parts before the last (or
     * after the first, whichever side is shorter) joined into one buffer. */
    const uint8_t *head = NULL, *body = NULL;
    uint32_t head_len = 0, body_len = 0;
    if (nparts <= 2) {
        if (nparts > 0) head = parts[0].buf, head_len = (uint32_t)parts[0].len;
        if (nparts > 1) body = parts[1].buf, body_len = (uint32_t)parts[1].len;
    } else {
        const Py_buffer *first = &parts[0], *last = &parts[nparts - 1];
        const int join_head = last->len >= first->len;
        const Py_ssize_t from = join_head ? 0 : 1, to = join_head ? nparts - 1 : nparts;
        joined_len = total - (size_t)(join_head ? last->len : first->len);
        if (joined_len != 0 && (joined = malloc(joined_len)) == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        size_t at = 0;
        for (Py_ssize_t i = from; i < to; i++) {
            if (parts[i].len != 0) memcpy(joined + at, parts[i].buf, (size_t)parts[i].len);
            at += (size_t)parts[i].len;
        }
        if (join_head) {
            head = joined, head_len = (uint32_t)joined_len;
            body = last->buf, body_len = (uint32_t)last->len;
        } else {
            head = first->buf, head_len = (uint32_t)first->len;
            body = joined, body_len = (uint32_t)joined_len;
        }
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
            Py_BEGIN_ALLOW_THREADS
            rc = tg_mtproto_encrypt(key, x, packet, head, head_len, body, body_len, pad, (uint32_t)pad_len);
            Py_END_ALLOW_THREADS
        } else {
            rc = tg_mtproto_encrypt(key, x, packet, head, head_len, body, body_len, pad, (uint32_t)pad_len);
        }
        if (rc != TG_OK) {
            Py_CLEAR(out);
            core_error(rc);
        }
    }
done:
    if (key != NULL) auth_key_put(k);
    wipe(own_pad, sizeof own_pad);
    if (joined != NULL) {
        wipe(joined, joined_len);
        free(joined);
    }
    if (have_pad) PyBuffer_Release(&pad_view);
    release(parts, got);
    if (parts != small) PyMem_Free(parts);
    Py_XDECREF(seq);
    return out;
}

static PyObject *security_error(void) {
    PyErr_SetString(SecurityError, TG_MSG_MTPROTO_REJECTED);
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
    tg_auth_key *key = auth_key_get(k);
    if (key == NULL) goto done;
    /* Lengths are public: reject what cannot be a packet before allocating. */
    const size_t len = (size_t)v.len;
    if (!tg_rule_packet_length_in_range(len)) {
        security_error();
        goto done;
    }
    const size_t room = tg_rule_packet_plaintext_length(len);
    uint8_t *plain = malloc(room);
    if (plain == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    const uint32_t x = server ? TG_MTPROTO_FROM_CLIENT : TG_MTPROTO_FROM_SERVER;
    int rc;
    if (len >= NOGIL_MIN) {
        Py_BEGIN_ALLOW_THREADS
        rc = tg_mtproto_decrypt(key, x, plain, v.buf, (uint32_t)len);
        Py_END_ALLOW_THREADS
    } else {
        rc = tg_mtproto_decrypt(key, x, plain, v.buf, (uint32_t)len);
    }
    if (rc >= 0) out = PyBytes_FromStringAndSize((const char *)plain, rc);
    else if (rc == TG_ERR_SECURITY) security_error(); /* TG_ERR_SIZE cannot come: the length is in range */
    else core_error(rc);
    wipe(plain, room);
    free(plain);
done:
    if (key != NULL) auth_key_put(k);
    PyBuffer_Release(&v);
    return out;
}

static PyObject *auth_key_close(PyObject *o, PyObject *unused) {
    (void)unused;
    AuthKey *k = (AuthKey *)o;
    tg_auth_key *to_free = NULL;
    ext_lock_acquire(&k->lock);
    k->closed = 1;
    if (k->users == 0) {
        to_free = k->key;
        k->key = NULL;
    }
    ext_lock_release(&k->lock);
    if (to_free != NULL) tg_auth_key_free(to_free);
    Py_RETURN_NONE;
}

static PyObject *auth_key_enter(PyObject *o, PyObject *unused) {
    (void)unused;
    AuthKey *k = (AuthKey *)o;
    ext_lock_acquire(&k->lock);
    const int closed = k->closed;
    ext_lock_release(&k->lock);
    if (closed) {
        PyErr_SetString(PyExc_ValueError, "AuthKey is closed");
        return NULL;
    }
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
    AuthKey *k = (AuthKey *)o;
    ext_lock_acquire(&k->lock);
    const int closed = k->closed;
    ext_lock_release(&k->lock);
    return PyBool_FromLong(closed);
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

PyType_Spec auth_key_spec = {"tgcrypto_ffi.AuthKey", sizeof(AuthKey), 0, Py_TPFLAGS_DEFAULT, auth_key_slots};
