/*
 * test_args.c - every NULL pointer argument of the C ABI, and which error
 * wins when several arguments are bad, called by test_main.c once per AES
 * backend:
 *
 *   1. each pointer argument of the AES one-shots, the contexts, the hashes,
 *      the message layer, tg_set_backend and tg_factorize_pq set to NULL
 *      alone: TG_ERR_NULL (NULL for the constructors), and nothing written;
 *   2. the order of the checks, pinned: for CTR NULL > state > NULL data >
 *      overlap; for IGE/CBC NULL key/iv > length > NULL data > overlap; a
 *      zero length skips only the data pointers;
 *   3. a rejected call leaves out, iv and state untouched;
 *   4. test_argument_codes: the codes of the common mistakes (lengths,
 *      overlaps, state 16, zero lengths, contexts of the wrong kind).
 */
#include "tgcrypto.h"
#include "check.h"

#include <string.h>

TEST_RNG(0xa4c5a4c5ULL)

typedef int (*block_fn)(uint8_t *, const uint8_t *, uint32_t, const uint8_t *, uint8_t *);

/* The four IGE/CBC one-shots with one signature (the IGE iv is const). */
static int ige_enc(uint8_t *o, const uint8_t *i, uint32_t n, const uint8_t *k, uint8_t *iv) { return tg_ige256_encrypt(o, i, n, k, iv); }
static int ige_dec(uint8_t *o, const uint8_t *i, uint32_t n, const uint8_t *k, uint8_t *iv) { return tg_ige256_decrypt(o, i, n, k, iv); }
static const struct {
    const char *name;
    block_fn    fn;
} block_fns[] = {
    {"ige encrypt", ige_enc},
    {"ige decrypt", ige_dec},
    {"cbc encrypt", tg_cbc256_encrypt},
    {"cbc decrypt", tg_cbc256_decrypt},
};

static uint8_t key[32], iv[32], iv0[32], st[1], buf[96], buf0[96];

/* Fresh random key, iv and buffer; copies to compare after a rejected call. */
static void reset(void) {
    rng_fill(key, sizeof key);
    rng_fill(iv, sizeof iv);
    rng_fill(buf, sizeof buf);
    memcpy(iv0, iv, sizeof iv);
    memcpy(buf0, buf, sizeof buf);
    st[0] = 5;
}

static int untouched(void) { return !memcmp(iv, iv0, sizeof iv) && !memcmp(buf, buf0, sizeof buf) && st[0] == 5; }

