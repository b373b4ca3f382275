/*
 * test_main.c - C-level tests of libtgcrypto, run by `zig build test`.
 *
 *   1. Known answers from the test/vectors files (FIPS-197, SP 800-38A and the
 *      generated IGE/CTR/CBC cases) on every backend this CPU has.
 *   2. Random differential tests: every backend against `soft`, one-shots
 *      and contexts, in place, random chunkings.
 *   3. CTR calls where the counter wraps, guard pages around every buffer,
 *      and one seeded workload's digest (the same on every platform).
 *   4. The companions (check.h): argument checks and return codes
 *      (test_args.c), the backend choice and init failure (test_dispatch.c),
 *      the message layer (test_mtproto.c), the wipes (test_wipes.c),
 *      SHA-256 / SHA-1 on every hash engine (test_sha.c), factorization
 *      (test_factorize.c).
 *
 * Usage: tgcrypto-test <vectors-dir>. Prints "N passed, N failed" last and
 * exits non-zero on any failure.
 */
#define _DEFAULT_SOURCE 1 /* MAP_ANONYMOUS under -std=c11 */
#include "tgcrypto.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) || defined(__APPLE__)
#  include <sys/mman.h>
#  include <signal.h>
#  include <sys/wait.h>
#  include <unistd.h>
#  define HAVE_GUARD_PAGES 1
#endif


unsigned passed, failed; /* check.h */
int fail_fast;            /* check.h */
void fail_fast_exit(void) {
    printf("%u passed, %u failed (TG_TEST_FAIL_FAST: stopped at the first failure)\n", passed, failed);
    fflush(stdout);
    exit(1);
}


/* ---- deterministic random data (splitmix64) ---- */

TEST_RNG(0x5eed5eed5eedULL)

/* ---- vector files ---- */

#define MAX_FIELD 4096

typedef struct {
    char    mode[8];
    uint8_t key[32], iv[32], iv_after[32];
    uint8_t plaintext[MAX_FIELD], ciphertext[MAX_FIELD];
    size_t  key_len, iv_len, iv_after_len, pt_len, ct_len;
    int     state, state_after, has_iv_after, has_state_after;
    int     line;
} vector;

static size_t parse_hex(const char *s, uint8_t *out, size_t cap) {
    size_t n = 0;
    while (s[0] && s[1] && s[0] != '\n' && s[0] != '\r' && n < cap) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) break;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

/* Reads the next case; returns 0 at end of file. */
static int next_vector(FILE *f, vector *v, char mode[8], int *line_no) {
    char line[2 * MAX_FIELD + 64];
    int have = 0;
    memset(v, 0, sizeof *v);
    while (fgets(line, sizeof line, f)) {
        (*line_no)++;
        if (line[0] == '#') continue;
        if (line[0] == '\n' || line[0] == '\r' || line[0] == '\0') {
            if (have) return 1;
            continue;
        }
        if (line[0] == '[') {
            sscanf(line, "[%7[a-z0-9]]", mode);
            continue;
        }
        char name[32];
        int value_at = 0;
        if (sscanf(line, "%31s = %n", name, &value_at) < 1 || value_at == 0) continue;
        const char *value = line + value_at;
        if (!have) {
            have = 1;
            v->line = *line_no;
            memcpy(v->mode, mode, 8);
        }
        if (!strcmp(name, "key")) v->key_len = parse_hex(value, v->key, 32);
        else if (!strcmp(name, "iv")) v->iv_len = parse_hex(value, v->iv, 32);
        else if (!strcmp(name, "plaintext")) v->pt_len = parse_hex(value, v->plaintext, MAX_FIELD);
        else if (!strcmp(name, "ciphertext")) v->ct_len = parse_hex(value, v->ciphertext, MAX_FIELD);
        else if (!strcmp(name, "iv_after")) v->iv_after_len = parse_hex(value, v->iv_after, 32), v->has_iv_after = 1;
        else if (!strcmp(name, "state")) v->state = (int)strtol(value, NULL, 16);
        else if (!strcmp(name, "state_after")) v->state_after = (int)strtol(value, NULL, 16), v->has_state_after = 1;
    }
    return have;
}

