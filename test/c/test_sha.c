/*
 * test_sha.c - SHA-256 / SHA-1 tests, called from test_main.c's main.
 *
 *   1. FIPS 180-4 example messages ("abc", the 448- and 896-bit messages,
 *      one million 'a'); digests from NIST's "Examples with Intermediate
 *      Values" for SHA-1 and SHA-256 (csrc.nist.gov, Cryptographic Standards
 *      and Guidelines, Examples) on every AES backend, i.e. every engine the
 *      dispatch can choose.
 *   2. NIST CAVP SHAVS byte-oriented vectors (test/vectors/sha_cavp.txt) and
 *      the hashlib-generated file (test/vectors/sha_generated.txt).
 *   3. Every engine compiled in and available, block by block against
 *      "portable"; the public API with random splits and forked (copied,
 *      unaligned) states against one-shots computed under "soft".
 *   4. Argument checks.
 *   5. One stream of 2^29 + 77 bytes per hash (the bit length needs 33
 *      bits), on the portable engine, against "[SHA-256 long]" / "[SHA-1
 *      long]" in sha_generated.txt (hashlib): the message is a 4093-byte
 *      pattern repeated, fed through init/update/final from one small
 *      buffer, so nothing of that size is allocated.
 */
#include "sha.h"
#include "tgcrypto.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>



TEST_RNG(0x5a5a1234abcdULL)

static size_t unhex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    while (s[0] && s[1] && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

/* digest of data with the public API: hash 256 or 1. */
static int hash(int which, uint8_t *digest, const uint8_t *data, uint32_t len) {
    return which == 256 ? tg_sha256(digest, data, len) : tg_sha1(digest, data, len);
}
static int h_init(int which, uint8_t *st) { return which == 256 ? tg_sha256_init(st) : tg_sha1_init(st); }
static int h_update(int which, uint8_t *st, const uint8_t *d, uint32_t n) {
    return which == 256 ? tg_sha256_update(st, d, n) : tg_sha1_update(st, d, n);
}
static int h_final(int which, uint8_t *st, uint8_t *digest) {
    return which == 256 ? tg_sha256_final(st, digest) : tg_sha1_final(st, digest);
}
static size_t dsize(int which) { return which == 256 ? 32 : 20; }

/* ---- 1. FIPS 180-4 examples ---- */

static void fips_examples(const char *engine) {
    static const char *const msgs[3] = {
        "abc",
        "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
    };
    static const char *const sha256_md[4] = {
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
    };
    static const char *const sha1_md[4] = {
        "a9993e364706816aba3e25717850c26c9cd0d89d",
        "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        "a49b2446a02c645bf419f995b67091253a04a259",
        "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
    };
    uint8_t want[32], got[32], st[TG_SHA256_STATE_SIZE];
    for (int which = 1; which <= 256; which += 255) {
        for (int i = 0; i < 3; i++) {
            unhex(which == 256 ? sha256_md[i] : sha1_md[i], want, 32);
            CHECK(hash(which, got, (const uint8_t *)msgs[i], (uint32_t)strlen(msgs[i])) == TG_OK &&
                      !memcmp(got, want, dsize(which)), "FIPS 180-4 sha%d example %d [%s]", which, i, engine);
        }
        /* one million 'a': 1000 updates of 1000 bytes */
        static uint8_t a[1000];
        memset(a, 'a', sizeof a);
        unhex(which == 256 ? sha256_md[3] : sha1_md[3], want, 32);
        int rc = h_init(which, st);
        for (int i = 0; i < 1000; i++) rc |= h_update(which, st, a, sizeof a);
        rc |= h_final(which, st, got);
        CHECK(rc == TG_OK && !memcmp(got, want, dsize(which)), "FIPS 180-4 sha%d million a [%s]", which, engine);
    }
}

/* ---- 2. vector files: "[SHA-256]" / "[SHA-1]" sections, "Len = bits", "Msg = hex", "MD = hex" ---- */

static unsigned vector_file(const char *dir, const char *file, const char *engine) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    if (f == NULL) return 0;
    static char line[140000];
    static uint8_t msg[70000];
    uint8_t md[32];
    int which = 0, line_no = 0;
    long bits = -1;
    size_t msg_len = 0;
    unsigned cases = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        if (!strncmp(line, "[SHA-256]", 9)) which = 256;
        else if (!strncmp(line, "[SHA-1]", 7)) which = 1;
        else if (!strncmp(line, "Len = ", 6)) bits = strtol(line + 6, NULL, 10);
        else if (!strncmp(line, "Msg = ", 6)) msg_len = unhex(line + 6, msg, sizeof msg);
        else if (!strncmp(line, "MD = ", 5)) {
            size_t md_len = unhex(line + 5, md, sizeof md);
            CHECK(which != 0 && bits >= 0 && bits % 8 == 0 && md_len == dsize(which), "%s:%d malformed", file, line_no);
            if (which == 0 || bits < 0) continue;
            const uint32_t n = (uint32_t)(bits / 8); /* "Len = 0" comes with "Msg = 00" */
            CHECK(n == 0 || n == msg_len, "%s:%d length", file, line_no);
            uint8_t got[32];
            CHECK(hash(which, got, n ? msg : NULL, n) == TG_OK && !memcmp(got, md, md_len),
                  "%s:%d sha%d one-shot [%s]", file, line_no, which, engine);
            /* the same through init/update/final, split at a random point */
            uint8_t st[112];
            const uint32_t cut = n ? rng_below(n + 1) : 0;
            int rc = h_init(which, st) | h_update(which, st, msg, cut) | h_update(which, st, msg + cut, n - cut) |
                     h_final(which, st, got);
            CHECK(rc == TG_OK && !memcmp(got, md, md_len), "%s:%d sha%d split [%s]", file, line_no, which, engine);
            cases++;
            bits = -1;
        }
    }
    fclose(f);
    CHECK(cases > 0, "%s: no cases", file);
    return cases;
}

