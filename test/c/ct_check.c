/*
 * ct_check.c - the soft backend must not branch on, or index memory with,
 * secret data. Run under valgrind memcheck (`zig build ct-check`): the key,
 * the IGE/CBC IVs and the data are marked "undefined", so any conditional
 * jump or address computed from them is reported as an error and the run
 * fails. (The CTR counter and offset are public and stay defined.) The
 * portable SHA-256 / SHA-1 (the hashes under "soft") get a secret message;
 * lengths are public.
 *
 * scripts/test.sh builds it twice: at -O2 (the code as shipped) and at -O0
 * with -fno-builtin, where every library call stays a call: at -O2, or even
 * at -O0 with builtins, clang turns a 16-byte memcmp(...) != 0 into one
 * branch-free vector compare, so a msg_key compare written with memcmp
 * would pass unseen; at -O0 -fno-builtin valgrind sees memcmp's early exit.
 */
#include <memcheck.h>
#include <stdio.h>
#include <string.h>

#include "tgcrypto.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))

/* A deliberate table look-up and branch on secret data: `--self-test` runs
 * it to prove that valgrind does report such code (the run must fail). */
static int leaky(const uint8_t *secret) {
    static const uint8_t table[256] = {1};
    volatile uint8_t x = table[secret[0]];
    if (secret[1] & 1) x ^= 1;
    return x;
}

/* `--self-test-memcmp`: two secret 16-byte values compared with memcmp and
 * no branch in this code, as a msg_key compare written with memcmp would
 * be; the -O0 -fno-builtin build must report it (memcmp exits early). */
static int leaky_memcmp(const uint8_t *a, const uint8_t *b) {
    volatile int differ = memcmp(a, b, 16) != 0;
    return differ;
}

int main(int argc, char **argv) {
    if (tg_set_backend("soft") != TG_OK) {
        printf("FAIL: soft backend unavailable\n");
        return 1;
    }
    static uint8_t key[32], iv[32], data[1024], out[1024];
    for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 31 + 7);
    for (int i = 0; i < 32; i++) key[i] = (uint8_t)(i * 5 + 1), iv[i] = (uint8_t)(i * 3 + 2);
    int failures = 0;
    if (argc > 1 && strcmp(argv[1], "--self-test") == 0) {
        SECRET(key, sizeof key);
        return leaky(key) == 255; /* the result is irrelevant; valgrind's verdict is what counts */
    }
    if (argc > 1 && strcmp(argv[1], "--self-test-memcmp") == 0) {
        SECRET(key, sizeof key);
        return leaky_memcmp(key, key + 16) == 255;
    }

    static const uint32_t lengths[] = {16, 48, 64, 80, 1024};
    for (size_t l = 0; l < sizeof lengths / sizeof lengths[0]; l++) {
        const uint32_t n = lengths[l];
        uint8_t ctr[16] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0};
        uint8_t state[1] = {3};
        SECRET(key, sizeof key);
        SECRET(iv, sizeof iv);
        SECRET(data, sizeof data);
        failures += tg_ige256_encrypt(out, data, n, key, iv) != TG_OK;
        failures += tg_ige256_decrypt(out, data, n, key, iv) != TG_OK;
        failures += tg_cbc256_encrypt(out, data, n, key, iv) != TG_OK;
        failures += tg_cbc256_decrypt(out, data, n, key, iv) != TG_OK;
        failures += tg_ctr256(out, data, n - 5, key, ctr, state) != TG_OK;

        tg_ige_ctx *ige = tg_ige_new(key, iv, 1);
        failures += ige == NULL || tg_ige_update(ige, out, data, n) != TG_OK;
        tg_ige_free(ige);
        tg_ctr_ctx *ctr_ctx = tg_ctr_new(key, ctr, 9);
        failures += ctr_ctx == NULL || tg_ctr_update(ctr_ctx, out, data, n - 3) != TG_OK;
        tg_ctr_free(ctr_ctx);

        /* SHA-256 / SHA-1 (the portable engine under "soft"): secret message, public length */
        uint8_t st[TG_SHA256_STATE_SIZE];
        failures += tg_sha256(out, data, n) != TG_OK;
        failures += tg_sha1(out, data, n - 5) != TG_OK;
        failures += tg_sha256_init(st) != TG_OK || tg_sha256_update(st, data, 7) != TG_OK ||
                    tg_sha256_update(st, data + 7, n - 7) != TG_OK || tg_sha256_final(st, out) != TG_OK;
        failures += tg_sha1_init(st) != TG_OK || tg_sha1_update(st, data, n - 1) != TG_OK ||
                    tg_sha1_final(st, out) != TG_OK;
    }

    /* MTProto message layer (mtproto.c declassifies only the verdict and,
     * once accepted, the length): the auth key, the message and even the
     * packet bytes are secret, so the msg_key compare, the length fields and
     * the padding checks all run on secret data. Accepted and rejected
     * packets. */
    static uint8_t auth_key[256], msg[600], padding[32], packet[700], plain[700];
    for (int i = 0; i < 256; i++) auth_key[i] = (uint8_t)(i * 7 + 3);
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 13 + 1);
    msg[28] = 0x30, msg[29] = msg[30] = msg[31] = 0; /* 48 bytes of data */
    SECRET(auth_key, sizeof auth_key);
    tg_auth_key *ak = tg_auth_key_new(auth_key);
    failures += ak == NULL;
    for (int t = 0; t < 4 && ak != NULL; t++) {
        SECRET(msg, sizeof msg);
        SECRET(padding, sizeof padding);
        failures += tg_mtproto_encrypt(ak, 8, packet, msg, 32, msg + 32, 48, padding, 16) != TG_OK;
        if (t == 1) packet[40] ^= 1; /* a bad ciphertext: the recomputed msg_key differs */
        if (t == 2) packet[3] ^= 1;  /* a bad auth_key_id */
        if (t == 3) packet[23] ^= 1; /* a bad msg_key (last byte) */
        SECRET(packet, sizeof packet);
        const int rc = tg_mtproto_decrypt(ak, 8, plain, packet, 24 + 96);
        VALGRIND_MAKE_MEM_DEFINED(&rc, sizeof rc); /* the verdict is public */
        failures += rc != (t == 0 ? 80 : TG_ERR_SECURITY);
    }
    tg_auth_key_free(ak);

    printf("ct-check: %s (valgrind reports any secret-dependent branch or address above)\n",
           failures ? "FAILED" : "all calls returned TG_OK");
    return failures != 0;
}
