/*
 * fuzz_abi.c - the C ABI's argument handling under random call sequences.
 *
 * The input is a program: each step calls one public function with
 * arguments drawn from the input: NULL, a junk pointer (given only with a
 * zero length, which the header says is never dereferenced, or to a call
 * that must be rejected, which must touch nothing), or a pointer into one
 * shared arena (so in/out overlap, partially or exactly);
 * lengths that are or are not multiples of 16; CTR states 0..255; contexts
 * of the right kind, of another kind (a CTR context given to an IGE call,
 * an auth key given to a CBC call, ...), or NULL.
 *
 * Properties, for every call:
 *   - the return code is TG_OK when no documented error condition holds,
 *     and otherwise one of the codes whose condition holds (the header does
 *     not fix an order between two applicable errors);
 *   - a rejected call changes no byte of the arena, the iv or the state;
 *     an accepted one changes only out[0..len) (and iv/state where the
 *     header says they are written);
 *   - key, iv and state are exact-size heap blocks, so reading past 32/16/1
 *     bytes trips ASan; a wrong-kind free is a no-op (the context still
 *     works afterwards, which ASan would flag if it had been freed).
 * What the ABI cannot promise (detecting a freed context: reading freed
 * memory is itself the bug ASan reports) is not exercised.
 */
#include "fuzz_common.h"
#include "tgcrypto.h"

#define ARENA 2048
#define SLOTS 6

enum { K_CTR, K_IGE, K_CBC, K_AUTH, K_KINDS };

typedef struct {
    void *p;
    int   kind;
} slot;

static slot slots[SLOTS];
static uint8_t *arena, *before;

/* out and in overlap without being equal (the one rejected overlap). */
static int partial_overlap(const uint8_t *o, const uint8_t *i, size_t len) {
    return o != i && (uintptr_t)o < (uintptr_t)i + len && (uintptr_t)i < (uintptr_t)o + len;
}

/* The set of acceptable results, as a bit set over -code. */
typedef uint32_t codes;
#define BIT(code) ((codes)1 << -(code))

static int fits(const uint8_t *p, size_t len) {
    return p >= arena && (size_t)(p - arena) + len <= ARENA;
}

/* A data pointer: into the arena (most often), NULL, or junk. */
static uint8_t *pick_ptr(fuzz_input *in, int *is_junk) {
    const uint8_t c = fz_u8(in);
    *is_junk = 0;
    if (c < 8) return NULL;
    if (c < 16) {
        *is_junk = 1;
        return (uint8_t *)(uintptr_t)0x10; /* never to be dereferenced */
    }
    return arena + fz_below(in, ARENA);
}

static uint32_t pick_len(fuzz_input *in) {
    const uint8_t c = fz_u8(in);
    if (c < 16) return 0;
    if (c < 24) return fz_u32(in); /* anything, including > 2^31 */
    if (c < 128) return 16 * fz_below(in, ARENA / 16 + 1);
    return fz_below(in, ARENA + 1);
}

/* Exact-size copies of key/iv/state (or NULL). */
static uint8_t *pick_buf(fuzz_input *in, size_t n) {
    if (fz_u8(in) < 12) return NULL;
    uint8_t *b = malloc(n);
    fz_bytes(in, b, n);
    return b;
}

static void *ctx_of(fuzz_input *in, int *kind) {
    const uint8_t c = fz_u8(in);
    if (c < 12) { *kind = -1; return NULL; }
    const slot *s = &slots[c % SLOTS];
    *kind = s->p ? s->kind : -1;
    return s->p;
}

static void slot_free(slot *s) {
    switch (s->kind) {
    case K_CTR: tg_ctr_free(s->p); break;
    case K_IGE: tg_ige_free(s->p); break;
    case K_CBC: tg_cbc_free(s->p); break;
    default:    tg_auth_key_free(s->p); break;
    }
    s->p = NULL;
}