/* Runs one case in both directions on the current backend. */
static void check_vector(const vector *v, const char *file, const char *backend) {
    static uint8_t out[MAX_FIELD];
    const uint32_t n = (uint32_t)v->pt_len;
    uint8_t iv[32], st[1];
    int rc;
    CHECK(v->key_len == 32 && v->pt_len == v->ct_len && n > 0, "%s:%d malformed case", file, v->line);

    if (!strcmp(v->mode, "ecb")) { /* one block = CBC with a zero IV */
        memset(iv, 0, 16);
        rc = tg_cbc256_encrypt(out, v->plaintext, n, v->key, iv);
        CHECK(rc == 0 && !memcmp(out, v->ciphertext, n), "%s:%d ecb encrypt [%s]", file, v->line, backend);
        memset(iv, 0, 16);
        rc = tg_cbc256_decrypt(out, v->ciphertext, n, v->key, iv);
        CHECK(rc == 0 && !memcmp(out, v->plaintext, n), "%s:%d ecb decrypt [%s]", file, v->line, backend);
    } else if (!strcmp(v->mode, "cbc")) {
        memcpy(iv, v->iv, 16);
        rc = tg_cbc256_encrypt(out, v->plaintext, n, v->key, iv);
        CHECK(rc == 0 && !memcmp(out, v->ciphertext, n), "%s:%d cbc encrypt [%s]", file, v->line, backend);
        CHECK(!memcmp(iv, v->ciphertext + n - 16, 16), "%s:%d cbc iv after encrypt [%s]", file, v->line, backend);
        if (v->has_iv_after) CHECK(!memcmp(iv, v->iv_after, 16), "%s:%d cbc iv_after [%s]", file, v->line, backend);
        memcpy(iv, v->iv, 16);
        rc = tg_cbc256_decrypt(out, v->ciphertext, n, v->key, iv);
        CHECK(rc == 0 && !memcmp(out, v->plaintext, n), "%s:%d cbc decrypt [%s]", file, v->line, backend);
        CHECK(!memcmp(iv, v->ciphertext + n - 16, 16), "%s:%d cbc iv after decrypt [%s]", file, v->line, backend);
    } else if (!strcmp(v->mode, "ctr")) {
        for (int dir = 0; dir < 2; dir++) { /* encrypt, then decrypt: the same operation */
            memcpy(iv, v->iv, 16);
            st[0] = (uint8_t)v->state;
            rc = tg_ctr256(out, dir ? v->ciphertext : v->plaintext, n, v->key, iv, st);
            CHECK(rc == 0 && !memcmp(out, dir ? v->plaintext : v->ciphertext, n), "%s:%d ctr %d [%s]", file, v->line, dir, backend);
            if (v->has_iv_after) CHECK(!memcmp(iv, v->iv_after, 16), "%s:%d ctr iv_after [%s]", file, v->line, backend);
            if (v->has_state_after) CHECK(st[0] == v->state_after, "%s:%d ctr state_after [%s]", file, v->line, backend);
        }
        /* The same stream through a context, one byte at a time. */
        tg_ctr_ctx *c = tg_ctr_new(v->key, v->iv, (uint32_t)v->state);
        CHECK(c != NULL, "ctr_new");
        if (c) {
            for (uint32_t i = 0; i < n; i++) tg_ctr_update(c, out + i, v->plaintext + i, 1);
            CHECK(!memcmp(out, v->ciphertext, n), "%s:%d ctr context bytewise [%s]", file, v->line, backend);
            tg_ctr_position(c, iv, st);
            if (v->has_iv_after) CHECK(!memcmp(iv, v->iv_after, 16), "%s:%d ctr context position [%s]", file, v->line, backend);
            tg_ctr_free(c);
        }
    } else if (!strcmp(v->mode, "ige")) {
        rc = tg_ige256_encrypt(out, v->plaintext, n, v->key, v->iv);
        CHECK(rc == 0 && !memcmp(out, v->ciphertext, n), "%s:%d ige encrypt [%s]", file, v->line, backend);
        rc = tg_ige256_decrypt(out, v->ciphertext, n, v->key, v->iv);
        CHECK(rc == 0 && !memcmp(out, v->plaintext, n), "%s:%d ige decrypt [%s]", file, v->line, backend);
    } else {
        CHECK(0, "%s:%d unknown mode '%s'", file, v->line, v->mode);
    }
}

