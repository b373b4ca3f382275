/*
 * tgcrypto.node: the Node-API addon that gives Node.js the C core.
 *
 * One JS function per C function of tgcrypto.h, with the C name and argument
 * order of ts/runtime/symbols.ts, so that ts/runtime/node.ts can hand them to
 * the runtime-neutral API unchanged (the same `Native` contract as bun:ffi
 * and Deno.dlopen). The core is compiled into this file's shared object with
 * TG_API defined empty and -fvisibility=hidden: no tg_* symbol is exported,
 * so a process that also loads libtgcrypto binds each copy to itself. Only
 * the module registration (NAPI_MODULE_INIT) is exported.
 *
 * What the glue adds to the core, and nothing else:
 *   - every argument is checked before a pointer reaches C: byte buffers must
 *     be Uint8Arrays (Buffers are), every length must fit the arrays it
 *     describes, fixed-size arrays (key, iv, state, digest, ...) must be at
 *     least that long. A bad argument throws a TypeError or RangeError; no JS
 *     value can make C read or write outside an array. (The TS layer checks
 *     everything first with TgCrypto's messages; these checks guard the
 *     addon against direct callers.)
 *   - contexts (CTR/IGE/CBC, auth keys) become `napi_create_external`
 *     objects holding a small box with the C pointer, type-tagged per kind
 *     (napi_type_tag_object) so a foreign or wrong-kind object is refused
 *     before anything is dereferenced. tg_*_free wipes and frees the context
 *     and empties the box, so a second free or a use after free reaches no
 *     memory (TG_ERR_CONTEXT). The external's finalizer frees a context the
 *     JS side never freed (the TS FinalizationRegistry normally does it
 *     first, and the box makes it exactly one free): this also wipes the
 *     contexts of a Worker that is terminated.
 *   - no state outside the env: the module is context-aware (Workers each
 *     register it); the only statics are constant type tags.
 *   - no copy of any key or data is made here; the C core wipes its own
 *     temporaries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NAPI_VERSION 8
#include <node_api.h>

#include "tgcrypto.h"

#if defined(_WIN32)
/* napi_windows.c: the N-API functions looked up in the host process. */
int tgnode_resolve_napi(void);
#endif

/* ------------------------------------------------------------------------ */
/* Arguments                                                                */

#define MAX_ARGS 9

/* The arguments of one call; `ok` turns false at the first bad one (an
 * exception is then pending and the function returns NULL). */
typedef struct {
    napi_env env;
    napi_value argv[MAX_ARGS];
    int ok;
} args_t;

static int fail_type(args_t *a, const char *message) {
    if (a->ok) napi_throw_type_error(a->env, "ERR_INVALID_ARG_TYPE", message);
    a->ok = 0;
    return 0;
}

static int fail_range(args_t *a, const char *message) {
    if (a->ok) napi_throw_range_error(a->env, "ERR_OUT_OF_RANGE", message);
    a->ok = 0;
    return 0;
}

/* Reads `want` arguments (missing ones are undefined, which every getter refuses). */
static int get_args(napi_env env, napi_callback_info info, size_t want, args_t *a) {
    size_t argc = want;
    a->env = env;
    a->ok = 1;
    if (want > MAX_ARGS) return fail_type(a, "tgcrypto.node: internal error: more arguments than argv holds");
    if (napi_get_cb_info(env, info, &argc, a->argv, NULL, NULL) != napi_ok) return fail_type(a, "tgcrypto.node: bad call");
    return 1;
}

/* A Uint8Array argument: its data pointer and length in bytes. */
static uint8_t *bytes(args_t *a, size_t index, size_t *length) {
    napi_typedarray_type type;
    void *data = NULL;
    *length = 0;
    if (!a->ok) return NULL;
    if (napi_get_typedarray_info(a->env, a->argv[index], &type, length, &data, NULL, NULL) != napi_ok ||
        type != napi_uint8_array) {
        *length = 0;
        fail_type(a, "tgcrypto.node: a byte buffer argument must be a Uint8Array");
        return NULL;
    }
    return (uint8_t *)data;
}