static void one_shots(const char *backend) {
    for (size_t f = 0; f < sizeof block_fns / sizeof block_fns[0]; f++) {
        const block_fn fn = block_fns[f].fn;
        const char *name = block_fns[f].name;
        reset();
        /* one NULL at a time, everything else valid */
        CHECK(fn(NULL, buf, 32, key, iv) == TG_ERR_NULL && untouched(), "%s NULL out [%s]", name, backend);
        CHECK(fn(buf + 48, NULL, 32, key, iv) == TG_ERR_NULL && untouched(), "%s NULL in [%s]", name, backend);
        CHECK(fn(buf + 48, buf, 32, NULL, iv) == TG_ERR_NULL && untouched(), "%s NULL key [%s]", name, backend);
        CHECK(fn(buf + 48, buf, 32, key, NULL) == TG_ERR_NULL && untouched(), "%s NULL iv [%s]", name, backend);
        CHECK(fn(buf, buf, 32, NULL, iv) == TG_ERR_NULL && untouched(), "%s NULL key in place [%s]", name, backend);
        CHECK(fn(buf, buf, 32, key, NULL) == TG_ERR_NULL && untouched(), "%s NULL iv in place [%s]", name, backend);
        /* zero length: key and iv still required, data pointers never read */
        CHECK(fn(NULL, NULL, 0, NULL, iv) == TG_ERR_NULL, "%s NULL key, length 0 [%s]", name, backend);
        CHECK(fn(NULL, NULL, 0, key, NULL) == TG_ERR_NULL, "%s NULL iv, length 0 [%s]", name, backend);
        CHECK(fn(NULL, NULL, 0, key, iv) == TG_OK && untouched(), "%s NULL data, length 0 [%s]", name, backend);
        CHECK(fn((uint8_t *)8, (const uint8_t *)8, 0, key, iv) == TG_OK && untouched(), "%s junk data, length 0 [%s]", name, backend);
        /* order: NULL key/iv, then length, then NULL data, then overlap */
        CHECK(fn(buf, buf, 17, NULL, iv) == TG_ERR_NULL, "%s NULL key before length [%s]", name, backend);
        CHECK(fn(buf, buf, 17, key, NULL) == TG_ERR_NULL, "%s NULL iv before length [%s]", name, backend);
        CHECK(fn(NULL, buf, 17, key, iv) == TG_ERR_LENGTH && untouched(), "%s length before NULL out [%s]", name, backend);
        CHECK(fn(buf, NULL, 8, key, iv) == TG_ERR_LENGTH && untouched(), "%s length before NULL in [%s]", name, backend);
        CHECK(fn(buf + 1, buf, 31, key, iv) == TG_ERR_LENGTH && untouched(), "%s length before overlap [%s]", name, backend);
        CHECK(fn(buf + 16, buf, 32, key, iv) == TG_ERR_OVERLAP && untouched(), "%s overlap forward [%s]", name, backend);
        CHECK(fn(buf, buf + 16, 32, key, iv) == TG_ERR_OVERLAP && untouched(), "%s overlap backward [%s]", name, backend);
        CHECK(fn(buf, buf + 31, 32, key, iv) == TG_ERR_OVERLAP && untouched(), "%s overlap by one byte [%s]", name, backend);
        CHECK(fn(buf + 32, buf, 32, key, iv) == TG_OK, "%s adjacent after [%s]", name, backend);
        CHECK(fn(buf, buf + 32, 32, key, iv) == TG_OK, "%s adjacent before [%s]", name, backend);
    }

    /* CTR: NULL key/iv/state, then state, then (data checks) NULL out/in, then overlap */
    reset();
    CHECK(tg_ctr256(NULL, buf, 32, key, iv, st) == TG_ERR_NULL && untouched(), "ctr NULL out [%s]", backend);
    CHECK(tg_ctr256(buf + 48, NULL, 32, key, iv, st) == TG_ERR_NULL && untouched(), "ctr NULL in [%s]", backend);
    CHECK(tg_ctr256(buf + 48, buf, 32, NULL, iv, st) == TG_ERR_NULL && untouched(), "ctr NULL key [%s]", backend);
    CHECK(tg_ctr256(buf + 48, buf, 32, key, NULL, st) == TG_ERR_NULL && untouched(), "ctr NULL iv [%s]", backend);
    CHECK(tg_ctr256(buf + 48, buf, 32, key, iv, NULL) == TG_ERR_NULL && untouched(), "ctr NULL state [%s]", backend);
    CHECK(tg_ctr256(NULL, NULL, 0, NULL, iv, st) == TG_ERR_NULL, "ctr NULL key, length 0 [%s]", backend);
    CHECK(tg_ctr256(NULL, NULL, 0, key, NULL, st) == TG_ERR_NULL, "ctr NULL iv, length 0 [%s]", backend);
    CHECK(tg_ctr256(NULL, NULL, 0, key, iv, NULL) == TG_ERR_NULL, "ctr NULL state, length 0 [%s]", backend);
    CHECK(tg_ctr256(NULL, NULL, 0, key, iv, st) == TG_OK && untouched(), "ctr NULL data, length 0 [%s]", backend);
    st[0] = 16;
    CHECK(tg_ctr256(buf, buf, 32, NULL, iv, st) == TG_ERR_NULL && st[0] == 16, "ctr NULL key before state [%s]", backend);
    CHECK(tg_ctr256(buf, buf, 32, key, NULL, st) == TG_ERR_NULL && st[0] == 16, "ctr NULL iv before state [%s]", backend);
    CHECK(tg_ctr256(NULL, buf, 32, key, iv, st) == TG_ERR_STATE && st[0] == 16, "ctr state before NULL out [%s]", backend);
    CHECK(tg_ctr256(buf, NULL, 32, key, iv, st) == TG_ERR_STATE && st[0] == 16, "ctr state before NULL in [%s]", backend);
    CHECK(tg_ctr256(buf + 1, buf, 32, key, iv, st) == TG_ERR_STATE && st[0] == 16, "ctr state before overlap [%s]", backend);
    CHECK(tg_ctr256(NULL, NULL, 0, key, iv, st) == TG_ERR_STATE && st[0] == 16, "ctr state checked at length 0 [%s]", backend);
    st[0] = 255;
    CHECK(tg_ctr256(buf, buf, 32, key, iv, st) == TG_ERR_STATE && st[0] == 255, "ctr state 255 [%s]", backend);
    st[0] = 15;
    CHECK(tg_ctr256(NULL, buf, 32, key, iv, st) == TG_ERR_NULL && st[0] == 15, "ctr state 15 is valid, NULL out [%s]", backend);
    CHECK(tg_ctr256(buf + 1, buf, 32, key, iv, st) == TG_ERR_OVERLAP && st[0] == 15, "ctr state 15, overlap [%s]", backend);
    CHECK(tg_ctr256(NULL, buf + 1, 32, key, iv, st) == TG_ERR_NULL, "ctr NULL out before overlap [%s]", backend);
    st[0] = 5;
    CHECK(untouched(), "ctr rejected calls wrote something [%s]", backend);
    CHECK(tg_ctr256(buf, buf, 1, key, iv, st) == TG_OK && st[0] == 6, "ctr one byte [%s]", backend);
}