static unsigned run_vector_file(const char *dir, const char *name, const char *backend) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (!f) return 0;
    static vector v;
    char mode[8] = "";
    int line_no = 0;
    unsigned cases = 0;
    while (next_vector(f, &v, mode, &line_no)) {
        check_vector(&v, name, backend);
        cases++;
    }
    fclose(f);
    CHECK(cases > 0, "%s has no cases", name);
    return cases;
}

/* ---- differential tests against soft ---- */

static void tg_store64_be_test(uint8_t *p, uint64_t v) {
    for (int i = 7; i >= 0; i--) p[i] = (uint8_t)v, v >>= 8;
}

enum { OP_IGE_ENC, OP_IGE_DEC, OP_CBC_ENC, OP_CBC_DEC, OP_CTR, OP_COUNT };
static const char *const op_names[OP_COUNT] = {"ige-enc", "ige-dec", "cbc-enc", "cbc-dec", "ctr"};

typedef struct {
    uint8_t key[32], iv[32], state;
} params;

/* One-shot call; iv/state updated as the API does. */
static int one_shot(int op, uint8_t *out, const uint8_t *in, uint32_t n, const params *p, uint8_t iv[32], uint8_t *state) {
    switch (op) {
    case OP_IGE_ENC: return tg_ige256_encrypt(out, in, n, p->key, iv);
    case OP_IGE_DEC: return tg_ige256_decrypt(out, in, n, p->key, iv);
    case OP_CBC_ENC: return tg_cbc256_encrypt(out, in, n, p->key, iv);
    case OP_CBC_DEC: return tg_cbc256_decrypt(out, in, n, p->key, iv);
    default:         return tg_ctr256(out, in, n, p->key, iv, state);
    }
}

/* The same operation through a context over random chunks. */
static int chunked(int op, uint8_t *out, const uint8_t *in, uint32_t n, const params *p) {
    const uint32_t unit = op == OP_CTR ? 1 : 16;
    void *ctx;
    if (op == OP_CTR) ctx = tg_ctr_new(p->key, p->iv, p->state);
    else if (op <= OP_IGE_DEC) ctx = tg_ige_new(p->key, p->iv, op == OP_IGE_DEC);
    else ctx = tg_cbc_new(p->key, p->iv, op == OP_CBC_DEC);
    if (ctx == NULL) return -100;
    uint32_t done = 0;
    int rc = 0;
    while (done < n && rc == 0) {
        uint32_t step = (rng_below(5) == 0 ? rng_below(300) : rng_below(40)) * unit;
        if (step > n - done) step = n - done;
        if (op == OP_CTR) rc = tg_ctr_update(ctx, out + done, in + done, step);
        else if (op <= OP_IGE_DEC) rc = tg_ige_update(ctx, out + done, in + done, step);
        else rc = tg_cbc_update(ctx, out + done, in + done, step);
        done += step;
    }
    if (op == OP_CTR) tg_ctr_free(ctx);
    else if (op <= OP_IGE_DEC) tg_ige_free(ctx);
    else tg_cbc_free(ctx);
    return rc;
}

static uint32_t random_length(int op) {
    static const uint32_t edges[] = {1, 15, 16, 17, 31, 32, 33, 112, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 4096, 65536 + 48};
    uint32_t n = rng_below(4) == 0 ? edges[rng_below(sizeof edges / sizeof edges[0])] : 1 + rng_below(2048);
    if (op != OP_CTR) n = (n + 15) / 16 * 16;
    return n;
}