/* A Uint8Array of at least `size` bytes (key, iv, state, digest, ...). */
static uint8_t *fixed(args_t *a, size_t index, size_t size) {
    size_t length;
    uint8_t *data = bytes(a, index, &length);
    if (a->ok && length < size) fail_range(a, "tgcrypto.node: a fixed-size buffer argument is too short");
    return data;
}

static uint32_t u32(args_t *a, size_t index) {
    uint32_t value = 0;
    if (a->ok && napi_get_value_uint32(a->env, a->argv[index], &value) != napi_ok) {
        fail_type(a, "tgcrypto.node: a length or flag argument must be a number");
    }
    return value;
}

/* `length` bytes must fit in a buffer of `have` bytes. */
static void fits(args_t *a, uint64_t length, size_t have) {
    if (a->ok && length > have) fail_range(a, "tgcrypto.node: a length argument exceeds its buffer");
}

static napi_value int_result(napi_env env, int32_t code) {
    napi_value result;
    if (napi_create_int32(env, code, &result) != napi_ok) return NULL;
    return result;
}

static napi_value string_result(napi_env env, const char *text) {
    napi_value result;
    napi_status status = text == NULL ? napi_get_null(env, &result)
                                      : napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &result);
    return status == napi_ok ? result : NULL;
}

/* ------------------------------------------------------------------------ */
/* Context handles                                                          */

/* One per external; `ptr` is NULL once the context was freed. */
typedef struct {
    void *ptr;
} box_t;

typedef void (*free_fn)(void *);

/* One tag per kind (random 128-bit values; napi_check_object_type_tag). */
static const napi_type_tag CTR_TAG = {0x6a1f5c0d8e2b4c71ull, 0x9d3e27b5c0f14a86ull};
static const napi_type_tag IGE_TAG = {0x2c84e1f7a95b3d06ull, 0x57c0b9e2146fd38aull};
static const napi_type_tag CBC_TAG = {0xb3d2079e6c41f58aull, 0x0e6a95c3d7b2814full};
static const napi_type_tag KEY_TAG = {0x48f6c2a1de097b35ull, 0xa1c53e8f60d2b794ull};

static void free_ctr(void *p) { tg_ctr_free((tg_ctr_ctx *)p); }
static void free_ige(void *p) { tg_ige_free((tg_ige_ctx *)p); }
static void free_cbc(void *p) { tg_cbc_free((tg_cbc_ctx *)p); }
static void free_key(void *p) { tg_auth_key_free((tg_auth_key *)p); }

/* GC (or env teardown) of the external: frees a context nobody freed, then the box. */
static void finalize(void *data, free_fn release) {
    box_t *box = (box_t *)data;
    if (box->ptr != NULL) release(box->ptr);
    free(box);
}

static void finalize_ctr(napi_env env, void *data, void *hint) { (void)env; (void)hint; finalize(data, free_ctr); }
static void finalize_ige(napi_env env, void *data, void *hint) { (void)env; (void)hint; finalize(data, free_ige); }
static void finalize_cbc(napi_env env, void *data, void *hint) { (void)env; (void)hint; finalize(data, free_cbc); }
static void finalize_key(napi_env env, void *data, void *hint) { (void)env; (void)hint; finalize(data, free_key); }

/* A new external for context `ptr` (NULL stays null: the TS layer reports why). */
static napi_value new_handle(napi_env env, void *ptr, const napi_type_tag *tag, napi_finalize finalize, free_fn release) {
    napi_value result;
    if (ptr == NULL) return napi_get_null(env, &result) == napi_ok ? result : NULL;
    box_t *box = (box_t *)malloc(sizeof *box);
    if (box == NULL) {
        release(ptr);
        return napi_get_null(env, &result) == napi_ok ? result : NULL;
    }
    box->ptr = ptr;
    if (napi_create_external(env, box, finalize, NULL, &result) != napi_ok) {
        release(ptr);
        free(box);
        napi_throw_error(env, NULL, "tgcrypto.node: cannot create a context handle");
        return NULL;
    }
    if (napi_type_tag_object(env, result, tag) != napi_ok) {
        /* The finalizer owns the box now: empty it, it frees the box later. */
        release(ptr);
        box->ptr = NULL;
        napi_throw_error(env, NULL, "tgcrypto.node: cannot tag a context handle");
        return NULL;
    }
    return result;
}

