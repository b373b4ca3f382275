/*
 * A stand-in N-API host for the Windows build of tgcrypto.node, run under
 * Wine by scripts/test.sh (there is no Windows Node.js here): an executable
 * with a name other than node.exe that exports the N-API functions the addon
 * uses, as node.exe does. It loads the addon with LoadLibrary, registers it,
 * and calls a few of its functions through the property descriptors it
 * defined, so it checks what napi_windows.c promises: the addon finds N-API
 * in whatever executable hosts it (GetModuleHandle + GetProcAddress), imports
 * nothing from a "node.exe", and its functions work through the looked-up
 * pointers. The fake values are just enough for those calls: napi_value is a
 * pointer to a `value` below.
 *
 *   win_host.exe path\to\tgcrypto.node     prints "N passed, N failed"
 */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#define NAPI_VERSION 8
#include <node_api.h>

/* Built with NAPI_EXTERN=__declspec(dllexport): every N-API function below is exported, as node.exe exports them. */
#define HOST NAPI_EXTERN

/* A fake JS value. */
typedef struct value {
    enum { V_UNDEFINED, V_NULL, V_NUMBER, V_STRING, V_BYTES, V_EXTERNAL } kind;
    double number;
    char string[64];
    unsigned char *bytes;
    size_t length;
    void *external;
    const napi_type_tag *tag;
} value;

static value pool[64];
static int used;
static value *make(int kind) {
    value *v = &pool[used++ % 64];
    memset(v, 0, sizeof *v);
    v->kind = kind;
    return v;
}

/* What the addon registered and the arguments of the next call. */
static napi_property_descriptor registered[64];
static size_t registered_count;
static value *call_args[9];
static size_t call_argc;
static int thrown;

