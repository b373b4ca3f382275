/*
 * mtproto.c - the MTProto 2.0 message layer (core.telegram.org/mtproto/
 * description, /mtproto/security_guidelines): auth key contexts, message
 * encryption, and message decryption with every check folded into one
 * constant-time verdict.
 *
 * Not checked here (the caller's job, per the security guidelines): salt,
 * session_id, msg_id (time window, duplicates, parity) and seq_no. This file
 * only guarantees that an accepted packet was produced with this auth key,
 * in this direction, and is well formed at the message layer.
 *
 * The hashes come from sha.h's streaming functions (the hash engine in use:
 * hardware when the CPU has it), AES-IGE from the active AES backend's
 * loops, or a fused IGE-decrypt + SHA-256 loop where the CPU has one
 * (mtproto_fused.h); this file names no instruction set.
 */
#include "backend.h"
#include "dispatch.h"
#include "mtproto_fused.h"
#include "sha.h"
#include "tgcrypto.h"

#include <stdlib.h>
#include <string.h>

/* Constant-time validation (test/c/ct_check.c under valgrind, built with
 * TG_CT_CHECK): the verdict, and the length once accepted, are meant to be
 * public; marking them so lets valgrind flag any other secret-dependent
 * branch or address. Nothing in a normal build. */
#if defined(TG_CT_CHECK)
#  include <memcheck.h>
#  define DECLASSIFY(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))
#else
#  define DECLASSIFY(p, n) ((void)0)
#endif

#define MAGIC_AUTH_KEY 0x414b4559u /* "AKEY" */

/* Largest packet: the lengths cross FFIs as 32-bit values and come back as
 * an int. */
#define PACKET_MAX 0x7fffffffu

/* Smallest valid packet: id + msg_key + 32-byte header + 12 bytes of
 * padding, rounded up to whole blocks. */
#define PACKET_MIN (TG_MTPROTO_OVERHEAD + 48)

/* IGE-decrypt this much, then hash it while it is still in L1. */
#ifndef DECRYPT_CHUNK
#define DECRYPT_CHUNK 128
#endif

struct tg_auth_key {
    uint32_t magic;
    uint8_t  key[TG_AUTH_KEY_SIZE];
    uint8_t  id[8]; /* last 8 bytes of SHA1(key) */
};

tg_auth_key *tg_auth_key_new(const uint8_t key[256]) {
    if (key == NULL) return NULL;
    tg_auth_key *k = malloc(sizeof *k);
    if (k == NULL) return NULL;
    uint8_t digest[TG_SHA1_SIZE];
    tg_sha1_ctx c;
    TG_TEST_SECRET(k, sizeof *k);
    TG_TEST_SECRET(digest, sizeof digest);
    TG_TEST_SECRET(&c, sizeof c);
    tg_sha1_begin(&c);
    tg_sha1_feed(&c, key, TG_AUTH_KEY_SIZE);
    tg_sha1_end(&c, digest);
    k->magic = MAGIC_AUTH_KEY;
    memcpy(k->key, key, TG_AUTH_KEY_SIZE);
    memcpy(k->id, digest + TG_SHA1_SIZE - 8, 8);
    tg_wipe(digest, sizeof digest);
    TG_TEST_CLEAN(digest);
    TG_TEST_CLEAN(&c);
    return k;
}

static int live(const tg_auth_key *k) { return k != NULL && k->magic == MAGIC_AUTH_KEY; }

int tg_auth_key_id(const tg_auth_key *key, uint8_t id[8]) {
    if (!live(key)) return TG_ERR_CONTEXT;
    if (id == NULL) return TG_ERR_NULL;
    memcpy(id, key->id, 8);
    return TG_OK;
}

void tg_auth_key_free(tg_auth_key *key) {
    if (!live(key)) return;
    tg_wipe(key, sizeof *key); /* the magic too: a later use is TG_ERR_CONTEXT */
    TG_TEST_CLEAN(key);
    free(key);
}

/* ---- shared by both directions ---- */