static void differential(const char *backend, int cases) {
    const uint32_t cap = 65536 + 64;
    uint8_t *in_base = malloc(cap + 16), *ref = malloc(cap), *out_base = malloc(cap + 16), *inplace_base = malloc(cap + 16);
    for (int t = 0; t < cases; t++) {
        /* No alignment is promised: move each buffer off 16-byte alignment. */
        uint8_t *in = in_base + rng_below(16), *out = out_base + rng_below(16), *inplace = inplace_base + rng_below(16);
        const int op = t % OP_COUNT;
        const uint32_t n = random_length(op);
        params p;
        rng_fill(p.key, 32);
        rng_fill(p.iv, 32);
        p.state = (uint8_t)rng_below(16);
        if (op == OP_CTR && rng_below(4) == 0) memset(p.iv + 8, 0xff, 8 - rng_below(2)); /* near a carry */
        if (op == OP_CTR && rng_below(8) == 0) memset(p.iv, 0xff, 16);                   /* 128-bit wrap */
        rng_fill(in, n);

        uint8_t iv_ref[32], iv_out[32], iv_in[32], st_ref = p.state, st_out = p.state, st_in = p.state;
        memcpy(iv_ref, p.iv, 32), memcpy(iv_out, p.iv, 32), memcpy(iv_in, p.iv, 32);
        tg_set_backend("soft");
        int rc_ref = one_shot(op, ref, in, n, &p, iv_ref, &st_ref);
        tg_set_backend(backend);
        int rc = one_shot(op, out, in, n, &p, iv_out, &st_out);
        CHECK(rc == 0 && rc_ref == 0 && !memcmp(out, ref, n) && !memcmp(iv_out, iv_ref, 32) && st_out == st_ref,
              "%s %s n=%u state=%u differs from soft", backend, op_names[op], n, p.state);

        memcpy(inplace, in, n);
        rc = one_shot(op, inplace, inplace, n, &p, iv_in, &st_in);
        CHECK(rc == 0 && !memcmp(inplace, ref, n) && !memcmp(iv_in, iv_ref, 32) && st_in == st_ref,
              "%s %s n=%u in place differs", backend, op_names[op], n);

        memset(out, 0, n);
        rc = chunked(op, out, in, n, &p);
        CHECK(rc == 0 && !memcmp(out, ref, n), "%s %s n=%u chunked context differs from one-shot", backend, op_names[op], n);
    }
    free(in_base), free(ref), free(out_base), free(inplace_base);
}

/* CTR calls that end exactly where the low 64 bits of the counter wrap, one
 * block before and one after: the wide loops add to the low half only and
 * must hand over (vaes512 to the ymm loop, vaes256's batches to the scalar
 * loop) when it wraps, also when it wraps at the last block of a batch
 * (vaes256: 24 blocks, vaes512: 32, then 16, 4). Against soft, counter and
 * state after the call included. */
static void counter_boundaries(const char *backend) {
    static const uint32_t lens[] = {1, 2, 3, 4, 5, 15, 16, 17, 23, 24, 25, 31, 32, 33, 36, 47, 48, 49, 63, 64, 65, 72, 96, 100, 129, 256};
    static uint8_t in[16 * 260 + 16], out[sizeof in], ref[sizeof in];
    for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
        const uint32_t nb = lens[l];
        /* where the wrap falls: after the last block, one earlier or later, at batch ends inside the call */
        const uint64_t wraps[] = {nb, nb - 1, nb + 1, 16, 24, 32, 48, 64, 1};
        for (size_t w = 0; w < sizeof wraps / sizeof wraps[0]; w++) {
            if (wraps[w] == 0 || wraps[w] > nb + 1) continue;
            for (int variant = 0; variant < 3; variant++) {
                params p;
                rng_fill(p.key, 32);
                rng_fill(p.iv, 16);
                if (variant == 1) memset(p.iv, 0xff, 8); /* the high half wraps too (128-bit wrap) */
                tg_store64_be_test(p.iv + 8, (uint64_t)0 - wraps[w]);
                const uint8_t state = variant == 2 ? (uint8_t)(1 + rng_below(15)) : 0;
                const uint32_t n = nb * 16 + (variant == 2 ? 16 - state : 0) + (variant == 1 ? 7 : 0);
                rng_fill(in, n);
                uint8_t iv_ref[32], iv_out[32], st_ref = state, st_out = state;
                memcpy(iv_ref, p.iv, 16), memcpy(iv_out, p.iv, 16);
                tg_set_backend("soft");
                const int rc_ref = tg_ctr256(ref, in, n, p.key, iv_ref, &st_ref);
                tg_set_backend(backend);
                const int rc = tg_ctr256(out, in, n, p.key, iv_out, &st_out);
                CHECK(rc == TG_OK && rc_ref == TG_OK && !memcmp(out, ref, n) && !memcmp(iv_out, iv_ref, 16) && st_out == st_ref,
                      "%s ctr %u bytes, low counter half wraps after %llu blocks, variant %d: differs from soft", backend, n,
                      (unsigned long long)wraps[w], variant);
                /* the same through a context in one update */
                tg_ctr_ctx *c = tg_ctr_new(p.key, p.iv, state);
                uint8_t pos[16], st[1];
                CHECK(c != NULL && tg_ctr_update(c, out, in, n) == TG_OK && tg_ctr_position(c, pos, st) == TG_OK &&
                          !memcmp(out, ref, n) && !memcmp(pos, iv_ref, 16) && st[0] == st_ref,
                      "%s ctr context %u bytes, wrap after %llu blocks: differs from soft", backend, n, (unsigned long long)wraps[w]);
                tg_ctr_free(c);
            }
        }
    }
}