/* ---- 3. engines against portable ---- */

/* Every available engine's block functions against portable's, from random
 * chaining values over random blocks (unaligned). */
static void engine_blocks(const tg_hash_impl *e) {
    static uint8_t data[64 * 40 + 1];
    for (int i = 0; i < 200; i++) {
        uint32_t h1[8], h2[8];
        for (int j = 0; j < 8; j++) h1[j] = h2[j] = (uint32_t)rng();
        const size_t nb = rng_below(40);
        const size_t off = rng_below(2);
        rng_fill(data, sizeof data);
        tg_hash_portable.sha256_blocks(h1, data + off, nb);
        e->sha256_blocks(h2, data + off, nb);
        CHECK(!memcmp(h1, h2, sizeof h1), "%s sha256_blocks differs (%zu blocks)", e->name, nb);
        for (int j = 0; j < 5; j++) h1[j] = h2[j] = (uint32_t)rng();
        h1[5] = h2[5] = 0x11111111; /* SHA-1 must not touch h[5..8) */
        tg_hash_portable.sha1_blocks(h1, data + off, nb);
        e->sha1_blocks(h2, data + off, nb);
        CHECK(!memcmp(h1, h2, 6 * sizeof h1[0]) && h2[5] == 0x11111111, "%s sha1_blocks differs (%zu blocks)", e->name, nb);
    }
}

#define DIFF_CASES 300
#define DIFF_MAX   5000
static uint8_t ref256[DIFF_CASES][32], ref1[DIFF_CASES][20];

static void diff_message(int i, uint8_t *msg, uint32_t *len) {
    uint64_t saved = rng_state;
    rng_state = 0xd1ffULL * (uint64_t)(i + 1);
    *len = i < 130 ? (uint32_t)i : rng_below(DIFF_MAX + 1); /* every length around the block edges, then random */
    rng_fill(msg, *len);
    rng_state = saved;
}