/* [a, a + alen) and [b, b + blen) share a byte (empty ranges never do). */
static int overlaps(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen) {
    const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return alen != 0 && blen != 0 && pa < pb + blen && pb < pa + alen;
}

/* aes_key and aes_iv from msg_key, as MTProto 2.0 slices them. The 32-byte
 * aes_iv is the IGE iv layout the backends take (TG_IGE_IV_SIZE). */
static void derive(const tg_auth_key *k, uint32_t x, const uint8_t msg_key[16],
                   uint8_t aes_key[32], uint8_t aes_iv[32]) {
    uint8_t a[32], b[32];
    tg_sha256_ctx c;
    TG_TEST_SECRET(a, sizeof a);
    TG_TEST_SECRET(b, sizeof b);
    TG_TEST_SECRET(&c, sizeof c);
    tg_sha256_begin(&c); /* sha256_a = SHA256(msg_key || auth_key[x .. x+36]) */
    tg_sha256_feed(&c, msg_key, 16);
    tg_sha256_feed(&c, k->key + x, 36);
    tg_sha256_end(&c, a);
    tg_sha256_begin(&c); /* sha256_b = SHA256(auth_key[40+x .. 76+x] || msg_key) */
    tg_sha256_feed(&c, k->key + 40 + x, 36);
    tg_sha256_feed(&c, msg_key, 16);
    tg_sha256_end(&c, b);
    memcpy(aes_key, a, 8);
    memcpy(aes_key + 8, b + 8, 16);
    memcpy(aes_key + 24, a + 24, 8);
    memcpy(aes_iv, b, 8);
    memcpy(aes_iv + 8, a + 8, 16);
    memcpy(aes_iv + 24, b + 24, 8);
    tg_wipe(a, sizeof a);
    tg_wipe(b, sizeof b);
    TG_TEST_CLEAN(a);
    TG_TEST_CLEAN(b);
    TG_TEST_CLEAN(&c);
}

/* Starts SHA256(auth_key[88+x .. 120+x] || ...), the msg_key hash. */
static void msg_key_begin(const tg_auth_key *k, uint32_t x, tg_sha256_ctx *c) {
    tg_sha256_begin(c);
    tg_sha256_feed(c, k->key + 88 + x, 32);
}

/* ---- encrypt ---- */

int tg_mtproto_encrypt(const tg_auth_key *key, uint32_t x, uint8_t *packet,
                       const uint8_t *head, uint32_t head_len,
                       const uint8_t *body, uint32_t body_len,
                       const uint8_t *padding, uint32_t padding_len) {
    if (!live(key)) return TG_ERR_CONTEXT;
    if (x != TG_MTPROTO_FROM_CLIENT && x != TG_MTPROTO_FROM_SERVER) return TG_ERR_DIRECTION;
    const uint64_t plain_len = (uint64_t)head_len + body_len;
    if (plain_len < 32) return TG_ERR_SIZE;
    if (padding_len < 12 || padding_len > 1024 || (plain_len + padding_len) % 16 != 0) return TG_ERR_PADDING;
    const uint64_t total = TG_MTPROTO_OVERHEAD + plain_len + padding_len;
    if (total > PACKET_MAX) return TG_ERR_SIZE;
    /* zero lengths never touch their pointers (Bun passes junk, Deno NULL) */
    if (packet == NULL || padding == NULL || (head_len != 0 && head == NULL) || (body_len != 0 && body == NULL))
        return TG_ERR_NULL;
    if (overlaps(packet, total, head, head_len) || overlaps(packet, total, body, body_len) ||
        overlaps(packet, total, padding, padding_len))
        return TG_ERR_OVERLAP;
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL) return tg_init();

    /* Assemble plaintext || padding where the ciphertext goes, hash it
     * there, encrypt it in place. */
    uint8_t *data = packet + TG_MTPROTO_OVERHEAD;
    const size_t data_len = (size_t)(plain_len + padding_len);
    if (head_len != 0) memcpy(data, head, head_len);
    if (body_len != 0) memcpy(data + head_len, body, body_len);
    memcpy(data + plain_len, padding, padding_len);

    tg_sha256_ctx c;
    uint8_t large[32], aes_key[32], aes_iv[32];
    tg_sched s;
    TG_TEST_SECRET(&c, sizeof c);
    TG_TEST_SECRET(large, sizeof large);
    TG_TEST_SECRET(aes_key, sizeof aes_key);
    TG_TEST_SECRET(aes_iv, sizeof aes_iv);
    TG_TEST_SECRET(&s, be->sched_size);
    msg_key_begin(key, x, &c);
    tg_sha256_feed(&c, data, data_len);
    tg_sha256_end(&c, large);
    derive(key, x, large + 8, aes_key, aes_iv); /* msg_key = msg_key_large[8..24] */
    be->expand_key(&s, aes_key, TG_DIR_ENCRYPT);
    be->ige_encrypt(&s, aes_iv, data, data, data_len / 16);
    memcpy(packet, key->id, 8);
    memcpy(packet + 8, large + 8, 16);
    tg_wipe(&s, be->sched_size);
    tg_wipe(large, sizeof large);
    tg_wipe(aes_key, sizeof aes_key);
    tg_wipe(aes_iv, sizeof aes_iv);
    TG_TEST_CLEAN(&c);
    TG_TEST_CLEAN(large);
    TG_TEST_CLEAN(aes_key);
    TG_TEST_CLEAN(aes_iv);
    TG_TEST_CLEAN(&s);
    return TG_OK;
}