HOST napi_status NAPI_CDECL napi_define_properties(napi_env env, napi_value object, size_t n, const napi_property_descriptor *p) {
    (void)env; (void)object;
    if (n > 64) return napi_generic_failure;
    memcpy(registered, p, n * sizeof *p);
    registered_count = n;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_cb_info(napi_env e, napi_callback_info i, size_t *c, napi_value *a, napi_value *t, void **d) {
    (void)e; (void)i; (void)t; (void)d;
    for (size_t k = 0; k < *c; k++) a[k] = (napi_value)(k < call_argc ? call_args[k] : make(V_UNDEFINED));
    *c = call_argc;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_create_int32(napi_env e, int32_t v, napi_value *r) {
    (void)e;
    value *x = make(V_NUMBER);
    x->number = v;
    *r = (napi_value)x;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_create_uint32(napi_env e, uint32_t v, napi_value *r) { return napi_create_int32(e, (int32_t)v, r); }
HOST napi_status NAPI_CDECL napi_create_string_utf8(napi_env e, const char *s, size_t n, napi_value *r) {
    (void)e; (void)n;
    value *x = make(V_STRING);
    snprintf(x->string, sizeof x->string, "%s", s);
    *r = (napi_value)x;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_null(napi_env e, napi_value *r) { (void)e; *r = (napi_value)make(V_NULL); return napi_ok; }
HOST napi_status NAPI_CDECL napi_get_undefined(napi_env e, napi_value *r) { (void)e; *r = (napi_value)make(V_UNDEFINED); return napi_ok; }
HOST napi_status NAPI_CDECL napi_get_typedarray_info(napi_env e, napi_value v, napi_typedarray_type *t, size_t *n, void **d,
                                                       napi_value *b, size_t *o) {
    (void)e; (void)b; (void)o;
    const value *x = (const value *)v;
    if (x->kind != V_BYTES) return napi_invalid_arg;
    *t = napi_uint8_array;
    *n = x->length;
    if (d) *d = x->bytes;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_value_uint32(napi_env e, napi_value v, uint32_t *r) {
    (void)e;
    const value *x = (const value *)v;
    if (x->kind != V_NUMBER) return napi_number_expected;
    *r = (uint32_t)x->number;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_value_int32(napi_env e, napi_value v, int32_t *r) {
    (void)e;
    const value *x = (const value *)v;
    if (x->kind != V_NUMBER) return napi_number_expected;
    *r = (int32_t)x->number;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_value_string_utf8(napi_env e, napi_value v, char *b, size_t n, size_t *r) {
    (void)e;
    const value *x = (const value *)v;
    if (x->kind != V_STRING) return napi_string_expected;
    snprintf(b, n, "%s", x->string);
    *r = strlen(b);
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_create_external(napi_env e, void *d, napi_finalize f, void *h, napi_value *r) {
    (void)e; (void)f; (void)h;
    value *x = make(V_EXTERNAL);
    x->external = d;
    *r = (napi_value)x;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_value_external(napi_env e, napi_value v, void **r) {
    (void)e;
    const value *x = (const value *)v;
    if (x->kind != V_EXTERNAL) return napi_invalid_arg;
    *r = x->external;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_type_tag_object(napi_env e, napi_value v, const napi_type_tag *t) {
    (void)e;
    ((value *)v)->tag = t;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_check_object_type_tag(napi_env e, napi_value v, const napi_type_tag *t, bool *r) {
    (void)e;
    const value *x = (const value *)v;
    *r = x->tag != NULL && x->tag->lower == t->lower && x->tag->upper == t->upper;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_typeof(napi_env e, napi_value v, napi_valuetype *r) {
    (void)e;
    const value *x = (const value *)v;
    *r = x->kind == V_EXTERNAL ? napi_external : x->kind == V_NUMBER ? napi_number : napi_object;
    return napi_ok;
}
HOST napi_status NAPI_CDECL napi_get_value_bigint_uint64(napi_env e, napi_value v, uint64_t *r, bool *l) {
    (void)e; (void)v; (void)r; (void)l;
    return napi_bigint_expected;
}
HOST napi_status NAPI_CDECL napi_throw_error(napi_env e, const char *c, const char *m) { (void)e; (void)c; (void)m; thrown++; return napi_ok; }
HOST napi_status NAPI_CDECL napi_throw_type_error(napi_env e, const char *c, const char *m) { return napi_throw_error(e, c, m); }
HOST napi_status NAPI_CDECL napi_throw_range_error(napi_env e, const char *c, const char *m) { return napi_throw_error(e, c, m); }

static int passed, failed;
static void expect(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok) passed++; else failed++;
}

/* Calls the registered function `name` with `argc` fake arguments. */
static value *call(const char *name, size_t argc, value **args) {
    for (size_t i = 0; i < registered_count; i++) {
        if (strcmp(registered[i].utf8name, name) != 0) continue;
        call_argc = argc;
        for (size_t k = 0; k < argc; k++) call_args[k] = args[k];
        return (value *)registered[i].method((napi_env)1, (napi_callback_info)1);
    }
    return NULL;
}

static value *bytes(unsigned char *p, size_t n) { value *v = make(V_BYTES); v->bytes = p; v->length = n; return v; }
static value *number(double d) { value *v = make(V_NUMBER); v->number = d; return v; }

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    HMODULE addon = LoadLibraryA(argv[1]);
    expect(addon != NULL, "LoadLibrary(tgcrypto.node) in a host that is not node.exe");
    if (addon == NULL) goto done;
    napi_value (*reg)(napi_env, napi_value) = (napi_value (*)(napi_env, napi_value))(void (*)(void))GetProcAddress(addon, "napi_register_module_v1");
    expect(reg != NULL, "napi_register_module_v1 exported");
    expect(GetProcAddress(addon, "tg_ige256_encrypt") == NULL && GetProcAddress(addon, "napi_get_cb_info") == NULL,
           "no tg_* and no N-API function exported by the addon");
    if (reg == NULL) goto done;
    value exports = {0};
    expect(reg((napi_env)1, (napi_value)&exports) == (napi_value)&exports, "registration returned its exports");
    expect(registered_count == 38, "38 functions defined through the host's napi_define_properties");

    value *v = call("tg_version", 0, NULL);
    expect(v != NULL && v->kind == V_STRING && strcmp(v->string, "0.1.0") == 0, "tg_version() through the host's napi_create_string_utf8");
    v = call("tg_init", 0, NULL);
    expect(v != NULL && v->kind == V_NUMBER && v->number == 0, "tg_init() = 0");

    /* FIPS-197 C.3 as one CBC block with a zero IV. */
    unsigned char out[16], in[16], key[32], iv[16] = {0};
    for (int i = 0; i < 16; i++) in[i] = (unsigned char)(i * 0x11);
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)i;
    value *args[5] = {bytes(out, 16), bytes(in, 16), number(16), bytes(key, 32), bytes(iv, 16)};
    v = call("tg_cbc256_encrypt", 5, args);
    static const unsigned char want[16] = {0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf, 0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89};
    expect(v != NULL && v->number == 0 && memcmp(out, want, 16) == 0, "tg_cbc256_encrypt: the FIPS-197 AES-256 answer");

    /* A length past the buffer: thrown, not run. */
    int before = thrown;
    args[2] = number(32);
    expect(call("tg_cbc256_encrypt", 5, args) == NULL && thrown == before + 1, "a length past its buffer throws");

    /* A context handle through the host's externals and type tags. */
    value *ctx_args[3] = {bytes(key, 32), bytes(iv, 16), number(0)};
    value *ctx = call("tg_ctr_new", 3, ctx_args);
    expect(ctx != NULL && ctx->kind == V_EXTERNAL && ctx->tag != NULL, "tg_ctr_new: a tagged external");
    value *wrong[4] = {ctx, bytes(out, 16), bytes(in, 16), number(16)};
    before = thrown;
    expect(call("tg_ige_update", 4, wrong) == NULL && thrown == before + 1, "a CTR handle refused by tg_ige_update");
    value *free_args[1] = {ctx};
    call("tg_ctr_free", 1, free_args);
    v = call("tg_ctr_update", 4, wrong);
    expect(v != NULL && v->number == -5, "use after free: TG_ERR_CONTEXT");
done:
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
