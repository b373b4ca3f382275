/*
 * api.c - the public functions: argument checks, mode semantics (CTR
 * offsets, chaining state), contexts and key wiping. Backends only run
 * whole-block loops; this file never names an instruction set.
 */
#include "backend.h"
#include "dispatch.h"
#include "tgcrypto.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

const char *tg_version(void) { return TG_VERSION_STRING; }

const char *tg_strerror(int code) {
    switch (code) {
    case TG_OK:              return "ok";
    case TG_ERR_NULL:        return "a required pointer is NULL";
    case TG_ERR_LENGTH:      return "data size must match a multiple of 16 bytes";
    case TG_ERR_STATE:       return "state value must be in the range [0, 15]";
    case TG_ERR_OVERLAP:     return "output and input overlap without being the same buffer";
    case TG_ERR_CONTEXT:     return "not a live context of this kind";
    case TG_ERR_NOMEM:       return "out of memory";
    case TG_ERR_BACKEND:     return "unknown backend name";
    case TG_ERR_UNSUPPORTED: return "backend not available on this CPU or build";
    case TG_ERR_SECURITY:    return "MTProto packet rejected";
    case TG_ERR_PADDING:     return "MTProto padding must be 12..1024 bytes and make the total a multiple of 16";
    case TG_ERR_SIZE:        return "MTProto plaintext shorter than its 32-byte header, or packet too large";
    case TG_ERR_DIRECTION:   return "MTProto direction must be 0 (from client) or 8 (from server)";
    case TG_ERR_NOT_COMPOSITE: return "pq is 0, 1 or a prime: nothing to factorize";
    case TG_ERR_NO_FACTOR:   return "no factor found within the attempt bound";
    default:                 return "unknown error code";
    }
}

/* ---- argument checks ---- */

/* out == in is in-place and allowed; any other overlap is not. */
static int partial_overlap(const uint8_t *out, const uint8_t *in, size_t len) {
    const uintptr_t o = (uintptr_t)out, i = (uintptr_t)in;
    return o != i && o < i + len && i < o + len;
}

/* Checks common to every data call; block_mode adds the multiple-of-16 rule. */
static int check_data(uint8_t *out, const uint8_t *in, uint32_t len, int block_mode) {
    if (block_mode && len % 16 != 0) return TG_ERR_LENGTH;
    if (len == 0) return TG_OK; /* pointers may be junk (Bun) or NULL (Deno) */
    if (out == NULL || in == NULL) return TG_ERR_NULL;
    if (partial_overlap(out, in, len)) return TG_ERR_OVERLAP;
    return TG_OK;
}

/* ---- CTR stream position ---- */

/* Position in a CTR stream: the keystream byte used next is byte `offset`
 * of AES(ctr). While offset != 0, ks holds AES(ctr). */
typedef struct {
    uint8_t  ctr[16];
    uint8_t  ks[16];
    uint32_t offset;
} ctr_position;

static void keystream_block(const tg_aes_backend *be, const tg_sched *s, const uint8_t ctr[16], uint8_t ks[16]) {
    uint8_t c[16];
    memcpy(c, ctr, 16);
    memset(ks, 0, 16);
    be->ctr_xor(s, c, ks, ks, 1);
}

static void ctr_run(const tg_aes_backend *be, const tg_sched *s, ctr_position *p,
                    uint8_t *out, const uint8_t *in, size_t len) {
    if (p->offset != 0) { /* finish the current keystream block */
        size_t n = 16 - p->offset;
        if (n > len) n = len;
        for (size_t j = 0; j < n; j++) out[j] = in[j] ^ p->ks[p->offset + j];
        out += n, in += n, len -= n;
        p->offset += (uint32_t)n;
        if (p->offset < 16) return;
        p->offset = 0;
        tg_ctr_add(p->ctr, 1);
    }
    const size_t blocks = len / 16;
    be->ctr_xor(s, p->ctr, out, in, blocks);
    out += blocks * 16, in += blocks * 16, len -= blocks * 16;
    if (len != 0) { /* start a new keystream block and keep it */
        keystream_block(be, s, p->ctr, p->ks);
        for (size_t j = 0; j < len; j++) out[j] = in[j] ^ p->ks[j];
        p->offset = (uint32_t)len;
    }
}

/* ---- one-shot functions ---- */

typedef enum { IGE_ENCRYPT, IGE_DECRYPT, CBC_ENCRYPT, CBC_DECRYPT } block_mode;

typedef void (*block_loop)(const tg_sched *, uint8_t *chain, uint8_t *, const uint8_t *, size_t);

static block_loop loop_of(const tg_aes_backend *be, block_mode m) {
    switch (m) {
    case IGE_ENCRYPT: return be->ige_encrypt;
    case IGE_DECRYPT: return be->ige_decrypt;
    case CBC_ENCRYPT: return be->cbc_encrypt;
    default:          return be->cbc_decrypt;
    }
}