/* Checks a data call: result in `ok`, untouched memory outside what it may write. */
static void check_data_call(const char *what, int rc, codes expect, const uint8_t *out, size_t len,
                            const uint8_t *iv, const uint8_t *iv_copy, size_t iv_len, int iv_written) {
    if (expect == 0) {
        FUZZ_CHECK(rc == TG_OK, "%s: expected TG_OK, got %d (%s)", what, rc, tg_strerror(rc));
    } else {
        FUZZ_CHECK(rc < 0 && (BIT(rc) & expect) != 0, "%s: got %d, allowed set 0x%x", what, rc, expect);
    }
    /* only out[0..len) of an accepted call may have changed (memcmp: fast under ASan) */
    size_t lo = ARENA, hi = ARENA;
    if (rc == TG_OK && out != NULL && len != 0 && fits(out, len)) lo = (size_t)(out - arena), hi = lo + len;
    FUZZ_CHECK(memcmp(arena, before, lo) == 0 && memcmp(arena + hi, before + hi, ARENA - hi) == 0,
               "%s (rc %d): arena bytes outside out[0..%zu) changed", what, rc, len);
    if (iv != NULL && (rc != TG_OK || !iv_written))
        FUZZ_CHECK(memcmp(iv, iv_copy, iv_len) == 0, "%s (rc %d): iv changed", what, rc);
}

/* Conditions on (out, in, len) shared by one-shots and updates. */
static codes data_conditions(const uint8_t *out, const uint8_t *in, uint32_t len, int block) {
    codes e = 0;
    if (block && len % 16 != 0) e |= BIT(TG_ERR_LENGTH);
    if (len != 0 && (out == NULL || in == NULL)) e |= BIT(TG_ERR_NULL);
    if (len != 0 && out != NULL && in != NULL && partial_overlap(out, in, len)) e |= BIT(TG_ERR_OVERLAP);
    return e;
}

static void step_one_shot(fuzz_input *in) {
    const int mode = fz_u8(in) % 5; /* ige enc, ige dec, cbc enc, cbc dec, ctr */
    int junk_o, junk_i;
    uint8_t *out = pick_ptr(in, &junk_o);
    uint8_t *src = pick_ptr(in, &junk_i);
    uint32_t len = pick_len(in);
    const size_t iv_len = mode < 2 ? 32 : 16;
    uint8_t *key = pick_buf(in, 32), *iv = pick_buf(in, iv_len), *state = pick_buf(in, 1);
    uint8_t iv_copy[32] = {0}, state_copy = state ? state[0] : 0;
    if (iv) memcpy(iv_copy, iv, iv_len);

    codes e = data_conditions(out, src, len, mode != 4);
    if (key == NULL || iv == NULL || (mode == 4 && state == NULL)) e |= BIT(TG_ERR_NULL);
    if (mode == 4 && state != NULL && state[0] > 15) e |= BIT(TG_ERR_STATE);
    /* A call that must succeed gets real buffers inside the arena; one that
     * must be rejected may get anything: it must not touch its data. */
    if (e == 0 && len != 0 && (junk_o || junk_i || !fits(out, len) || !fits(src, len))) goto done;
    memcpy(before, arena, ARENA);
    int rc;
    switch (mode) {
    case 0:  rc = tg_ige256_encrypt(out, src, len, key, iv); break;
    case 1:  rc = tg_ige256_decrypt(out, src, len, key, iv); break;
    case 2:  rc = tg_cbc256_encrypt(out, src, len, key, iv); break;
    case 3:  rc = tg_cbc256_decrypt(out, src, len, key, iv); break;
    default: rc = tg_ctr256(out, src, len, key, iv, state); break;
    }
    check_data_call("one-shot", rc, e, out, len, iv, iv_copy, iv_len, mode >= 2);
    if (state != NULL && (rc != TG_OK || mode != 4)) FUZZ_CHECK(state[0] == state_copy, "state changed");
    if (rc == TG_OK && mode == 4) FUZZ_CHECK(state[0] <= 15, "state out of range after a call");
done:
    free(key), free(iv), free(state);
}