/* The box of a handle of this kind; TypeError for anything else. */
static box_t *handle(args_t *a, size_t index, const napi_type_tag *tag) {
    bool tagged = false;
    void *data = NULL;
    napi_valuetype type;
    if (!a->ok) return NULL;
    if (napi_typeof(a->env, a->argv[index], &type) != napi_ok || type != napi_external ||
        napi_check_object_type_tag(a->env, a->argv[index], tag, &tagged) != napi_ok || !tagged ||
        napi_get_value_external(a->env, a->argv[index], &data) != napi_ok || data == NULL) {
        fail_type(a, "tgcrypto.node: not a context handle of this kind");
        return NULL;
    }
    return (box_t *)data;
}

/* ------------------------------------------------------------------------ */
/* Strings, backends                                                        */

static napi_value js_strerror(napi_env env, napi_callback_info info) {
    args_t a;
    int32_t code = 0;
    if (!get_args(env, info, 1, &a)) return NULL;
    if (napi_get_value_int32(env, a.argv[0], &code) != napi_ok) {
        fail_type(&a, "tgcrypto.node: the code must be a number");
        return NULL;
    }
    return string_result(env, tg_strerror(code));
}

static napi_value js_version(napi_env env, napi_callback_info info) {
    (void)info;
    return string_result(env, tg_version());
}

static napi_value js_init(napi_env env, napi_callback_info info) {
    (void)info;
    return int_result(env, tg_init());
}

static napi_value js_backend(napi_env env, napi_callback_info info) {
    (void)info;
    return string_result(env, tg_backend());
}

static napi_value js_backend_count(napi_env env, napi_callback_info info) {
    napi_value result;
    (void)info;
    return napi_create_uint32(env, tg_backend_count(), &result) == napi_ok ? result : NULL;
}

static napi_value js_backend_name(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 1, &a)) return NULL;
    uint32_t index = u32(&a, 0);
    if (!a.ok) return NULL;
    return string_result(env, tg_backend_name(index));
}

static napi_value js_backend_available(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 1, &a)) return NULL;
    uint32_t index = u32(&a, 0);
    if (!a.ok) return NULL;
    return int_result(env, tg_backend_available(index));
}

static napi_value js_set_backend(napi_env env, napi_callback_info info) {
    args_t a;
    char name[64];
    size_t length = 0;
    if (!get_args(env, info, 1, &a)) return NULL;
    if (napi_get_value_string_utf8(env, a.argv[0], name, sizeof name, &length) != napi_ok) {
        fail_type(&a, "tgcrypto.node: the backend name must be a string");
        return NULL;
    }
    /* Too long for any backend name, or an embedded NUL: unknown. */
    if (length >= sizeof name - 1 || strlen(name) != length) return int_result(env, TG_ERR_BACKEND);
    return int_result(env, tg_set_backend(name));
}

static napi_value js_hash_engine(napi_env env, napi_callback_info info) {
    (void)info;
    return string_result(env, tg_hash_engine());
}

/* ------------------------------------------------------------------------ */
/* One-shot AES: (out, in, len, key, iv[, state])                           */

typedef int (*block_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, const uint8_t *);
typedef int (*chain_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint8_t *);

/* out, in, len checked: len fits both. */
static uint32_t data_args(args_t *a, uint8_t **out, const uint8_t **in) {
    size_t out_length, in_length;
    *out = bytes(a, 0, &out_length);
    *in = bytes(a, 1, &in_length);
    uint32_t length = u32(a, 2);
    fits(a, length, out_length);
    fits(a, length, in_length);
    return length;
}

static napi_value ige(napi_env env, napi_callback_info info, block_fn fn) {
    args_t a;
    uint8_t *out;
    const uint8_t *in;
    if (!get_args(env, info, 5, &a)) return NULL;
    uint32_t length = data_args(&a, &out, &in);
    const uint8_t *key = fixed(&a, 3, TG_KEY_SIZE);
    const uint8_t *iv = fixed(&a, 4, TG_IGE_IV_SIZE);
    if (!a.ok) return NULL;
    return int_result(env, fn(out, in, length, key, iv));
}