/* Under "soft" (portable engine): the reference digests, one-shot. */
static void diff_reference(void) {
    static uint8_t msg[DIFF_MAX];
    for (int i = 0; i < DIFF_CASES; i++) {
        uint32_t n;
        diff_message(i, msg, &n);
        CHECK(tg_sha256(ref256[i], msg, n) == TG_OK && tg_sha1(ref1[i], msg, n) == TG_OK, "reference %d", i);
    }
}

/* Under the current backend: random splits; at a random point the state is
 * copied to an odd address and both copies finish the message alike. */
static void diff_run(const char *engine) {
    static uint8_t msg[DIFF_MAX];
    for (int i = 0; i < DIFF_CASES; i++) {
        uint32_t n;
        diff_message(i, msg, &n);
        for (int which = 1; which <= 256; which += 255) {
            const uint8_t *ref = which == 256 ? ref256[i] : ref1[i];
            uint8_t got[32], got2[32], one[32];
            CHECK(hash(which, one, msg, n) == TG_OK && !memcmp(one, ref, dsize(which)), "sha%d one-shot len %u [%s]", which, n, engine);
            uint8_t st[112], fork_mem[113];
            uint8_t *fork = fork_mem + 1;
            int rc = h_init(which, st), forked = 0;
            uint32_t at = 0;
            const uint32_t fork_at = rng_below(n + 1);
            while (at < n || !forked) {
                if (!forked && at >= fork_at) {
                    memcpy(fork, st, 112);
                    rc |= h_update(which, fork, msg + at, n - at) | h_final(which, fork, got2);
                    forked = 1;
                }
                if (at >= n) break;
                uint32_t step = rng_below(4) == 0 ? rng_below(3) : rng_below(200); /* 0-length updates too */
                if (step > n - at) step = n - at;
                rc |= h_update(which, st, msg + at, step);
                at += step;
            }
            rc |= h_final(which, st, got);
            CHECK(rc == TG_OK && !memcmp(got, ref, dsize(which)), "sha%d split len %u [%s]", which, n, engine);
            CHECK(!memcmp(got2, ref, dsize(which)), "sha%d forked len %u at %u [%s]", which, n, fork_at, engine);
            static const uint8_t zero[112];
            CHECK(!memcmp(st, zero, 112) && !memcmp(fork, zero, 112), "sha%d final wipes the state", which);
        }
    }
}

/* Internal streaming API (sha.h), as the message layer uses it. */
static void internal_api(const char *engine) {
    static uint8_t msg[DIFF_MAX];
    for (int i = 0; i < DIFF_CASES; i += 7) {
        uint32_t n;
        diff_message(i, msg, &n);
        const uint32_t cut = rng_below(n + 1);
        tg_sha256_ctx c;
        tg_sha1_ctx c1;
        uint8_t d[32], d1[20];
        tg_sha256_begin(&c);
        tg_sha256_feed(&c, msg, cut);
        tg_sha256_feed(&c, msg + cut, n - cut);
        tg_sha256_end(&c, d);
        tg_sha1_begin(&c1);
        tg_sha1_feed(&c1, msg, cut);
        tg_sha1_feed(&c1, NULL, 0);
        tg_sha1_feed(&c1, msg + cut, n - cut);
        tg_sha1_end(&c1, d1);
        CHECK(!memcmp(d, ref256[i], 32) && !memcmp(d1, ref1[i], 20), "internal API len %u [%s]", n, engine);
    }
}

/* ---- 4. argument checks ---- */