static void step_new(fuzz_input *in) {
    const int kind = fz_u8(in) % K_KINDS;
    slot *s = &slots[fz_u8(in) % SLOTS];
    if (s->p) slot_free(s);
    if (kind == K_AUTH) {
        uint8_t *k = pick_buf(in, 256);
        s->p = tg_auth_key_new(k);
        FUZZ_CHECK((s->p != NULL) == (k != NULL), "tg_auth_key_new with %s key", k ? "a" : "a NULL");
        free(k);
    } else {
        const size_t iv_len = kind == K_IGE ? 32 : 16;
        uint8_t *key = pick_buf(in, 32), *iv = pick_buf(in, iv_len);
        const uint32_t arg = fz_u8(in) < 200 ? fz_u8(in) & 15 : fz_u32(in);
        int expect_ok = key != NULL && iv != NULL;
        if (kind == K_CTR) {
            expect_ok = expect_ok && arg <= 15;
            s->p = tg_ctr_new(key, iv, arg);
        } else if (kind == K_IGE) {
            s->p = tg_ige_new(key, iv, (int)arg); /* any int: nonzero decrypts */
        } else {
            s->p = tg_cbc_new(key, iv, (int)arg);
        }
        FUZZ_CHECK((s->p != NULL) == expect_ok, "new kind %d: %p, expected %s", kind, s->p, expect_ok ? "a context" : "NULL");
        free(key), free(iv);
    }
    s->kind = kind;
}

static void step_update(fuzz_input *in) {
    const int as = fz_u8(in) % 3; /* call as CTR, IGE or CBC */
    int kind;
    void *ctx = ctx_of(in, &kind);
    int junk_o, junk_i;
    uint8_t *out = pick_ptr(in, &junk_o);
    uint8_t *src = pick_ptr(in, &junk_i);
    uint32_t len = pick_len(in);
    codes e = data_conditions(out, src, len, as != K_CTR);
    if (kind != as) e |= BIT(TG_ERR_CONTEXT);
    if (e == 0 && len != 0 && (junk_o || junk_i || !fits(out, len) || !fits(src, len))) return;
    memcpy(before, arena, ARENA);
    int rc = as == K_CTR ? tg_ctr_update(ctx, out, src, len)
           : as == K_IGE ? tg_ige_update(ctx, out, src, len)
                         : tg_cbc_update(ctx, out, src, len);
    check_data_call("update", rc, e, out, len, NULL, NULL, 0, 0);
}

static void step_position(fuzz_input *in) {
    int kind;
    void *ctx = ctx_of(in, &kind);
    uint8_t *iv = pick_buf(in, 16), *state = pick_buf(in, 1);
    codes e = 0;
    if (kind != K_CTR) e |= BIT(TG_ERR_CONTEXT);
    if (iv == NULL || state == NULL) e |= BIT(TG_ERR_NULL);
    uint8_t iv_copy[16] = {0}, st = state ? state[0] : 0;
    if (iv) memcpy(iv_copy, iv, 16);
    memcpy(before, arena, ARENA);
    int rc = tg_ctr_position(ctx, iv, state);
    check_data_call("position", rc, e, NULL, 0, iv, iv_copy, 16, 1);
    if (rc != TG_OK && state) FUZZ_CHECK(state[0] == st, "position: state written on error");
    if (rc == TG_OK) FUZZ_CHECK(state[0] <= 15, "position: state %u", state[0]);
    free(iv), free(state);
}

/* A free of the wrong kind must leave the context alone; of the right kind, free it. */
static void step_free(fuzz_input *in) {
    const int as = fz_u8(in) % K_KINDS;
    slot *s = &slots[fz_u8(in) % SLOTS];
    if (s->p == NULL) {
        switch (as) { /* NULL is accepted */
        case K_CTR: tg_ctr_free(NULL); break;
        case K_IGE: tg_ige_free(NULL); break;
        case K_CBC: tg_cbc_free(NULL); break;
        default:    tg_auth_key_free(NULL); break;
        }
        return;
    }
    if (as == s->kind) { slot_free(s); return; }
    switch (as) {
    case K_CTR: tg_ctr_free(s->p); break;
    case K_IGE: tg_ige_free(s->p); break;
    case K_CBC: tg_cbc_free(s->p); break;
    default:    tg_auth_key_free(s->p); break;
    }
    /* still live: a use reads it (ASan: heap-use-after-free if it was freed) */
    uint8_t buf[16] = {0}, st = 0;
    int rc;
    switch (s->kind) {
    case K_CTR: rc = tg_ctr_position(s->p, buf, &st); break;
    case K_IGE: rc = tg_ige_update(s->p, buf, buf, 16); break;
    case K_CBC: rc = tg_cbc_update(s->p, buf, buf, 16); break;
    default:    rc = tg_auth_key_id(s->p, buf); break;
    }
    FUZZ_CHECK(rc == TG_OK, "context of kind %d dead after a kind-%d free: %d", s->kind, as, rc);
}