static int direction_of(block_mode m) {
    return m == IGE_DECRYPT || m == CBC_DECRYPT ? TG_DIR_DECRYPT : TG_DIR_ENCRYPT;
}

/* Shared body of the IGE and CBC one-shots: expand, run, wipe. IGE leaves
 * the caller's iv alone; CBC hands the chain back through it. */
static int one_shot(block_mode m, uint8_t *out, const uint8_t *in, uint32_t len,
                    const uint8_t key[32], const uint8_t *iv_in, uint8_t *iv_out) {
    if (key == NULL || iv_in == NULL) return TG_ERR_NULL;
    int err = check_data(out, in, len, 1);
    if (err != TG_OK) return err;
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL) return tg_init();
    if (len == 0) return TG_OK;

    const size_t iv_len = (m == IGE_ENCRYPT || m == IGE_DECRYPT) ? 32 : 16;
    tg_sched s;
    uint8_t chain[32];
    TG_TEST_SECRET(&s, be->sched_size);
    TG_TEST_SECRET(chain, sizeof chain);
    memcpy(chain, iv_in, iv_len);
    be->expand_key(&s, key, direction_of(m));
    loop_of(be, m)(&s, chain, out, in, len / 16);
    tg_wipe(&s, be->sched_size);
    if (iv_out != NULL) memcpy(iv_out, chain, iv_len);
    tg_wipe(chain, sizeof chain);
    TG_TEST_CLEAN(&s);
    TG_TEST_CLEAN(chain);
    return TG_OK;
}

int tg_ige256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                      const uint8_t key[32], const uint8_t iv[32]) {
    return one_shot(IGE_ENCRYPT, out, in, len, key, iv, NULL);
}

int tg_ige256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                      const uint8_t key[32], const uint8_t iv[32]) {
    return one_shot(IGE_DECRYPT, out, in, len, key, iv, NULL);
}

int tg_cbc256_encrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                      const uint8_t key[32], uint8_t iv[16]) {
    return one_shot(CBC_ENCRYPT, out, in, len, key, iv, iv);
}

int tg_cbc256_decrypt(uint8_t *out, const uint8_t *in, uint32_t len,
                      const uint8_t key[32], uint8_t iv[16]) {
    return one_shot(CBC_DECRYPT, out, in, len, key, iv, iv);
}

int tg_ctr256(uint8_t *out, const uint8_t *in, uint32_t len,
              const uint8_t key[32], uint8_t iv[16], uint8_t state[1]) {
    if (key == NULL || iv == NULL || state == NULL) return TG_ERR_NULL;
    if (state[0] > 15) return TG_ERR_STATE;
    int err = check_data(out, in, len, 0);
    if (err != TG_OK) return err;
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL) return tg_init();
    if (len == 0) return TG_OK;

    tg_sched s;
    ctr_position p;
    TG_TEST_SECRET(&s, be->sched_size);
    TG_TEST_SECRET(&p, sizeof p);
    memcpy(p.ctr, iv, 16);
    p.offset = state[0];
    be->expand_key(&s, key, TG_DIR_ENCRYPT);
    if (p.offset != 0) keystream_block(be, &s, p.ctr, p.ks);
    ctr_run(be, &s, &p, out, in, len);
    tg_wipe(&s, be->sched_size);
    memcpy(iv, p.ctr, 16);
    state[0] = (uint8_t)p.offset;
    tg_wipe(&p, sizeof p);
    TG_TEST_CLEAN(&s);
    TG_TEST_CLEAN(&p);
    return TG_OK;
}

/* ---- contexts ---- */

/* One layout for the three kinds; the public types are distinct so C callers
 * cannot mix them up, and `magic` catches it across an FFI. The key schedule
 * is a flexible tail sized for the backend and direction (sched_bytes): a
 * hardware encryption context is ~330 bytes instead of ~1100, which matters
 * to garbage-collected callers that cannot see native memory. */
typedef struct {
    uint32_t          magic;
    int               dir;
    const tg_aes_backend *be;
    uint8_t           chain[32]; /* IGE iv (32) or CBC iv (16) */
    ctr_position      pos;       /* CTR only */
    uint64_t          sched[];   /* a tg_sched of sched_bytes(be, dir) bytes */
} context;

/* A backend that leaves sched_size_encrypt 0 gets its full schedule. */
static size_t sched_bytes(const tg_aes_backend *be, int dir) {
    return dir == TG_DIR_ENCRYPT && be->sched_size_encrypt != 0 ? be->sched_size_encrypt : be->sched_size;
}

static size_t context_size(const context *c) {
    return offsetof(context, sched) + sched_bytes(c->be, c->dir);
}

/* The backends take a tg_sched; they touch only its first sched_bytes. */
static tg_sched *sched_of(context *c) { return (tg_sched *)(void *)c->sched; }

