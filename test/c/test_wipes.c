/*
 * test_wipes.c - the wipes SECURITY.md promises, seen
 * through the test hooks of csrc/backend.h (compiled in with
 * -DTG_TEST_HOOKS: build.zig sets it for this program only).
 *
 * The library announces every temporary it promises to wipe (key
 * schedules, IV and counter copies, keystream blocks, derived MTProto keys
 * and IVs, msg_key_large, hash states and message schedules, the soft
 * backend's bitsliced state, contexts, auth keys) with TG_TEST_SECRET when
 * it gets a secret, and checks it with TG_TEST_CLEAN at the end of its
 * life, before the function returns or calls free(). The hooks below keep a
 * list of live regions; a region that is not all zero at its TG_TEST_CLEAN
 * is counted "dirty" with the file and line that announced it.
 *
 *   1. After each one-shot call, context free, tg_auth_key_free, message
 *      encryption and decryption (accepted and rejected), hash one-shot,
 *      init/update/final (and a refused state), on every backend: no new
 *      dirty region, no region left live, and the hooks did run.
 *   2. At the very end of the test program (test_main.c): no region was
 *      dirty in any call of the whole suite (every backend, every path the
 *      other tests take).
 *
 * Without TG_TEST_HOOKS (a build of these files that does not set it) the
 * checks are reported as skipped.
 */
#include "tgcrypto.h"
#include "check.h"

#include <stdio.h>
#include <string.h>

TEST_RNG(0x3173e5ULL)

/* ---- the hooks ---- */

#define MAX_LIVE 512

static struct {
    const unsigned char *p;
    size_t               n;
    const char          *where;
} live[MAX_LIVE];
static size_t n_live;
static unsigned long announced, dirty, unmatched, overflow;
static const char *first_dirty;

void tg_test_secret(void *p, size_t n, const char *where);
void tg_test_clean(const void *p);

void tg_test_secret(void *p, size_t n, const char *where) {
    announced++;
    if (n_live == MAX_LIVE) {
        overflow++;
        return;
    }
    live[n_live].p = p, live[n_live].n = n, live[n_live].where = where;
    n_live++;
}

void tg_test_clean(const void *p) {
    size_t i = n_live;
    while (i > 0 && live[i - 1].p != (const unsigned char *)p) i--; /* the latest announcement of p */
    if (i == 0) {
        unmatched++;
        return;
    }
    i--;
    unsigned char acc = 0;
    for (size_t j = 0; j < live[i].n; j++) acc |= live[i].p[j];
    if (acc != 0) {
        if (dirty == 0) first_dirty = live[i].where;
        dirty++;
        printf("dirty: %zu bytes announced at %s not zero at the end of their life\n", live[i].n, live[i].where);
    }
    memmove(&live[i], &live[i + 1], (n_live - i - 1) * sizeof live[0]);
    n_live--;
}

/* The size of the region announced last (a new context's allocation). */
static size_t last_size(void) { return n_live != 0 ? live[n_live - 1].n : 0; }

/* ---- checking one call ---- */

typedef struct {
    size_t        live;
    unsigned long announced, dirty;
} mark;

static mark now(void) {
    mark m = {n_live, announced, dirty};
    return m;
}

/* After a call: no new dirty region, `more_live` regions still live (1 for a
 * new context or key, -1 for a freed one), at least `min_announced` regions
 * announced by it. */
static void after(mark m, long more_live, unsigned long min_announced, const char *what, const char *backend) {
    CHECK(dirty == m.dirty, "%s: a secret was not wiped (first: %s) [%s]", what, first_dirty ? first_dirty : "?", backend);
    CHECK((long)n_live - (long)m.live == more_live, "%s: %ld regions left live, expected %ld [%s]", what,
          (long)n_live - (long)m.live, more_live, backend);
    CHECK(announced - m.announced >= min_announced, "%s: %lu regions announced, expected >= %lu [%s]", what,
          announced - m.announced, min_announced, backend);
    CHECK(unmatched == 0 && overflow == 0, "%s: hook bookkeeping (unmatched %lu, overflow %lu)", what, unmatched, overflow);
}