#ifdef HAVE_GUARD_PAGES
/* Buffers right after and right before an inaccessible page: a backend that
 * touches one byte outside the data (say, a wide tail) crashes the test. */
static uint8_t *guarded_page(void) { /* [no access][read-write][no access] */
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *mem = mmap(NULL, 3 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return NULL;
    mprotect(mem + page, page, PROT_READ | PROT_WRITE);
    return mem + page;
}

#ifndef TG_ASAN
static void exit_on_fault(int sig) {
    (void)sig;
    _exit(7);
}
#endif

/* The fixed-size arguments end at a guard page too: the key (32 bytes),
 * the IGE iv (32), the CBC/CTR iv (16), the CTR state (1), CTR data ending
 * in a partial block, context constructors and tg_ctr_position, the auth
 * key (256), auth_key_id's id (8), hash digests (32/20) and states (112),
 * MTProto packets, heads, bodies, paddings and plaintexts of the exact
 * length. Reading or writing one byte past any of them crashes. */
static uint8_t *at_end(uint8_t *page_start, size_t n) { return page_start + (size_t)sysconf(_SC_PAGESIZE) - n; }

static void guard_page_arguments(const char *backend) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *pa = guarded_page(), *pb = guarded_page(), *pc = guarded_page(), *pd = guarded_page(), *pe = guarded_page();
    CHECK(pa && pb && pc && pd && pe, "mmap");
    if (!(pa && pb && pc && pd && pe)) return;
    uint8_t *key = at_end(pa, 32);
    rng_fill(key, 32);
    static uint8_t buf[4096];
    /* IGE / CBC one-shots and contexts */
    for (int op = 0; op < OP_CTR; op++) {
        const size_t iv_len = op <= OP_IGE_DEC ? 32 : 16;
        uint8_t *iv = at_end(pb, iv_len), *in = at_end(pd, 64), *out = at_end(pe, 64);
        rng_fill(iv, iv_len);
        rng_fill(in, 64);
        params p;
        memcpy(p.key, key, 32);
        CHECK(one_shot(op, out, in, 64, &p, iv, NULL) == TG_OK, "%s %s: guarded key/iv/data", backend, op_names[op]);
        int rc;
        switch (op) {
        case OP_IGE_ENC: rc = tg_ige256_encrypt(out, in, 64, key, iv); break;
        case OP_IGE_DEC: rc = tg_ige256_decrypt(out, in, 64, key, iv); break;
        case OP_CBC_ENC: rc = tg_cbc256_encrypt(out, in, 64, key, iv); break;
        default:         rc = tg_cbc256_decrypt(out, in, 64, key, iv); break;
        }
        CHECK(rc == TG_OK, "%s %s: key at the end of a page", backend, op_names[op]);
        void *ctx = op <= OP_IGE_DEC ? (void *)tg_ige_new(key, iv, op == OP_IGE_DEC) : (void *)tg_cbc_new(key, iv, op == OP_CBC_DEC);
        CHECK(ctx != NULL, "%s %s: context from guarded key/iv", backend, op_names[op]);
        if (op <= OP_IGE_DEC) {
            CHECK(tg_ige_update(ctx, out, in, 64) == TG_OK, "%s ige_update", backend);
            tg_ige_free(ctx);
        } else {
            CHECK(tg_cbc_update(ctx, out, in, 64) == TG_OK, "%s cbc_update", backend);
            tg_cbc_free(ctx);
        }
    }
    /* CTR: partial blocks at the very end of both buffers, every state */
    uint8_t *iv = at_end(pb, 16), *st = at_end(pc, 1);
    for (uint32_t n = 1; n <= 70; n += 3) {
        uint8_t *in = at_end(pd, n), *out = at_end(pe, n);
        rng_fill(iv, 16);
        rng_fill(in, n);
        st[0] = (uint8_t)(n % 16);
        CHECK(tg_ctr256(out, in, n, key, iv, st) == TG_OK && tg_ctr256(in, in, n, key, iv, st) == TG_OK,
              "%s ctr %u bytes at the end of a page", backend, n);
        tg_ctr_ctx *c = tg_ctr_new(key, iv, st[0]);
        CHECK(c != NULL && tg_ctr_update(c, out, in, n) == TG_OK && tg_ctr_position(c, iv, st) == TG_OK,
              "%s ctr context %u bytes at the end of a page", backend, n);
        tg_ctr_free(c);
    }
    /* hashes */
    {
        uint8_t *d256 = at_end(pc, 32), *d1 = at_end(pd, 20), *state = at_end(pe, 112), *msg = at_end(pb, 100);
        rng_fill(msg, 100);
        CHECK(tg_sha256(d256, msg, 100) == TG_OK && tg_sha1(d1, msg, 100) == TG_OK, "%s hashes into guarded digests", backend);
        CHECK(tg_sha256_init(state) == TG_OK && tg_sha256_update(state, msg, 100) == TG_OK && tg_sha256_final(state, d256) == TG_OK,
              "%s sha256 with a guarded state", backend);
        CHECK(tg_sha1_init(state) == TG_OK && tg_sha1_update(state, msg, 100) == TG_OK && tg_sha1_final(state, d1) == TG_OK,
              "%s sha1 with a guarded state", backend);
    }
    /* the message layer: exact-length buffers at page ends */
    {
        uint8_t *ak = at_end(pa, 256), *id = at_end(pc, 8);
        rng_fill(ak, 256);
        tg_auth_key *k = tg_auth_key_new(ak);
        CHECK(k != NULL && tg_auth_key_id(k, id) == TG_OK, "%s auth key and id at page ends", backend);
        static const uint32_t data_lens[] = {0, 4, 100, 1000};
        for (size_t i = 0; k != NULL && i < sizeof data_lens / sizeof data_lens[0]; i++) {
            const uint32_t plain_len = 32 + data_lens[i], pad_len = 12 + (16 - (plain_len + 12) % 16) % 16;
            const uint32_t len = 24 + plain_len + pad_len, head_len = 16;
            uint8_t *head = at_end(pa, head_len), *body = at_end(pb, plain_len - head_len), *pad = at_end(pc, pad_len);
            uint8_t *packet = at_end(pd, len), *plain = at_end(pe, len - 24);
            rng_fill(buf, plain_len);
            buf[28] = (uint8_t)data_lens[i], buf[29] = (uint8_t)(data_lens[i] >> 8), buf[30] = buf[31] = 0;
            memcpy(head, buf, head_len);
            memcpy(body, buf + head_len, plain_len - head_len);
            rng_fill(pad, pad_len);
            CHECK(tg_mtproto_encrypt(k, 0, packet, head, head_len, body, plain_len - head_len, pad, pad_len) == TG_OK,
                  "%s mtproto encrypt, every buffer at a page end", backend);
            CHECK(tg_mtproto_decrypt(k, 0, plain, packet, len) == (int)plain_len && !memcmp(plain, buf, plain_len),
                  "%s mtproto decrypt, packet and plaintext at page ends", backend);
            CHECK(tg_mtproto_decrypt(k, 0, packet + 24, packet, len) == (int)plain_len, "%s mtproto decrypt in place at a page end",
                  backend);
        }
#ifndef TG_ASAN /* ASan reports the wild write itself; the child's report would only clutter the log */
        /* 2^31 - 1 is the largest packet length taken (only longer ones are
         * TG_ERR_SIZE): it is not 24 + whole blocks, so the whole output,
         * 2^31 - 25 bytes, is zeroed before TG_ERR_SECURITY. Decrypted in
         * place in one page before a guard page, that zeroing must fault
         * (in a child); TG_ERR_SIZE would mean the limit is one short. */
        if (k != NULL) {
            fflush(stdout);
            const pid_t pid = fork();
            if (pid == 0) {
                /* the fault ends the child with exit code 7 (a handler, not a
                 * crash: no core file, no emulator message under QEMU) */
                struct sigaction sa;
                memset(&sa, 0, sizeof sa);
                sa.sa_handler = exit_on_fault;
                sigaction(SIGSEGV, &sa, NULL);
                sigaction(SIGBUS, &sa, NULL);
                const int rc = tg_mtproto_decrypt(k, 0, pd + 24, pd, 0x7fffffffu);
                _exit(rc == TG_ERR_SIZE ? 3 : 4);
            }
            int status = 0;
            CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 7,
                  "%s decrypt of a 2^31 - 1 byte packet: child status %d (exit 7: faulted, 3: TG_ERR_SIZE)", backend,
                  WIFEXITED(status) ? WEXITSTATUS(status) : -status);
        }
#endif
        tg_auth_key_free(k);
    }
    uint8_t *pages[] = {pa, pb, pc, pd, pe};
    for (int i = 0; i < 5; i++) munmap(pages[i] - page, 3 * page);
}