static void argument_checks(void) {
    uint8_t st[112], st1[112], d[32];
    const uint8_t *junk = (const uint8_t *)(uintptr_t)16; /* a zero length must never read it */
    CHECK(tg_sha256(NULL, junk, 0) == TG_ERR_NULL && tg_sha1(NULL, junk, 0) == TG_ERR_NULL, "NULL digest");
    CHECK(tg_sha256(d, NULL, 1) == TG_ERR_NULL && tg_sha1(d, NULL, 1) == TG_ERR_NULL, "NULL data");
    CHECK(tg_sha256(d, junk, 0) == TG_OK && tg_sha1(d, NULL, 0) == TG_OK, "zero length, junk/NULL data");
    CHECK(tg_sha256_init(NULL) == TG_ERR_NULL && tg_sha1_init(NULL) == TG_ERR_NULL, "NULL state");
    CHECK(tg_sha256_init(st) == TG_OK && tg_sha1_init(st1) == TG_OK, "init");
    CHECK(tg_sha256_update(NULL, junk, 0) == TG_ERR_NULL && tg_sha1_update(st1, NULL, 5) == TG_ERR_NULL, "NULL update");
    CHECK(tg_sha256_update(st, junk, 0) == TG_OK && tg_sha1_update(st1, NULL, 0) == TG_OK, "zero-length update");
    CHECK(tg_sha256_update(st1, d, 1) == TG_ERR_CONTEXT && tg_sha1_update(st, d, 1) == TG_ERR_CONTEXT, "wrong kind of state");
    CHECK(tg_sha256_final(st, NULL) == TG_ERR_NULL && tg_sha256_final(NULL, d) == TG_ERR_NULL, "NULL final");
    uint8_t e[32];
    CHECK(tg_sha256_final(st, d) == TG_OK && tg_sha256(e, NULL, 0) == TG_OK && !memcmp(d, e, 32), "empty message");
    CHECK(tg_sha256_update(st, d, 1) == TG_ERR_CONTEXT && tg_sha256_final(st, d) == TG_ERR_CONTEXT, "finished state refused");
    CHECK(tg_sha1_final(st1, d) == TG_OK && tg_sha1_final(st1, d) == TG_ERR_CONTEXT, "sha1 final twice");
}

/* ---- 5. a stream longer than 2^32 bits ---- */

/* The available backend whose hash engine is fastest here: the best engine
 * (under the first available backend) or portable (under "soft"), timed on
 * 4 MiB each. */
static const char *fastest_hash_backend(void) {
    const char *best = "soft";
    for (uint32_t b = 0; b < tg_backend_count(); b++)
        if (tg_backend_available(b)) {
            best = tg_backend_name(b);
            break;
        }
    static uint8_t block[1 << 16];
    double t[2];
    const char *const names[2] = {best, "soft"};
    for (int i = 0; i < 2; i++) {
        uint8_t d[32];
        tg_set_backend(names[i]);
        const clock_t start = clock();
        for (int k = 0; k < 64; k++) tg_sha256(d, block, sizeof block);
        t[i] = (double)(clock() - start);
    }
    return t[0] <= t[1] ? names[0] : names[1];
}

static void long_streams(const char *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/sha_generated.txt", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "open %s", path);
    if (f == NULL) return;
    static char line[140000];
    static uint8_t pattern[8192];
    enum { CHUNK = (1 << 20) - 3 }; /* odd, so updates leave partial blocks */
    uint8_t *buf = malloc(CHUNK + sizeof pattern);
    CHECK(buf != NULL, "malloc");
    int which = 0, ran = 0;
    size_t plen = 0;
    unsigned long long bytes = 0;
    while (buf != NULL && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "[SHA-256 long]", 14)) which = 256, plen = 0, bytes = 0;
        else if (!strncmp(line, "[SHA-1 long]", 12)) which = 1, plen = 0, bytes = 0;
        else if (line[0] == '[') which = 0;
        else if (which && !strncmp(line, "Pattern = ", 10)) plen = unhex(line + 10, pattern, sizeof pattern);
        else if (which && !strncmp(line, "Bytes = ", 8)) bytes = strtoull(line + 8, NULL, 10);
        else if (which && !strncmp(line, "LongMD = ", 9)) {
            uint8_t want[32], got[32], st[112];
            const size_t md_len = unhex(line + 9, want, sizeof want);
            CHECK(plen > 0 && bytes >= (1ull << 29) && md_len == dsize(which), "sha_generated.txt long case malformed");
            if (plen == 0 || md_len != dsize(which)) continue;
            for (size_t i = 0; i < CHUNK + plen; i++) buf[i] = pattern[i % plen];
            int rc = h_init(which, st);
            for (unsigned long long at = 0; at < bytes;) {
                const uint32_t n = bytes - at < CHUNK ? (uint32_t)(bytes - at) : CHUNK;
                rc |= h_update(which, st, buf + at % plen, n);
                at += n;
            }
            rc |= h_final(which, st, got);
            CHECK(rc == TG_OK && !memcmp(got, want, md_len), "sha%d of %llu bytes (%llu bits) [%s]", which, bytes, 8 * bytes,
                  tg_hash_engine());
            ran++;
        }
    }
    fclose(f);
    free(buf);
    CHECK(ran == 2, "sha_generated.txt: %d long streams", ran);
    printf("ran  hash %-9s two streams of 2^29 + 77 bytes (bit length over 2^32)\n", tg_hash_engine());
}