static void aes(const char *backend) {
    static uint8_t key[32], iv[32], in[1024], out[1024];
    rng_fill(key, sizeof key);
    rng_fill(in, sizeof in);
    static const uint32_t lens[] = {16, 64, 1024};
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        const uint32_t n = lens[l];
        mark m;
        rng_fill(iv, sizeof iv);
        m = now(), tg_ige256_encrypt(out, in, n, key, iv), after(m, 0, 2, "ige256_encrypt", backend);
        m = now(), tg_ige256_decrypt(out, in, n, key, iv), after(m, 0, 2, "ige256_decrypt", backend);
        m = now(), tg_cbc256_encrypt(out, in, n, key, iv), after(m, 0, 2, "cbc256_encrypt", backend);
        m = now(), tg_cbc256_decrypt(out, in, n, key, iv), after(m, 0, 2, "cbc256_decrypt", backend);
        uint8_t st[1] = {0};
        m = now(), tg_ctr256(out, in, n - 5, key, iv, st), after(m, 0, 2, "ctr256", backend);
        m = now(), tg_ctr256(out, in, n, key, iv, st), after(m, 0, 2, "ctr256 from offset 11", backend);

        /* contexts: announced at new (with the size SECURITY.md gives: 328
         * bytes for a hardware encryption or CTR context, 568 for hardware
         * decryption, 1048 for soft), clean at free */
        const int soft = strcmp(backend, "soft") == 0;
        m = now();
        tg_ctr_ctx *ctr = tg_ctr_new(key, iv, 7);
        CHECK(last_size() == (soft ? 1048u : 328u), "ctr context of %zu bytes [%s]", last_size(), backend);
        tg_ige_ctx *ige = tg_ige_new(key, iv, 1);
        CHECK(last_size() == (soft ? 1048u : 568u), "ige decrypt context of %zu bytes [%s]", last_size(), backend);
        tg_cbc_ctx *cbc = tg_cbc_new(key, iv, 0);
        CHECK(last_size() == (soft ? 1048u : 328u), "cbc encrypt context of %zu bytes [%s]", last_size(), backend);
        tg_ige_ctx *ige_enc = tg_ige_new(key, iv, 0);
        CHECK(last_size() == (soft ? 1048u : 328u), "ige encrypt context of %zu bytes [%s]", last_size(), backend);
        tg_cbc_ctx *cbc_dec = tg_cbc_new(key, iv, 1);
        CHECK(last_size() == (soft ? 1048u : 568u), "cbc decrypt context of %zu bytes [%s]", last_size(), backend);
        tg_ige_free(ige_enc);
        tg_cbc_free(cbc_dec);
        after(m, 3, 3, "three contexts created", backend);
        m = now();
        tg_ctr_update(ctr, out, in, n - 3);
        tg_ige_update(ige, out, in, n);
        tg_cbc_update(cbc, out, in, n);
        after(m, 0, 0, "context updates", backend);
        m = now(), tg_ctr_free(ctr), after(m, -1, 0, "ctr_free", backend);
        m = now(), tg_ige_free(ige), after(m, -1, 0, "ige_free", backend);
        m = now(), tg_cbc_free(cbc), after(m, -1, 0, "cbc_free", backend);
    }
}