/* Auth-key functions given an AES context or NULL: TG_ERR_CONTEXT before anything else. */
static void step_auth(fuzz_input *in) {
    int kind;
    void *k = ctx_of(in, &kind);
    uint8_t id[8] = {0};
    const int op = fz_u8(in) % 3;
    uint8_t pkt[24 + 48 + 16], plain[48 + 16];
    memset(plain, 0, sizeof plain);
    int rc;
    if (op == 0) rc = tg_auth_key_id(k, fz_u8(in) < 16 ? NULL : id);
    else if (op == 1) rc = tg_mtproto_encrypt(k, 0, pkt, plain, 32, NULL, 0, plain + 32, 16);
    else rc = tg_mtproto_decrypt(k, 8, plain, pkt, sizeof pkt);
    if (kind != K_AUTH) FUZZ_CHECK(rc == TG_ERR_CONTEXT, "auth op %d on kind %d: %d", op, kind, rc);
}

static void step_misc(fuzz_input *in) {
    const uint8_t c = fz_u8(in);
    if (c < 64) {
        const int code = (int)fz_u32(in);
        FUZZ_CHECK(tg_strerror(code) != NULL, "tg_strerror(%d) is NULL", code);
    } else if (c < 128) {
        const uint32_t i = fz_u32(in) % (tg_backend_count() + 4);
        const char *name = tg_backend_name(i);
        FUZZ_CHECK((name != NULL) == (i < tg_backend_count()), "tg_backend_name(%u)", i);
        if (name == NULL) FUZZ_CHECK(tg_backend_available(i) == 0, "available past the end");
    } else {
        /* a name: compiled in (available or not), another architecture's, or unknown */
        static const char *const names[] = {"vaes512", "vaes256", "aesni", "armce", "neon", "soft",
                                            "", "SOFT", "soft ", "aes"};
        const char *name = names[fz_u8(in) % 10];
        int expect = TG_ERR_BACKEND;
        static const char *const known[] = {"vaes512", "vaes256", "aesni", "armce", "neon"};
        for (int i = 0; i < 5; i++)
            if (strcmp(name, known[i]) == 0) expect = TG_ERR_UNSUPPORTED;
        for (uint32_t i = 0; i < tg_backend_count(); i++)
            if (strcmp(name, tg_backend_name(i)) == 0) expect = tg_backend_available(i) ? TG_OK : TG_ERR_UNSUPPORTED;
        const int null_name = fz_u8(in) < 8;
        if (null_name) expect = TG_ERR_NULL;
        int rc = tg_set_backend(null_name ? NULL : name);
        FUZZ_CHECK(rc == expect, "tg_set_backend(\"%s\") = %d, expected %d", null_name ? "NULL" : name, rc, expect);
        FUZZ_CHECK(tg_backend() != NULL, "no backend after tg_set_backend");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (arena == NULL) {
        arena = malloc(ARENA);
        before = malloc(ARENA);
    }
    fuzz_input in = {data, size};
    fz_bytes(&in, arena, 64); /* arena contents: a little from the input, the rest a pattern */
    for (size_t i = 64; i < ARENA; i++) arena[i] = (uint8_t)(i * 131);
    for (int steps = 0; in.n > 0 && steps < 64; steps++) {
        switch (fz_u8(&in) % 7) {
        case 0: step_one_shot(&in); break;
        case 1: step_new(&in); break;
        case 2: step_update(&in); break;
        case 3: step_position(&in); break;
        case 4: step_free(&in); break;
        case 5: step_auth(&in); break;
        default: step_misc(&in); break;
        }
    }
    for (int i = 0; i < SLOTS; i++)
        if (slots[i].p) slot_free(&slots[i]);
    return 0;
}