static napi_value js_ige256_encrypt(napi_env env, napi_callback_info info) { return ige(env, info, tg_ige256_encrypt); }
static napi_value js_ige256_decrypt(napi_env env, napi_callback_info info) { return ige(env, info, tg_ige256_decrypt); }

static napi_value cbc(napi_env env, napi_callback_info info, chain_fn fn) {
    args_t a;
    uint8_t *out;
    const uint8_t *in;
    if (!get_args(env, info, 5, &a)) return NULL;
    uint32_t length = data_args(&a, &out, &in);
    const uint8_t *key = fixed(&a, 3, TG_KEY_SIZE);
    uint8_t *iv = fixed(&a, 4, TG_CBC_IV_SIZE);
    if (!a.ok) return NULL;
    return int_result(env, fn(out, in, length, key, iv));
}

static napi_value js_cbc256_encrypt(napi_env env, napi_callback_info info) { return cbc(env, info, tg_cbc256_encrypt); }
static napi_value js_cbc256_decrypt(napi_env env, napi_callback_info info) { return cbc(env, info, tg_cbc256_decrypt); }

static napi_value js_ctr256(napi_env env, napi_callback_info info) {
    args_t a;
    uint8_t *out;
    const uint8_t *in;
    if (!get_args(env, info, 6, &a)) return NULL;
    uint32_t length = data_args(&a, &out, &in);
    const uint8_t *key = fixed(&a, 3, TG_KEY_SIZE);
    uint8_t *iv = fixed(&a, 4, TG_CTR_IV_SIZE);
    uint8_t *state = fixed(&a, 5, 1);
    if (!a.ok) return NULL;
    return int_result(env, tg_ctr256(out, in, length, key, iv, state));
}

/* ------------------------------------------------------------------------ */
/* Contexts                                                                 */

static napi_value js_ctr_new(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 3, &a)) return NULL;
    const uint8_t *key = fixed(&a, 0, TG_KEY_SIZE);
    const uint8_t *iv = fixed(&a, 1, TG_CTR_IV_SIZE);
    uint32_t state = u32(&a, 2);
    if (!a.ok) return NULL;
    return new_handle(env, tg_ctr_new(key, iv, state), &CTR_TAG, finalize_ctr, free_ctr);
}

static napi_value chaining_new(napi_env env, napi_callback_info info, size_t iv_size, int ige_kind) {
    args_t a;
    int32_t decrypt = 0;
    if (!get_args(env, info, 3, &a)) return NULL;
    const uint8_t *key = fixed(&a, 0, TG_KEY_SIZE);
    const uint8_t *iv = fixed(&a, 1, iv_size);
    if (a.ok && napi_get_value_int32(env, a.argv[2], &decrypt) != napi_ok) fail_type(&a, "tgcrypto.node: decrypt must be a number");
    if (!a.ok) return NULL;
    if (ige_kind) return new_handle(env, tg_ige_new(key, iv, decrypt), &IGE_TAG, finalize_ige, free_ige);
    return new_handle(env, tg_cbc_new(key, iv, decrypt), &CBC_TAG, finalize_cbc, free_cbc);
}

static napi_value js_ige_new(napi_env env, napi_callback_info info) { return chaining_new(env, info, TG_IGE_IV_SIZE, 1); }
static napi_value js_cbc_new(napi_env env, napi_callback_info info) { return chaining_new(env, info, TG_CBC_IV_SIZE, 0); }

/* (ctx, out, in, len) */
static napi_value context_update(napi_env env, napi_callback_info info, const napi_type_tag *tag, int kind) {
    args_t a;
    size_t out_length, in_length;
    if (!get_args(env, info, 4, &a)) return NULL;
    box_t *box = handle(&a, 0, tag);
    uint8_t *out = bytes(&a, 1, &out_length);
    const uint8_t *in = bytes(&a, 2, &in_length);
    uint32_t length = u32(&a, 3);
    fits(&a, length, out_length);
    fits(&a, length, in_length);
    if (!a.ok) return NULL;
    if (box->ptr == NULL) return int_result(env, TG_ERR_CONTEXT);
    switch (kind) {
    case 0: return int_result(env, tg_ctr_update((tg_ctr_ctx *)box->ptr, out, in, length));
    case 1: return int_result(env, tg_ige_update((tg_ige_ctx *)box->ptr, out, in, length));
    default: return int_result(env, tg_cbc_update((tg_cbc_ctx *)box->ptr, out, in, length));
    }
}