static void message_layer(const char *backend) {
    static uint8_t ak[256], plain[32 + 1000], pad[32], packet[24 + 32 + 1000 + 32], out[sizeof packet];
    rng_fill(ak, sizeof ak);
    mark m = now();
    tg_auth_key *k = tg_auth_key_new(ak);
    after(m, 1, 2, "auth_key_new", backend);
    if (k == NULL) return;
    static const uint32_t data_lens[] = {16, 200, 1000}; /* 200, 1000: the fused loop runs */
    for (size_t d = 0; d < sizeof data_lens / sizeof data_lens[0]; d++) {
        const uint32_t dl = data_lens[d], pl = 12 + (16 - (32 + dl + 12) % 16) % 16, len = 24 + 32 + dl + pl;
        rng_fill(plain, sizeof plain);
        plain[28] = (uint8_t)dl, plain[29] = (uint8_t)(dl >> 8), plain[30] = plain[31] = 0;
        rng_fill(pad, sizeof pad);
        m = now();
        const int rc = tg_mtproto_encrypt(k, 8, packet, plain, 32 + dl, NULL, 0, pad, pl);
        after(m, 0, 5, "mtproto_encrypt", backend);
        m = now();
        CHECK(rc == TG_OK && tg_mtproto_decrypt(k, 8, out, packet, len) == (int)(32 + dl), "decrypt [%s]", backend);
        after(m, 0, 6, "mtproto_decrypt (accepted)", backend);
        packet[len - 1] ^= 1;
        m = now();
        CHECK(tg_mtproto_decrypt(k, 8, out, packet, len) == TG_ERR_SECURITY, "decrypt tampered [%s]", backend);
        after(m, 0, 6, "mtproto_decrypt (rejected)", backend);
        m = now(), tg_mtproto_decrypt(k, 8, out, packet, len - 1), after(m, 0, 0, "mtproto_decrypt (bad length)", backend);
    }
    m = now(), tg_auth_key_free(k), after(m, -1, 0, "auth_key_free", backend);
}

static void hashes(const char *backend) {
    static uint8_t msg[300], d[32];
    uint8_t st[112], st1[112];
    rng_fill(msg, sizeof msg);
    mark m;
    m = now(), tg_sha256(d, msg, sizeof msg), after(m, 0, 1, "sha256", backend);
    m = now(), tg_sha1(d, msg, 77), after(m, 0, 1, "sha1", backend);
    m = now(), tg_sha256_init(st), after(m, 0, 1, "sha256_init", backend);
    m = now(), tg_sha1_init(st1), after(m, 0, 1, "sha1_init", backend);
    m = now(), tg_sha256_update(st, msg, 100), after(m, 0, 1, "sha256_update", backend);
    m = now(), tg_sha1_update(st1, msg, 130), after(m, 0, 1, "sha1_update", backend);
    /* a live state of the other kind: refused, and the copy of it wiped */
    m = now(), tg_sha256_update(st1, msg, 5), after(m, 0, 1, "sha256_update of a SHA-1 state", backend);
    m = now(), tg_sha1_final(st, d), after(m, 0, 1, "sha1_final of a SHA-256 state", backend);
    m = now(), tg_sha256_final(st, d), after(m, 0, 1, "sha256_final", backend);
    m = now(), tg_sha1_final(st1, d), after(m, 0, 1, "sha1_final", backend);
}

void test_wipes(const char *backend) {
#if defined(TG_TEST_HOOKS)
    const unsigned before = passed + failed;
    aes(backend);
    message_layer(backend);
    hashes(backend);
    printf("ran  wipes    %-8s %u checks, %lu secret regions announced so far\n", backend, passed + failed - before, announced);
#else
    (void)now, (void)after, (void)aes, (void)message_layer, (void)hashes, (void)last_size;
    printf("SKIP wipes    %-8s (built without TG_TEST_HOOKS)\n", backend);
#endif
}

void test_wipes_summary(void) {
#if defined(TG_TEST_HOOKS)
    CHECK(announced > 0 && dirty == 0 && unmatched == 0 && overflow == 0,
          "whole run: %lu secret regions announced, %lu not wiped (first: %s), %lu unmatched, %lu overflowed", announced, dirty,
          first_dirty ? first_dirty : "-", unmatched, overflow);
    printf("wipes: %lu secret regions announced over the whole run, %lu not wiped\n", announced, dirty);
#endif
}