/* The public tg_*_ctx types stay incomplete: each is a context (C forbids
 * wrapping a struct with a flexible member in another struct). */

enum { MAGIC_CTR = 0x43545231, MAGIC_IGE = 0x49474531, MAGIC_CBC = 0x43424331 };

/* The context behind a public pointer, or NULL if it is not a live one of this kind. */
static context *live(const void *ctx, uint32_t magic) {
    context *c = (context *)(uintptr_t)ctx;
    return c != NULL && c->magic == magic ? c : NULL;
}

static context *context_new(uint32_t magic, const uint8_t key[32], const uint8_t *iv, size_t iv_len, int dir) {
    if (key == NULL || iv == NULL) return NULL;
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL) return NULL;
    const size_t size = offsetof(context, sched) + sched_bytes(be, dir);
    context *c = malloc(size);
    if (c == NULL) return NULL;
    memset(c, 0, size);
    TG_TEST_SECRET(c, size);
    c->magic = magic;
    c->dir = dir;
    c->be = be;
    memcpy(c->chain, iv, iv_len);
    be->expand_key(sched_of(c), key, dir);
    return c;
}

static void context_free(void *ctx, uint32_t magic) {
    context *c = live(ctx, magic);
    if (c == NULL) return;
    tg_wipe(c, context_size(c));
    TG_TEST_CLEAN(c);
    free(c);
}

tg_ctr_ctx *tg_ctr_new(const uint8_t key[32], const uint8_t iv[16], uint32_t state) {
    if (state > 15) return NULL;
    context *c = context_new(MAGIC_CTR, key, iv, 16, TG_DIR_ENCRYPT);
    if (c == NULL) return NULL;
    memcpy(c->pos.ctr, iv, 16);
    c->pos.offset = state;
    if (state != 0) keystream_block(c->be, sched_of(c), c->pos.ctr, c->pos.ks);
    return (tg_ctr_ctx *)c;
}

int tg_ctr_update(tg_ctr_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len) {
    context *c = live(ctx, MAGIC_CTR);
    if (c == NULL) return TG_ERR_CONTEXT;
    int err = check_data(out, in, len, 0);
    if (err != TG_OK || len == 0) return err;
    ctr_run(c->be, sched_of(c), &c->pos, out, in, len);
    return TG_OK;
}

int tg_ctr_position(const tg_ctr_ctx *ctx, uint8_t iv[16], uint8_t state[1]) {
    const context *c = live(ctx, MAGIC_CTR);
    if (c == NULL) return TG_ERR_CONTEXT;
    if (iv == NULL || state == NULL) return TG_ERR_NULL;
    memcpy(iv, c->pos.ctr, 16);
    state[0] = (uint8_t)c->pos.offset;
    return TG_OK;
}

void tg_ctr_free(tg_ctr_ctx *ctx) { context_free(ctx, MAGIC_CTR); }

tg_ige_ctx *tg_ige_new(const uint8_t key[32], const uint8_t iv[32], int decrypt) {
    return (tg_ige_ctx *)context_new(MAGIC_IGE, key, iv, 32, decrypt ? TG_DIR_DECRYPT : TG_DIR_ENCRYPT);
}

int tg_ige_update(tg_ige_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len) {
    context *c = live(ctx, MAGIC_IGE);
    if (c == NULL) return TG_ERR_CONTEXT;
    int err = check_data(out, in, len, 1);
    if (err != TG_OK || len == 0) return err;
    loop_of(c->be, c->dir == TG_DIR_DECRYPT ? IGE_DECRYPT : IGE_ENCRYPT)(sched_of(c), c->chain, out, in, len / 16);
    return TG_OK;
}

void tg_ige_free(tg_ige_ctx *ctx) { context_free(ctx, MAGIC_IGE); }

tg_cbc_ctx *tg_cbc_new(const uint8_t key[32], const uint8_t iv[16], int decrypt) {
    return (tg_cbc_ctx *)context_new(MAGIC_CBC, key, iv, 16, decrypt ? TG_DIR_DECRYPT : TG_DIR_ENCRYPT);
}

int tg_cbc_update(tg_cbc_ctx *ctx, uint8_t *out, const uint8_t *in, uint32_t len) {
    context *c = live(ctx, MAGIC_CBC);
    if (c == NULL) return TG_ERR_CONTEXT;
    int err = check_data(out, in, len, 1);
    if (err != TG_OK || len == 0) return err;
    loop_of(c->be, c->dir == TG_DIR_DECRYPT ? CBC_DECRYPT : CBC_ENCRYPT)(sched_of(c), c->chain, out, in, len / 16);
    return TG_OK;
}

void tg_cbc_free(tg_cbc_ctx *ctx) { context_free(ctx, MAGIC_CBC); }
