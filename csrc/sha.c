/*
 * sha.c - SHA-256 and SHA-1 (FIPS 180-4): buffering, padding, the public
 * one-shot and init/update/final functions. The compression of whole blocks
 * is left to the engine in use (sha.h); this file never names an ISA.
 */
#include "sha.h"
#include "dispatch.h"
#include "tgcrypto.h"

#include <string.h>

_Static_assert(sizeof(tg_sha_ctx) == TG_SHA256_STATE_SIZE, "state size");
_Static_assert(sizeof(tg_sha_ctx) == TG_SHA1_STATE_SIZE, "state size");

typedef void (*blocks_fn)(uint32_t *h, const uint8_t *data, size_t nblocks);

static void store32_be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Buffers a partial block; whole blocks go to the engine straight from data. */
static void feed(tg_sha_ctx *c, blocks_fn blocks, const uint8_t *data, size_t len) {
    if (len == 0) return; /* data may be NULL or junk */
    size_t used = (size_t)(c->len % 64);
    c->len += len;
    if (used != 0) {
        size_t n = 64 - used;
        if (n > len) n = len;
        memcpy(c->buf + used, data, n);
        data += n, len -= n;
        if (used + n < 64) return;
        blocks(c->h, c->buf, 1);
    }
    const size_t nblocks = len / 64;
    blocks(c->h, data, nblocks);
    data += nblocks * 64, len -= nblocks * 64;
    if (len != 0) memcpy(c->buf, data, len);
}

/* 0x80, zeros, the 64-bit big-endian bit length; then the digest, big-endian
 * words. Wipes the context. */
static void finish(tg_sha_ctx *c, blocks_fn blocks, uint8_t *digest, int words) {
    const size_t used = (size_t)(c->len % 64);
    const uint64_t bits = c->len * 8;
    c->buf[used] = 0x80;
    memset(c->buf + used + 1, 0, 63 - used);
    if (used >= 56) { /* no room for the length: one more block */
        blocks(c->h, c->buf, 1);
        memset(c->buf, 0, 56);
    }
    tg_store64_be(c->buf + 56, bits);
    blocks(c->h, c->buf, 1);
    for (int i = 0; i < words; i++) store32_be(digest + 4 * i, c->h[i]);
    tg_wipe(c, sizeof *c);
}

/* ---- internal API (sha.h) ---- */