static napi_value js_ctr_update(napi_env env, napi_callback_info info) { return context_update(env, info, &CTR_TAG, 0); }
static napi_value js_ige_update(napi_env env, napi_callback_info info) { return context_update(env, info, &IGE_TAG, 1); }
static napi_value js_cbc_update(napi_env env, napi_callback_info info) { return context_update(env, info, &CBC_TAG, 2); }

static napi_value js_ctr_position(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 3, &a)) return NULL;
    box_t *box = handle(&a, 0, &CTR_TAG);
    uint8_t *iv = fixed(&a, 1, TG_CTR_IV_SIZE);
    uint8_t *state = fixed(&a, 2, 1);
    if (!a.ok) return NULL;
    if (box->ptr == NULL) return int_result(env, TG_ERR_CONTEXT);
    return int_result(env, tg_ctr_position((const tg_ctr_ctx *)box->ptr, iv, state));
}

/* (ctx): wipes and frees once; later frees and uses find the box empty. */
static napi_value context_free(napi_env env, napi_callback_info info, const napi_type_tag *tag, free_fn release) {
    args_t a;
    napi_value result;
    if (!get_args(env, info, 1, &a)) return NULL;
    box_t *box = handle(&a, 0, tag);
    if (!a.ok) return NULL;
    if (box->ptr != NULL) release(box->ptr);
    box->ptr = NULL;
    return napi_get_undefined(env, &result) == napi_ok ? result : NULL;
}

static napi_value js_ctr_free(napi_env env, napi_callback_info info) { return context_free(env, info, &CTR_TAG, free_ctr); }
static napi_value js_ige_free(napi_env env, napi_callback_info info) { return context_free(env, info, &IGE_TAG, free_ige); }
static napi_value js_cbc_free(napi_env env, napi_callback_info info) { return context_free(env, info, &CBC_TAG, free_cbc); }

/* ------------------------------------------------------------------------ */
/* Hashes                                                                   */

/* (digest, data, len) */
static napi_value hash_oneshot(napi_env env, napi_callback_info info, size_t digest_size, int sha1) {
    args_t a;
    size_t data_length;
    if (!get_args(env, info, 3, &a)) return NULL;
    uint8_t *digest = fixed(&a, 0, digest_size);
    const uint8_t *data = bytes(&a, 1, &data_length);
    uint32_t length = u32(&a, 2);
    fits(&a, length, data_length);
    if (!a.ok) return NULL;
    return int_result(env, sha1 ? tg_sha1(digest, data, length) : tg_sha256(digest, data, length));
}

static napi_value js_sha256(napi_env env, napi_callback_info info) { return hash_oneshot(env, info, TG_SHA256_SIZE, 0); }
static napi_value js_sha1(napi_env env, napi_callback_info info) { return hash_oneshot(env, info, TG_SHA1_SIZE, 1); }

static napi_value hash_init(napi_env env, napi_callback_info info, int sha1) {
    args_t a;
    if (!get_args(env, info, 1, &a)) return NULL;
    uint8_t *state = fixed(&a, 0, TG_SHA256_STATE_SIZE);
    if (!a.ok) return NULL;
    return int_result(env, sha1 ? tg_sha1_init(state) : tg_sha256_init(state));
}

static napi_value js_sha256_init(napi_env env, napi_callback_info info) { return hash_init(env, info, 0); }
static napi_value js_sha1_init(napi_env env, napi_callback_info info) { return hash_init(env, info, 1); }

static napi_value hash_update(napi_env env, napi_callback_info info, int sha1) {
    args_t a;
    size_t data_length;
    if (!get_args(env, info, 3, &a)) return NULL;
    uint8_t *state = fixed(&a, 0, TG_SHA256_STATE_SIZE);
    const uint8_t *data = bytes(&a, 1, &data_length);
    uint32_t length = u32(&a, 2);
    fits(&a, length, data_length);
    if (!a.ok) return NULL;
    return int_result(env, sha1 ? tg_sha1_update(state, data, length) : tg_sha256_update(state, data, length));
}