/* Runs everything; adds the counts to the caller's. Prints one "ran hash"
 * line per engine. */
void sha_tests(const char *vectors_dir) {
    const char *saved = tg_backend();
    printf("default hash engine: %s\n", tg_hash_engine()); /* scripts/test.sh checks it under TGCRYPTO_BACKEND=soft */

    /* engines block by block */
    for (size_t i = 0; i < tg_hash_impl_count(); i++) {
        const tg_hash_impl *e = tg_hash_impl_at(i);
        if (!tg_hash_impl_available(e)) {
            printf("SKIP hash %-9s not available on this CPU\n", e->name);
            continue;
        }
        unsigned before = passed + failed;
        engine_blocks(e);
        printf("ran  hash %-9s blocks against portable: %u checks\n", e->name, passed + failed - before);
    }

    CHECK(tg_hash_impl_at(tg_hash_impl_count()) == NULL && tg_hash_impl_at((size_t)-1) == NULL, "tg_hash_impl_at past the end");
    CHECK(tg_set_backend("soft") == TG_OK && !strcmp(tg_hash_engine(), "portable"), "soft backend hashes with portable");
    diff_reference();

    /* the public API once per AES backend: each selects an engine */
    for (uint32_t b = 0; b < tg_backend_count(); b++) {
        if (!tg_backend_available(b)) continue;
        const char *name = tg_backend_name(b);
        CHECK(tg_set_backend(name) == TG_OK, "select %s", name);
        const char *engine = tg_hash_engine();
        const tg_hash_impl *best = NULL;
        for (size_t i = 0; i < tg_hash_impl_count() && best == NULL; i++)
            if (tg_hash_impl_available(tg_hash_impl_at(i))) best = tg_hash_impl_at(i);
        CHECK(!strcmp(engine, strcmp(name, "soft") ? best->name : "portable"), "backend %s: engine %s", name, engine);
        unsigned before = passed + failed, cases = 0;
        fips_examples(engine);
        cases += vector_file(vectors_dir, "sha_cavp.txt", engine);
        cases += vector_file(vectors_dir, "sha_generated.txt", engine);
        diff_run(engine);
        internal_api(engine);
        argument_checks();
        printf("ran  hash %-9s (backend %s) %u vector cases, %u checks\n", engine, name, cases, passed + failed - before);
    }
    tg_set_backend(saved);
    /* The length encoding is sha.c's, the same for every engine: run on the
     * engine that hashes fastest here (SHA-NI natively; the portable one
     * under QEMU, which emulates the SHA instructions slowly but runs plain C
     * at near native speed). TG_TEST_SKIP_LONG_SHA: the mutation runner,
     * for mutants outside sha.c. */
    if (getenv("TG_TEST_SKIP_LONG_SHA") == NULL) {
        tg_set_backend(fastest_hash_backend());
        long_streams(vectors_dir);
        tg_set_backend(saved);
    } else {
        printf("SKIP hash long streams (TG_TEST_SKIP_LONG_SHA)\n");
    }
}