static void guard_page_checks(const char *backend) {
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *in_page = guarded_page(), *out_page = guarded_page();
    CHECK(in_page != NULL && out_page != NULL, "mmap");
    if (in_page == NULL || out_page == NULL) return;
    params p;
    rng_fill(p.key, 32);
    for (uint32_t blocks = 1; blocks <= 70; blocks++) {
        const uint32_t n = blocks * 16;
        for (int at_end = 0; at_end < 2; at_end++) {
            uint8_t *in = at_end ? in_page + page - n : in_page;
            uint8_t *out = at_end ? out_page + page - n : out_page;
            uint8_t iv[32], st = 0;
            rng_fill(in, n);
            for (int op = 0; op < OP_COUNT; op++) {
                rng_fill(iv, 32);
                CHECK(one_shot(op, out, in, n, &p, iv, &st) == TG_OK, "%s guard page %s", backend, op_names[op]);
                CHECK(one_shot(op, in, in, n, &p, iv, &st) == TG_OK, "%s guard page in place %s", backend, op_names[op]);
            }
        }
    }
    munmap(in_page - page, 3 * page);
    munmap(out_page - page, 3 * page);
    guard_page_arguments(backend);
}
#endif

/* ---- the same bytes on every platform ---- */

/* FNV-1a over the outputs of a fixed, seeded workload (every mode, many
 * lengths and states). Printed, so the test script can compare it across
 * x86-64, aarch64 and Windows runs: identical digests mean identical bytes. */