static void contexts(const char *backend) {
    reset();
    CHECK(tg_ctr_new(NULL, iv, 0) == NULL, "ctr_new NULL key [%s]", backend);
    CHECK(tg_ctr_new(key, NULL, 0) == NULL, "ctr_new NULL iv [%s]", backend);
    CHECK(tg_ctr_new(NULL, iv, 16) == NULL && tg_ctr_new(key, iv, 16) == NULL, "ctr_new state 16 [%s]", backend);
    CHECK(tg_ige_new(NULL, iv, 0) == NULL && tg_ige_new(key, NULL, 1) == NULL, "ige_new NULL [%s]", backend);
    CHECK(tg_cbc_new(NULL, iv, 1) == NULL && tg_cbc_new(key, NULL, 0) == NULL, "cbc_new NULL [%s]", backend);
    CHECK(untouched(), "rejected constructors wrote something [%s]", backend);

    tg_ctr_ctx *ctr = tg_ctr_new(key, iv, 15);
    tg_ige_ctx *ige = tg_ige_new(key, iv, 1);
    tg_cbc_ctx *cbc = tg_cbc_new(key, iv, 0);
    CHECK(ctr != NULL && ige != NULL && cbc != NULL, "contexts [%s]", backend);
    if (ctr == NULL || ige == NULL || cbc == NULL) return;
    CHECK(tg_ctr_update(ctr, NULL, buf, 16) == TG_ERR_NULL && tg_ctr_update(ctr, buf, NULL, 1) == TG_ERR_NULL,
          "ctr_update NULL data [%s]", backend);
    CHECK(tg_ige_update(ige, NULL, buf, 16) == TG_ERR_NULL && tg_ige_update(ige, buf, NULL, 16) == TG_ERR_NULL,
          "ige_update NULL data [%s]", backend);
    CHECK(tg_cbc_update(cbc, NULL, buf, 16) == TG_ERR_NULL && tg_cbc_update(cbc, buf, NULL, 16) == TG_ERR_NULL,
          "cbc_update NULL data [%s]", backend);
    CHECK(tg_ige_update(ige, NULL, buf, 15) == TG_ERR_LENGTH && tg_cbc_update(cbc, buf, NULL, 8) == TG_ERR_LENGTH,
          "update: length before NULL data [%s]", backend);
    CHECK(tg_ctr_update(ctr, buf + 1, buf, 16) == TG_ERR_OVERLAP && tg_ige_update(ige, buf + 16, buf, 32) == TG_ERR_OVERLAP &&
              tg_cbc_update(cbc, buf, buf + 16, 32) == TG_ERR_OVERLAP,
          "update overlap [%s]", backend);
    CHECK(tg_ctr_update(NULL, buf, buf, 16) == TG_ERR_CONTEXT && tg_ige_update(NULL, NULL, NULL, 15) == TG_ERR_CONTEXT &&
              tg_cbc_update(NULL, buf, buf, 16) == TG_ERR_CONTEXT,
          "update NULL context wins [%s]", backend);
    CHECK(tg_ige_update((tg_ige_ctx *)cbc, buf, buf, 16) == TG_ERR_CONTEXT &&
              tg_cbc_update((tg_cbc_ctx *)ctr, buf, buf, 16) == TG_ERR_CONTEXT,
          "update wrong kind of context [%s]", backend);
    CHECK(tg_ctr_update(ctr, NULL, NULL, 0) == TG_OK && tg_ige_update(ige, NULL, NULL, 0) == TG_OK &&
              tg_cbc_update(cbc, (uint8_t *)8, (const uint8_t *)8, 0) == TG_OK,
          "update length 0 never reads the data pointers [%s]", backend);
    CHECK(untouched(), "rejected updates wrote something [%s]", backend);

    uint8_t pos[16], s[1] = {99};
    CHECK(tg_ctr_position(ctr, NULL, s) == TG_ERR_NULL && s[0] == 99, "ctr_position NULL iv [%s]", backend);
    CHECK(tg_ctr_position(ctr, pos, NULL) == TG_ERR_NULL, "ctr_position NULL state [%s]", backend);
    CHECK(tg_ctr_position(NULL, pos, s) == TG_ERR_CONTEXT && tg_ctr_position(NULL, NULL, NULL) == TG_ERR_CONTEXT,
          "ctr_position NULL context wins [%s]", backend);
    CHECK(tg_ctr_position((const tg_ctr_ctx *)ige, pos, s) == TG_ERR_CONTEXT, "ctr_position of an IGE context [%s]", backend);
    CHECK(tg_ctr_position(ctr, pos, s) == TG_OK && !memcmp(pos, iv, 16) && s[0] == 15, "ctr_position [%s]", backend);
    tg_ctr_free(ctr);
    tg_ige_free(ige);
    tg_cbc_free(cbc);
    tg_ige_free(NULL);
    tg_cbc_free(NULL);
}

