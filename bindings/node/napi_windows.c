/*
 * Windows only: the N-API functions addon.c calls, looked up at run time in
 * the process that loads the addon.
 *
 * On Windows a DLL must name the module each import comes from. An import
 * library for "node.exe" (`zig dlltool` over node-api-headers' .def files)
 * would tie the addon to an executable of that name, so it would not load
 * in a renamed node.exe, a single-executable application, Electron or any
 * other host that exports N-API. Instead each function used here is defined
 * as a forwarder through a pointer that tgnode_resolve_napi() fills once
 * (InitOnceExecuteOnce: Workers may register the module at the same time)
 * with GetProcAddress on the host executable, or on libnode.dll / node.dll
 * for a Node built as a shared library. addon.c calls it before any other
 * N-API function; if a function is missing it returns 0 and the module
 * registers nothing (no call is ever made through a NULL pointer).
 *
 * Built with NAPI_EXTERN defined empty, so none of the forwarders is
 * exported; the DLL exports only the module registration.
 */
#if defined(_WIN32)
#include <windows.h>

#define NAPI_VERSION 8
#include <node_api.h>

/* X(result type, name, (parameters), (arguments)) for every function addon.c uses. */
#define NAPI_FUNCTIONS(X)                                                                                       \
    X(napi_status, napi_check_object_type_tag, (napi_env e, napi_value v, const napi_type_tag *t, bool *r), (e, v, t, r)) \
    X(napi_status, napi_create_external, (napi_env e, void *d, napi_finalize f, void *h, napi_value *r), (e, d, f, h, r)) \
    X(napi_status, napi_create_int32, (napi_env e, int32_t v, napi_value *r), (e, v, r))                        \
    X(napi_status, napi_create_string_utf8, (napi_env e, const char *s, size_t n, napi_value *r), (e, s, n, r))  \
    X(napi_status, napi_create_uint32, (napi_env e, uint32_t v, napi_value *r), (e, v, r))                      \
    X(napi_status, napi_define_properties, (napi_env e, napi_value o, size_t n, const napi_property_descriptor *p), (e, o, n, p)) \
    X(napi_status, napi_get_cb_info, (napi_env e, napi_callback_info i, size_t *c, napi_value *a, napi_value *t, void **d), (e, i, c, a, t, d)) \
    X(napi_status, napi_get_null, (napi_env e, napi_value *r), (e, r))                                          \
    X(napi_status, napi_get_typedarray_info, (napi_env e, napi_value v, napi_typedarray_type *t, size_t *n, void **d, napi_value *b, size_t *o), (e, v, t, n, d, b, o)) \
    X(napi_status, napi_get_undefined, (napi_env e, napi_value *r), (e, r))                                     \
    X(napi_status, napi_get_value_bigint_uint64, (napi_env e, napi_value v, uint64_t *r, bool *l), (e, v, r, l)) \
    X(napi_status, napi_get_value_external, (napi_env e, napi_value v, void **r), (e, v, r))                    \
    X(napi_status, napi_get_value_int32, (napi_env e, napi_value v, int32_t *r), (e, v, r))                     \
    X(napi_status, napi_get_value_string_utf8, (napi_env e, napi_value v, char *b, size_t n, size_t *r), (e, v, b, n, r)) \
    X(napi_status, napi_get_value_uint32, (napi_env e, napi_value v, uint32_t *r), (e, v, r))                   \
    X(napi_status, napi_throw_error, (napi_env e, const char *c, const char *m), (e, c, m))                     \
    X(napi_status, napi_throw_range_error, (napi_env e, const char *c, const char *m), (e, c, m))               \
    X(napi_status, napi_throw_type_error, (napi_env e, const char *c, const char *m), (e, c, m))                \
    X(napi_status, napi_type_tag_object, (napi_env e, napi_value v, const napi_type_tag *t), (e, v, t))         \
    X(napi_status, napi_typeof, (napi_env e, napi_value v, napi_valuetype *r), (e, v, r))

/* The pointers, and the forwarders with the header's prototypes. */
#define POINTER(type, name, params, args) static type(NAPI_CDECL *p_##name) params;
NAPI_FUNCTIONS(POINTER)
#define FORWARDER(type, name, params, args) type NAPI_CDECL name params { return p_##name args; }
NAPI_FUNCTIONS(FORWARDER)

static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
static BOOL resolved = FALSE;

/* The module exporting N-API: the host executable, else a shared-library Node. */
static HMODULE host_module(void) {
    const wchar_t *names[] = {NULL, L"libnode.dll", L"node.dll"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        HMODULE module = GetModuleHandleW(names[i]);
        if (module != NULL && GetProcAddress(module, "napi_get_cb_info") != NULL) return module;
    }
    return NULL;
}

static BOOL CALLBACK resolve(PINIT_ONCE init, PVOID parameter, PVOID *context) {
    (void)init; (void)parameter; (void)context;
    HMODULE module = host_module();
    if (module == NULL) return TRUE; /* resolved stays FALSE */
    BOOL all = TRUE;
    /* FARPROC -> the function's type through a generic function pointer (no -Wcast-function-type). */
#define LOOKUP(type, name, params, args)                                                     \
    p_##name = (type(NAPI_CDECL *) params)(void (*)(void))GetProcAddress(module, #name);      \
    if (p_##name == NULL) all = FALSE;
    NAPI_FUNCTIONS(LOOKUP)
    resolved = all;
    return TRUE;
}

int tgnode_resolve_napi(void) {
    InitOnceExecuteOnce(&once, resolve, NULL, NULL);
    return resolved ? 1 : 0;
}
#endif