static uint64_t workload_digest(void) {
    const uint64_t saved = rng_state;
    rng_state = 0xd16e57;
    static uint8_t in[4096], out[4096];
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int t = 0; t < 400; t++) {
        const int op = t % OP_COUNT;
        uint32_t n = 1 + rng_below(4096);
        if (op != OP_CTR) n = (n + 15) / 16 * 16;
        if (n > sizeof in) n = sizeof in;
        params p;
        rng_fill(p.key, 32);
        rng_fill(p.iv, 32);
        uint8_t state = (uint8_t)rng_below(16);
        rng_fill(in, n);
        one_shot(op, out, in, n, &p, p.iv, &state);
        for (uint32_t i = 0; i < n; i++) h = (h ^ out[i]) * 0x100000001b3ULL;
        for (int i = 0; i < 32; i++) h = (h ^ p.iv[i]) * 0x100000001b3ULL;
        h = (h ^ state) * 0x100000001b3ULL;
    }
    rng_state = saved;
    return h;
}


int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <vectors-dir>\n", argv[0]);
        return 2;
    }
    fail_fast = getenv("TG_TEST_FAIL_FAST") != NULL;
    /* The very first call of the process is a one-shot, before tg_init():
     * it must initialize the library itself and encrypt (FIPS-197 C.3). */
    {
        uint8_t key[32], pt[16], iv[16] = {0}, ct[16];
        static const uint8_t want[16] = {0x8e, 0xa2, 0xb7, 0xca, 0x51, 0x67, 0x45, 0xbf,
                                         0xea, 0xfc, 0x49, 0x90, 0x4b, 0x49, 0x60, 0x89};
        for (int i = 0; i < 32; i++) key[i] = (uint8_t)i;
        for (int i = 0; i < 16; i++) pt[i] = (uint8_t)(0x11 * i);
        memset(ct, 0, sizeof ct);
        const int rc = tg_cbc256_encrypt(ct, pt, 16, key, iv);
        if (rc == TG_OK) CHECK(!memcmp(ct, want, 16), "first call of the process (before tg_init) did not encrypt");
        else CHECK(rc == tg_init() && rc != TG_OK, "first call returned %d, tg_init %d", rc, tg_init());
    }
    if (tg_init() != TG_OK) {
        printf("FAIL tg_init: %s (TGCRYPTO_BACKEND=%s)\n", tg_strerror(tg_init()), getenv("TGCRYPTO_BACKEND"));
        test_init_error(tg_init());
        return 1;
    }
    /* TG_TEST_ONLY (the mutation runner): "factorize" runs only the
     * factorize tests (no other test reaches factorize.c); "init" stops
     * after the backend choice checks (for runs under various
     * TGCRYPTO_BACKEND values). */
    const char *only = getenv("TG_TEST_ONLY");
    if (only != NULL && strcmp(only, "factorize") == 0) {
        test_factorize(argv[1]);
        printf("%u passed, %u failed (TG_TEST_ONLY=factorize)\n", passed, failed);
        return failed ? 1 : 0;
    }
    const char *default_backend = tg_backend();
    printf("tgcrypto %s, default backend: %s\n", tg_version(), default_backend);
    test_backend_choice(default_backend);
    if (only != NULL && strcmp(only, "init") == 0) {
        printf("%u passed, %u failed (TG_TEST_ONLY=init)\n", passed, failed);
        return failed ? 1 : 0;
    }
    static const char *const files[] = {"fips197.txt", "sp800_38a.txt", "generated.txt"};

    int ran_soft = 0;
    for (uint32_t i = 0; i < tg_backend_count(); i++) {
        const char *name = tg_backend_name(i);
        if (!tg_backend_available(i)) {
            printf("SKIP %-8s not available on this CPU\n", name);
            CHECK(tg_set_backend(name) == TG_ERR_UNSUPPORTED, "unavailable %s must refuse", name);
            continue;
        }
        CHECK(tg_set_backend(name) == TG_OK && !strcmp(tg_backend(), name), "select %s", name);
        unsigned before = passed + failed, cases = 0;
        for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) cases += run_vector_file(argv[1], files[f], name);
        /* soft against itself still checks in place and chunked == one-shot */
        differential(name, strcmp(name, "soft") == 0 ? 500 : 3000);
        ran_soft |= strcmp(name, "soft") == 0;
        test_argument_codes();
        test_arguments(name);
        counter_boundaries(name);
        test_wipes(name);
        test_mtproto(argv[1], name);
#ifdef HAVE_GUARD_PAGES
        guard_page_checks(name);
#endif
        const uint64_t digest = workload_digest();
        static uint64_t first_digest;
        if (first_digest == 0) first_digest = digest;
        CHECK(digest == first_digest, "%s: workload digest differs from the first backend's", name);
        printf("ran  %-8s %u vector cases, %u checks, workload digest %016llx\n", name, cases, passed + failed - before,
               (unsigned long long)digest);
    }
    CHECK(ran_soft, "the soft backend must always run");
    tg_set_backend(default_backend);
    sha_tests(argv[1]);
    test_factorize(argv[1]);
    test_wipes_summary();
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