static napi_value js_sha256_update(napi_env env, napi_callback_info info) { return hash_update(env, info, 0); }
static napi_value js_sha1_update(napi_env env, napi_callback_info info) { return hash_update(env, info, 1); }

static napi_value hash_final(napi_env env, napi_callback_info info, size_t digest_size, int sha1) {
    args_t a;
    if (!get_args(env, info, 2, &a)) return NULL;
    uint8_t *state = fixed(&a, 0, TG_SHA256_STATE_SIZE);
    uint8_t *digest = fixed(&a, 1, digest_size);
    if (!a.ok) return NULL;
    return int_result(env, sha1 ? tg_sha1_final(state, digest) : tg_sha256_final(state, digest));
}

static napi_value js_sha256_final(napi_env env, napi_callback_info info) { return hash_final(env, info, TG_SHA256_SIZE, 0); }
static napi_value js_sha1_final(napi_env env, napi_callback_info info) { return hash_final(env, info, TG_SHA1_SIZE, 1); }

/* ------------------------------------------------------------------------ */
/* MTProto                                                                  */

static napi_value js_auth_key_new(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 1, &a)) return NULL;
    const uint8_t *key = fixed(&a, 0, TG_AUTH_KEY_SIZE);
    if (!a.ok) return NULL;
    return new_handle(env, tg_auth_key_new(key), &KEY_TAG, finalize_key, free_key);
}

static napi_value js_auth_key_id(napi_env env, napi_callback_info info) {
    args_t a;
    if (!get_args(env, info, 2, &a)) return NULL;
    box_t *box = handle(&a, 0, &KEY_TAG);
    uint8_t *id = fixed(&a, 1, 8);
    if (!a.ok) return NULL;
    if (box->ptr == NULL) return int_result(env, TG_ERR_CONTEXT);
    return int_result(env, tg_auth_key_id((const tg_auth_key *)box->ptr, id));
}

static napi_value js_auth_key_free(napi_env env, napi_callback_info info) {
    return context_free(env, info, &KEY_TAG, free_key);
}

/* (key, x, packet, head, head_len, body, body_len, padding, padding_len) */
static napi_value js_mtproto_encrypt(napi_env env, napi_callback_info info) {
    args_t a;
    size_t packet_size, head_size, body_size, padding_size;
    if (!get_args(env, info, 9, &a)) return NULL;
    box_t *box = handle(&a, 0, &KEY_TAG);
    uint32_t x = u32(&a, 1);
    uint8_t *packet = bytes(&a, 2, &packet_size);
    const uint8_t *head = bytes(&a, 3, &head_size);
    uint32_t head_len = u32(&a, 4);
    const uint8_t *body = bytes(&a, 5, &body_size);
    uint32_t body_len = u32(&a, 6);
    const uint8_t *padding = bytes(&a, 7, &padding_size);
    uint32_t padding_len = u32(&a, 8);
    fits(&a, head_len, head_size);
    fits(&a, body_len, body_size);
    fits(&a, padding_len, padding_size);
    /* The packet C writes: 24 + head + body + padding (64-bit sum: no wrap). */
    fits(&a, (uint64_t)TG_MTPROTO_OVERHEAD + head_len + body_len + padding_len, packet_size);
    if (!a.ok) return NULL;
    if (box->ptr == NULL) return int_result(env, TG_ERR_CONTEXT);
    return int_result(env, tg_mtproto_encrypt((const tg_auth_key *)box->ptr, x, packet, head, head_len, body, body_len,
                                              padding, padding_len));
}