void tg_sha256_begin(tg_sha256_ctx *c) {
    static const uint32_t iv[8] = { /* FIPS 180-4 5.3.3 */
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memset(c, 0, sizeof *c);
    memcpy(c->h, iv, sizeof iv);
    c->tag = TG_SHA256_TAG;
}

void tg_sha256_feed(tg_sha256_ctx *c, const uint8_t *data, size_t len) {
    feed(c, tg_hash_active()->sha256_blocks, data, len);
}

void tg_sha256_end(tg_sha256_ctx *c, uint8_t digest[32]) {
    finish(c, tg_hash_active()->sha256_blocks, digest, 8);
}

void tg_sha1_begin(tg_sha1_ctx *c) {
    static const uint32_t iv[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}; /* 5.3.1 */
    memset(c, 0, sizeof *c);
    memcpy(c->h, iv, sizeof iv);
    c->tag = TG_SHA1_TAG;
}

void tg_sha1_feed(tg_sha1_ctx *c, const uint8_t *data, size_t len) {
    feed(c, tg_hash_active()->sha1_blocks, data, len);
}

void tg_sha1_end(tg_sha1_ctx *c, uint8_t digest[20]) {
    finish(c, tg_hash_active()->sha1_blocks, digest, 5);
}

/* ---- public API (tgcrypto.h) ----
 * The caller's state is plain bytes of any alignment: it is copied into an
 * aligned context and back, and the copy is wiped. */

/* TG_OK, or the code tg_init() gives when TGCRYPTO_BACKEND is bad (every
 * function then fails alike). */
static int ready(void) { return tg_active_backend() != NULL ? TG_OK : tg_init(); }

const char *tg_hash_engine(void) { return tg_hash_active()->name; }

typedef struct {
    uint32_t tag;
    void (*begin)(tg_sha_ctx *c);
    void (*feed)(tg_sha_ctx *c, const uint8_t *data, size_t len);
    void (*end)(tg_sha_ctx *c, uint8_t *digest);
} hash_kind;

static void end256(tg_sha_ctx *c, uint8_t *d) { tg_sha256_end(c, d); }
static void end1(tg_sha_ctx *c, uint8_t *d) { tg_sha1_end(c, d); }
static const hash_kind kind256 = {TG_SHA256_TAG, tg_sha256_begin, tg_sha256_feed, end256};
static const hash_kind kind1 = {TG_SHA1_TAG, tg_sha1_begin, tg_sha1_feed, end1};

static int oneshot(const hash_kind *k, uint8_t *digest, const uint8_t *data, uint32_t len) {
    int err = ready();
    if (err != TG_OK) return err;
    if (digest == NULL || (len != 0 && data == NULL)) return TG_ERR_NULL;
    tg_sha_ctx c;
    TG_TEST_SECRET(&c, sizeof c);
    k->begin(&c);
    k->feed(&c, data, len);
    k->end(&c, digest); /* wipes c */
    TG_TEST_CLEAN(&c);
    return TG_OK;
}

static int init(const hash_kind *k, uint8_t *state) {
    int err = ready();
    if (err != TG_OK) return err;
    if (state == NULL) return TG_ERR_NULL;
    tg_sha_ctx c;
    TG_TEST_SECRET(&c, sizeof c);
    k->begin(&c);
    memcpy(state, &c, sizeof c);
    tg_wipe(&c, sizeof c);
    TG_TEST_CLEAN(&c);
    return TG_OK;
}

/* Copies the state in; TG_ERR_CONTEXT unless it is a live state of kind k. */
static int load(const hash_kind *k, tg_sha_ctx *c, const uint8_t *state) {
    memcpy(c, state, sizeof *c);
    if (c->tag == k->tag) return TG_OK;
    tg_wipe(c, sizeof *c);
    return TG_ERR_CONTEXT;
}

static int update(const hash_kind *k, uint8_t *state, const uint8_t *data, uint32_t len) {
    int err = ready();
    if (err != TG_OK) return err;
    if (state == NULL || (len != 0 && data == NULL)) return TG_ERR_NULL;
    tg_sha_ctx c;
    TG_TEST_SECRET(&c, sizeof c);
    if ((err = load(k, &c, state)) != TG_OK) {
        TG_TEST_CLEAN(&c);
        return err;
    }
    k->feed(&c, data, len);
    memcpy(state, &c, sizeof c);
    tg_wipe(&c, sizeof c);
    TG_TEST_CLEAN(&c);
    return TG_OK;
}

static int final(const hash_kind *k, uint8_t *state, uint8_t *digest) {
    int err = ready();
    if (err != TG_OK) return err;
    if (state == NULL || digest == NULL) return TG_ERR_NULL;
    tg_sha_ctx c;
    TG_TEST_SECRET(&c, sizeof c);
    if ((err = load(k, &c, state)) != TG_OK) {
        TG_TEST_CLEAN(&c);
        return err;
    }
    k->end(&c, digest); /* wipes c */
    tg_wipe(state, sizeof c);
    TG_TEST_CLEAN(&c);
    return TG_OK;
}

int tg_sha256(uint8_t digest[32], const uint8_t *data, uint32_t len) { return oneshot(&kind256, digest, data, len); }
int tg_sha256_init(uint8_t state[112]) { return init(&kind256, state); }
int tg_sha256_update(uint8_t state[112], const uint8_t *data, uint32_t len) { return update(&kind256, state, data, len); }
int tg_sha256_final(uint8_t state[112], uint8_t digest[32]) { return final(&kind256, state, digest); }

int tg_sha1(uint8_t digest[20], const uint8_t *data, uint32_t len) { return oneshot(&kind1, digest, data, len); }
int tg_sha1_init(uint8_t state[112]) { return init(&kind1, state); }
int tg_sha1_update(uint8_t state[112], const uint8_t *data, uint32_t len) { return update(&kind1, state, data, len); }
int tg_sha1_final(uint8_t state[112], uint8_t digest[20]) { return final(&kind1, state, digest); }