static void hashes_and_rest(const char *backend) {
    uint8_t st256[TG_SHA256_STATE_SIZE], st1[TG_SHA1_STATE_SIZE], d[32];
    CHECK(tg_sha256_init(st256) == TG_OK && tg_sha1_init(st1) == TG_OK, "init [%s]", backend);
    CHECK(tg_sha256_update(NULL, d, 1) == TG_ERR_NULL && tg_sha1_update(NULL, d, 1) == TG_ERR_NULL, "update NULL state [%s]", backend);
    CHECK(tg_sha256_update(st256, NULL, 1) == TG_ERR_NULL && tg_sha1_update(st1, NULL, 1) == TG_ERR_NULL, "update NULL data [%s]", backend);
    CHECK(tg_sha256_final(NULL, d) == TG_ERR_NULL && tg_sha1_final(NULL, d) == TG_ERR_NULL, "final NULL state [%s]", backend);
    CHECK(tg_sha256_final(st256, NULL) == TG_ERR_NULL && tg_sha1_final(st1, NULL) == TG_ERR_NULL, "final NULL digest [%s]", backend);
    CHECK(tg_sha256(NULL, d, 1) == TG_ERR_NULL && tg_sha1(NULL, d, 1) == TG_ERR_NULL, "one-shot NULL digest [%s]", backend);
    CHECK(tg_sha256(d, NULL, 1) == TG_ERR_NULL && tg_sha1(d, NULL, 1) == TG_ERR_NULL, "one-shot NULL data [%s]", backend);
    CHECK(tg_sha256_init(NULL) == TG_ERR_NULL && tg_sha1_init(NULL) == TG_ERR_NULL, "init NULL [%s]", backend);
    /* the states were not finished by the rejected calls */
    CHECK(tg_sha256_final(st256, d) == TG_OK && tg_sha1_final(st1, d) == TG_OK, "final after rejected calls [%s]", backend);

    CHECK(tg_set_backend(NULL) == TG_ERR_NULL && !strcmp(tg_backend(), backend), "set_backend(NULL) [%s]", backend);

    uint64_t p = 1, q = 1;
    CHECK(tg_factorize_pq(15, NULL, &q) == TG_ERR_NULL && q == 1, "factorize NULL p [%s]", backend);
    CHECK(tg_factorize_pq(15, &p, NULL) == TG_ERR_NULL && p == 1, "factorize NULL q [%s]", backend);
    CHECK(tg_factorize_pq(7, NULL, NULL) == TG_ERR_NULL && tg_factorize_pq(0, NULL, &q) == TG_ERR_NULL,
          "factorize: NULL before not-composite [%s]", backend);

    /* The message layer: the context first, then the direction, then sizes, then pointers. */
    static uint8_t ak[256], plain[48], pad[16], packet[24 + 64], out[64];
    rng_fill(ak, sizeof ak);
    rng_fill(plain, sizeof plain);
    plain[28] = 16, plain[29] = plain[30] = plain[31] = 0; /* message_data_length 16 */
    tg_auth_key *k = tg_auth_key_new(ak);
    CHECK(k != NULL, "auth_key_new [%s]", backend);
    if (k == NULL) return;
    CHECK(tg_mtproto_encrypt(NULL, 9, NULL, NULL, 0, NULL, 0, NULL, 0) == TG_ERR_CONTEXT, "encrypt: context first [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 9, NULL, NULL, 0, NULL, 0, NULL, 0) == TG_ERR_DIRECTION, "encrypt: direction second [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, NULL, NULL, 0, NULL, 0, NULL, 0) == TG_ERR_SIZE, "encrypt: size before NULL [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, NULL, plain, 48, NULL, 0, NULL, 0) == TG_ERR_PADDING, "encrypt: padding before NULL [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, NULL, plain, 48, NULL, 0, pad, 16) == TG_ERR_NULL, "encrypt NULL packet [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, packet, plain, 48, NULL, 0, NULL, 16) == TG_ERR_NULL, "encrypt NULL padding [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, packet, NULL, 16, plain, 32, pad, 16) == TG_ERR_NULL, "encrypt NULL head [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 0, packet, plain, 16, NULL, 32, pad, 16) == TG_ERR_NULL, "encrypt NULL body [%s]", backend);
    CHECK(tg_mtproto_encrypt(k, 8, packet, plain, 48, NULL, 0, pad, 16) == TG_OK, "encrypt [%s]", backend);
    CHECK(tg_mtproto_decrypt(NULL, 9, NULL, NULL, 0) == TG_ERR_CONTEXT, "decrypt: context first [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 9, NULL, NULL, 0) == TG_ERR_DIRECTION, "decrypt: direction second [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, NULL, NULL, 0x80000000u) == TG_ERR_SIZE, "decrypt: size before NULL [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, NULL, packet, sizeof packet) == TG_ERR_NULL, "decrypt NULL plaintext [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, out, NULL, sizeof packet) == TG_ERR_NULL, "decrypt NULL packet [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, NULL, packet, 24) == TG_ERR_SECURITY, "decrypt 24 bytes: no output, NULL allowed [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, NULL, NULL, 24) == TG_ERR_NULL, "decrypt 24 bytes, NULL packet [%s]", backend);
    CHECK(tg_mtproto_decrypt(k, 8, out, packet, sizeof packet) == 48, "decrypt [%s]", backend);
    uint8_t id[8];
    CHECK(tg_auth_key_id(NULL, NULL) == TG_ERR_CONTEXT && tg_auth_key_id(k, NULL) == TG_ERR_NULL &&
              tg_auth_key_id(k, id) == TG_OK,
          "auth_key_id [%s]", backend);
    tg_auth_key_free(k);
}

void test_arguments(const char *backend) {
    one_shots(backend);
    contexts(backend);
    hashes_and_rest(backend);
}

/* The return codes of the common mistakes, called once per backend: a
 * length not whole blocks, overlapping buffers (adjacent ones are fine), a
 * CTR state of 16, zero lengths (the data pointers untouched: Bun passes
 * junk, Deno NULL), a context of the wrong kind, an unknown backend name,
 * and tg_strerror for a known and an unknown code. */
void test_argument_codes(void) {
    uint8_t key[32] = {0}, iv[32] = {0}, st[1] = {0}, buf[64] = {0};
    CHECK(tg_ige256_encrypt(buf, buf, 17, key, iv) == TG_ERR_LENGTH, "ige length");
    CHECK(tg_cbc256_decrypt(buf, buf, 8, key, iv) == TG_ERR_LENGTH, "cbc length");
    CHECK(tg_ige256_encrypt(buf + 16, buf, 32, key, iv) == TG_ERR_OVERLAP, "overlap forward");
    CHECK(tg_ctr256(buf, buf + 1, 32, key, iv, st) == TG_ERR_OVERLAP, "overlap backward");
    CHECK(tg_ctr256(buf, buf + 32, 32, key, iv, st) == TG_OK, "adjacent buffers are not overlapping");
    CHECK(tg_ige256_encrypt(buf, NULL, 16, key, iv) == TG_ERR_NULL, "null input");
    CHECK(tg_ige256_encrypt(buf, buf, 16, NULL, iv) == TG_ERR_NULL, "null key");
    st[0] = 16;
    CHECK(tg_ctr256(buf, buf, 16, key, iv, st) == TG_ERR_STATE, "state 16");
    CHECK(st[0] == 16, "rejected call leaves state alone");
    CHECK(tg_ctr_new(key, iv, 16) == NULL, "ctr_new state 16");
    /* Zero length never touches the data pointers (Bun passes junk, Deno NULL). */
    st[0] = 3;
    uint8_t iv_copy[32];
    memcpy(iv_copy, iv, 32);
    CHECK(tg_ctr256((uint8_t *)8, (const uint8_t *)8, 0, key, iv, st) == TG_OK && st[0] == 3 && !memcmp(iv, iv_copy, 32), "ctr zero length");
    CHECK(tg_ige256_decrypt(NULL, NULL, 0, key, iv) == TG_OK, "ige zero length");
    CHECK(tg_cbc256_encrypt((uint8_t *)8, (const uint8_t *)8, 0, key, iv) == TG_OK && !memcmp(iv, iv_copy, 32), "cbc zero length");
    /* Contexts of the wrong kind are refused, not misused. */
    tg_ige_ctx *ige = tg_ige_new(key, iv, 0);
    CHECK(tg_ctr_update((tg_ctr_ctx *)ige, buf, buf, 16) == TG_ERR_CONTEXT, "ige context passed as ctr");
    CHECK(tg_ige_update(ige, buf, buf, 15) == TG_ERR_LENGTH, "ige context length");
    CHECK(tg_ige_update(NULL, buf, buf, 16) == TG_ERR_CONTEXT, "null context");
    tg_ige_free(ige);
    tg_ctr_free(NULL);
    CHECK(tg_set_backend("no-such-backend") == TG_ERR_BACKEND, "unknown backend name");
    CHECK(strlen(tg_strerror(TG_ERR_OVERLAP)) > 0 && strlen(tg_strerror(12345)) > 0, "strerror");
}