/* (key, x, plaintext, packet, packet_len) */
static napi_value js_mtproto_decrypt(napi_env env, napi_callback_info info) {
    args_t a;
    size_t plaintext_size, packet_size;
    if (!get_args(env, info, 5, &a)) return NULL;
    box_t *box = handle(&a, 0, &KEY_TAG);
    uint32_t x = u32(&a, 1);
    uint8_t *plaintext = bytes(&a, 2, &plaintext_size);
    const uint8_t *packet = bytes(&a, 3, &packet_size);
    uint32_t packet_len = u32(&a, 4);
    fits(&a, packet_len, packet_size);
    /* C writes packet_len - 24 bytes (zeroes them on rejection). */
    fits(&a, packet_len > TG_MTPROTO_OVERHEAD ? packet_len - TG_MTPROTO_OVERHEAD : 0, plaintext_size);
    if (!a.ok) return NULL;
    if (box->ptr == NULL) return int_result(env, TG_ERR_CONTEXT);
    return int_result(env, tg_mtproto_decrypt((const tg_auth_key *)box->ptr, x, plaintext, packet, packet_len));
}

/* ------------------------------------------------------------------------ */
/* PQ                                                                       */

/* (pq: bigint, p, q): p and q as 8 native-endian bytes each. */
static napi_value js_factorize_pq(napi_env env, napi_callback_info info) {
    args_t a;
    uint64_t pq = 0, p = 0, q = 0;
    bool lossless = false;
    if (!get_args(env, info, 3, &a)) return NULL;
    if (napi_get_value_bigint_uint64(env, a.argv[0], &pq, &lossless) != napi_ok) {
        fail_type(&a, "tgcrypto.node: pq must be a bigint");
    } else if (!lossless) {
        fail_range(&a, "tgcrypto.node: pq must be in the range [0, 2^64)");
    }
    uint8_t *p_out = fixed(&a, 1, 8);
    uint8_t *q_out = fixed(&a, 2, 8);
    if (!a.ok) return NULL;
    int code = tg_factorize_pq(pq, &p, &q);
    /* memcpy: the arrays need no alignment. */
    memcpy(p_out, &p, 8);
    memcpy(q_out, &q, 8);
    return int_result(env, code);
}

/* ------------------------------------------------------------------------ */
/* Registration                                                             */

#define FN(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_enumerable, NULL}

NAPI_MODULE_INIT() {
#if defined(_WIN32)
    if (!tgnode_resolve_napi()) return NULL; /* no N-API in this process: nothing can be called */
#endif
    static const napi_property_descriptor functions[] = {
        FN("tg_strerror", js_strerror), FN("tg_version", js_version), FN("tg_init", js_init),
        FN("tg_backend", js_backend), FN("tg_backend_count", js_backend_count),
        FN("tg_backend_name", js_backend_name), FN("tg_backend_available", js_backend_available),
        FN("tg_set_backend", js_set_backend), FN("tg_ige256_encrypt", js_ige256_encrypt),
        FN("tg_ige256_decrypt", js_ige256_decrypt), FN("tg_ctr256", js_ctr256),
        FN("tg_cbc256_encrypt", js_cbc256_encrypt), FN("tg_cbc256_decrypt", js_cbc256_decrypt),
        FN("tg_ctr_new", js_ctr_new), FN("tg_ctr_update", js_ctr_update), FN("tg_ctr_position", js_ctr_position),
        FN("tg_ctr_free", js_ctr_free), FN("tg_ige_new", js_ige_new), FN("tg_ige_update", js_ige_update),
        FN("tg_ige_free", js_ige_free), FN("tg_cbc_new", js_cbc_new), FN("tg_cbc_update", js_cbc_update),
        FN("tg_cbc_free", js_cbc_free), FN("tg_hash_engine", js_hash_engine), FN("tg_sha256", js_sha256),
        FN("tg_sha256_init", js_sha256_init), FN("tg_sha256_update", js_sha256_update),
        FN("tg_sha256_final", js_sha256_final), FN("tg_sha1", js_sha1), FN("tg_sha1_init", js_sha1_init),
        FN("tg_sha1_update", js_sha1_update), FN("tg_sha1_final", js_sha1_final),
        FN("tg_auth_key_new", js_auth_key_new), FN("tg_auth_key_id", js_auth_key_id),
        FN("tg_auth_key_free", js_auth_key_free), FN("tg_mtproto_encrypt", js_mtproto_encrypt),
        FN("tg_mtproto_decrypt", js_mtproto_decrypt), FN("tg_factorize_pq", js_factorize_pq),
    };
    if (napi_define_properties(env, exports, sizeof functions / sizeof functions[0], functions) != napi_ok) return NULL;
    return exports;
}
