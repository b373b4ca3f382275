/*
 * test_dispatch.c - the backend choice, called by test_main.c:
 *
 *   1. test_backend_choice: the default backend is the first available one
 *      (unless TGCRYPTO_BACKEND forced it), every known name is taken or
 *      refused as unavailable, the message layer's fused loop goes with
 *      exactly the right backends, and with the CPU features hidden (test
 *      hook) only soft and neon are offered;
 *   2. test_init_error: when tg_init() failed (a bad TGCRYPTO_BACKEND),
 *      every call refuses with its code, and choosing a backend recovers.
 */
#include "tgcrypto.h"
#include "check.h"
#include "mtproto_fused.h" /* which backends get the fused IGE-decrypt + SHA-256 loop */
#if defined(TG_TEST_HOOKS)
#  include "dispatch.h" /* tg_test_cpu_hidden */
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Backend choice: the default is the first available one (unless
 * TGCRYPTO_BACKEND forced it); every known name is taken or refused as
 * unavailable, never as unknown; indices past the end give nothing; with
 * CPU features hidden (test hook) the hardware backends are refused. */
void test_backend_choice(const char *default_backend) {
    const char *forced = getenv("TGCRYPTO_BACKEND");
    const uint32_t n = tg_backend_count();
    if (forced == NULL || forced[0] == '\0') {
        uint32_t first = n;
        for (uint32_t i = n; i-- > 0;)
            if (tg_backend_available(i)) first = i;
        CHECK(first < n && !strcmp(default_backend, tg_backend_name(first)), "default backend %s, first available %s",
              default_backend, first < n ? tg_backend_name(first) : "-");
    }
    CHECK(tg_backend_name(n) == NULL && tg_backend_name(0xffffffffu) == NULL, "tg_backend_name past the end");
    CHECK(!tg_backend_available(n) && !tg_backend_available(0xffffffffu), "tg_backend_available past the end");
    static const char *const known[] = {"vaes512", "vaes256", "aesni", "armce", "neon", "soft"};
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        int compiled = 0, available = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(tg_backend_name(i), known[k])) compiled = 1, available = tg_backend_available(i);
        const int rc = tg_set_backend(known[k]);
        CHECK(rc == (available ? TG_OK : TG_ERR_UNSUPPORTED), "set_backend(%s): %d (compiled in %d, available %d)", known[k], rc,
              compiled, available);
        CHECK(!strcmp(tg_backend(), available ? known[k] : default_backend), "set_backend(%s) left %s", known[k], tg_backend());
        tg_set_backend(default_backend);
    }
#if defined(TG_HAVE_X86_BACKENDS)
    /* The message layer's fused loop: exactly the AES-NI-schedule backends with the SHA-NI engine. */
    const tg_aes_backend *const x86[] = {&tg_backend_aesni, &tg_backend_vaes256, &tg_backend_vaes512};
    for (int i = 0; i < 3; i++) {
        CHECK(tg_fused_ige_dec_sha256(x86[i], &tg_hash_shani) != NULL, "%s + sha-ni: no fused loop", x86[i]->name);
        CHECK(tg_fused_ige_dec_sha256(x86[i], &tg_hash_portable) == NULL, "%s + portable: fused loop", x86[i]->name);
    }
    CHECK(tg_fused_ige_dec_sha256(&tg_backend_soft, &tg_hash_shani) == NULL &&
              tg_fused_ige_dec_sha256(&tg_backend_soft, &tg_hash_portable) == NULL,
          "soft: fused loop");
#endif
#if defined(TG_TEST_HOOKS)
    tg_test_cpu_hidden = 0xffffffffu; /* a CPU with no AES or SHA instructions */
    for (uint32_t i = 0; i < n; i++) {
        const char *name = tg_backend_name(i);
        /* soft, and neon (AArch64's baseline SIMD), need no optional feature */
        const int plain = !strcmp(name, "soft") || !strcmp(name, "neon");
        CHECK(tg_backend_available(i) == plain, "%s available without CPU features", name);
        CHECK(tg_set_backend(name) == (plain ? TG_OK : TG_ERR_UNSUPPORTED), "set_backend(%s) without CPU features", name);
        if (!plain) CHECK(!strcmp(tg_backend(), default_backend), "a refused %s replaced the backend", name);
        tg_set_backend(default_backend);
    }
    tg_set_backend(default_backend);
    CHECK(!strcmp(tg_hash_engine(), "portable"), "hash engine %s without CPU features", tg_hash_engine());
    tg_test_cpu_hidden = 0;
    CHECK(tg_set_backend(default_backend) == TG_OK, "set_backend(%s)", default_backend);
#endif
}

/* With a bad TGCRYPTO_BACKEND every function that needs a backend fails
 * with tg_init()'s code (scripts/test.sh runs this program that way); the
 * line printed says whether they all did. */
void test_init_error(int err) {
    uint8_t key[32] = {1}, iv[32] = {2}, st[1] = {0}, buf[64] = {3}, d[32], state[112], ak[256] = {4};
    const int got[] = {
        tg_ige256_encrypt(buf, buf, 16, key, iv), tg_ige256_decrypt(buf, buf, 16, key, iv),
        tg_cbc256_encrypt(buf, buf, 16, key, iv), tg_cbc256_decrypt(buf, buf, 16, key, iv),
        tg_ctr256(buf, buf, 16, key, iv, st),     tg_sha256(d, buf, 3),
        tg_sha1(d, buf, 3),                       tg_sha256_init(state),
        tg_sha1_init(state),                      tg_sha256_update(state, buf, 1),
        tg_sha256_final(state, d),
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof got / sizeof got[0]; i++)
        if (got[i] != err) printf("FAIL init error: call %zu returned %d, not %d\n", i, got[i], err), bad++;
    if (tg_ctr_new(key, iv, 0) != NULL || tg_ige_new(key, iv, 0) != NULL || tg_cbc_new(key, iv, 1) != NULL)
        printf("FAIL init error: a context was created\n"), bad++;
    tg_auth_key *k = tg_auth_key_new(ak);
    static uint8_t packet[24 + 64], plain[64], pad[16];
    if (k == NULL || tg_mtproto_encrypt(k, 0, packet, plain, 48, NULL, 0, pad, 16) != err ||
        tg_mtproto_decrypt(k, 8, plain, packet, 24 + 64) != err)
        printf("FAIL init error: the message layer did not refuse with %d\n", err), bad++;
    tg_auth_key_free(k);
    if (strcmp(tg_hash_engine(), "portable") != 0) printf("FAIL init error: hash engine %s\n", tg_hash_engine()), bad++;
    /* choosing a backend explicitly recovers */
    if (tg_set_backend("soft") != TG_OK || tg_init() != TG_OK || tg_sha256(d, buf, 3) != TG_OK)
        printf("FAIL init error: tg_set_backend(\"soft\") did not recover\n"), bad++;
    if (bad == 0) printf("init error: every call refused with %d\n", err);
}