/* ---- decrypt ---- */

/* The fused loop holds plaintext and hash state in vector registers and,
 * with 16 of them, the compiler spills some to its stack frame. Calling
 * this right after it overwrites that (now dead) frame: same caller, same
 * stack depth, a larger area. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void burn_stack(void) {
    uint8_t area[512];
    TG_TEST_SECRET(area, sizeof area); /* whatever the fused loop spilled there */
    tg_wipe(area, sizeof area);
    TG_TEST_CLEAN(area);
}

/* 0 when equal, 1 otherwise, in time independent of the contents. */
static uint32_t ct_differ(const uint8_t *a, const uint8_t *b, size_t n) {
    uint32_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= (uint32_t)(a[i] ^ b[i]);
    return (acc + 0xffu) >> 8; /* acc <= 0xff */
}

int tg_mtproto_decrypt(const tg_auth_key *key, uint32_t x, uint8_t *plaintext,
                       const uint8_t *packet, uint32_t packet_len) {
    if (!live(key)) return TG_ERR_CONTEXT;
    if (x != TG_MTPROTO_FROM_CLIENT && x != TG_MTPROTO_FROM_SERVER) return TG_ERR_DIRECTION;
    if (packet_len > PACKET_MAX) return TG_ERR_SIZE;
    if (packet_len == 0) return TG_ERR_SECURITY; /* pointers may be junk or NULL */
    const size_t out_len = packet_len > TG_MTPROTO_OVERHEAD ? packet_len - TG_MTPROTO_OVERHEAD : 0;
    if (packet == NULL || (out_len != 0 && plaintext == NULL)) return TG_ERR_NULL;
    if (plaintext != packet + TG_MTPROTO_OVERHEAD && overlaps(plaintext, out_len, packet, packet_len))
        return TG_ERR_OVERLAP;
    const tg_aes_backend *be = tg_active_backend();
    if (be == NULL) return tg_init();

    /* The length is public (it is on the wire): branching on it leaks
     * nothing. */
    if (packet_len < PACKET_MIN || out_len % 16 != 0) {
        if (out_len != 0) tg_wipe(plaintext, out_len);
        return TG_ERR_SECURITY;
    }

    /* Everything below decides through `bad` alone. The auth_key_id is
     * public too, but a mismatch takes the same path as a bad msg_key. */
    uint8_t msg_key[16], aes_key[32], aes_iv[32], large[32];
    tg_sha256_ctx c;
    tg_sched s;
    TG_TEST_SECRET(msg_key, sizeof msg_key);
    TG_TEST_SECRET(aes_key, sizeof aes_key);
    TG_TEST_SECRET(aes_iv, sizeof aes_iv);
    TG_TEST_SECRET(large, sizeof large);
    TG_TEST_SECRET(&c, sizeof c);
    TG_TEST_SECRET(&s, be->sched_size);
    memcpy(msg_key, packet + 8, 16);
    uint32_t bad = ct_differ(packet, key->id, 8);

    derive(key, x, msg_key, aes_key, aes_iv);
    msg_key_begin(key, x, &c);
    be->expand_key(&s, aes_key, TG_DIR_DECRYPT);
    const uint8_t *cipher = packet + TG_MTPROTO_OVERHEAD;
    const tg_ige_dec_sha256_fn fused = tg_fused_ige_dec_sha256(be, tg_hash_active());
    if (fused != NULL) {
        /* 32 bytes complete the hash's first block (32 key bytes), then
         * whole 64-byte blocks in the fused loop, then the rest (< 64). */
        be->ige_decrypt(&s, aes_iv, plaintext, cipher, 2);
        tg_sha256_feed(&c, plaintext, 32);
        const size_t m = (out_len - 32) / 64 * 64;
        fused(&s, aes_iv, plaintext + 32, cipher + 32, m / 16, c.h);
        burn_stack();
        c.len += m;
        be->ige_decrypt(&s, aes_iv, plaintext + 32 + m, cipher + 32 + m, (out_len - 32 - m) / 16);
        tg_sha256_feed(&c, plaintext + 32 + m, out_len - 32 - m);
    } else {
        /* IGE-decrypt a chunk, then hash it while it is in L1 (small
         * steps: the two chains still overlap across the calls). The first
         * chunk is 32 bytes short so the hash, which has 32 key bytes
         * already, sees whole 64-byte blocks straight from the output. */
        for (size_t off = 0, n = DECRYPT_CHUNK - 32; off < out_len; off += n, n = DECRYPT_CHUNK) {
            if (n > out_len - off) n = out_len - off;
            be->ige_decrypt(&s, aes_iv, plaintext + off, cipher + off, n / 16);
            tg_sha256_feed(&c, plaintext + off, n);
        }
    }
    tg_sha256_end(&c, large);
    tg_wipe(&s, be->sched_size);

    /* msg_key must be msg_key_large[8..24] of what was decrypted. */
    bad |= ct_differ(large + 8, msg_key, 16);
    /* message_data_length (little-endian at offset 28): a multiple of 4,
     * leaving 12..1024 bytes of padding. pad is the true padding length
     * modulo 2^64 (|pad| < 2^33), so bit 63 is its sign: no comparison
     * the compiler could turn into a branch, no signed overflow. */
    const uint32_t data_len = (uint32_t)plaintext[28] | (uint32_t)plaintext[29] << 8 |
                              (uint32_t)plaintext[30] << 16 | (uint32_t)plaintext[31] << 24;
    const uint64_t pad = (uint64_t)out_len - 32 - data_len;
    bad |= ((data_len & 3) + 3) >> 2; /* 1 unless data_len % 4 == 0, no comparison */
    bad |= (uint32_t)((pad - 12) >> 63) | (uint32_t)((1024 - pad) >> 63);

    tg_wipe(msg_key, sizeof msg_key);
    tg_wipe(aes_key, sizeof aes_key);
    tg_wipe(aes_iv, sizeof aes_iv);
    tg_wipe(large, sizeof large);
    TG_TEST_CLEAN(msg_key);
    TG_TEST_CLEAN(aes_key);
    TG_TEST_CLEAN(aes_iv);
    TG_TEST_CLEAN(large);
    TG_TEST_CLEAN(&c);
    TG_TEST_CLEAN(&s);

    DECLASSIFY(&bad, sizeof bad);
    if (bad != 0) { /* the one branch on the verdict */
        tg_wipe(plaintext, out_len);
        return TG_ERR_SECURITY;
    }
    const size_t plain_len = 32 + (size_t)data_len; /* accepted: the caller learns it */
    DECLASSIFY(&plain_len, sizeof plain_len);
    tg_wipe(plaintext + plain_len, out_len - plain_len); /* the padding */
    return (int)plain_len;
}
